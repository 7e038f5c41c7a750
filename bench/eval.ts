/**
 * The planning-quality eval: `npm run eval [-- --only f01,p01 --smoke --out bench/eval-results.json --timeout-s 900]`
 *
 * Carries every goal of the golden set (bench/eval-goals.json) through a whole planning run, as the demo does: a
 * Temporal dev server of its own (temporary database, free ports), the planner worker and the demo packs' tool
 * workers in this process, against whatever LLM the environment configures (OPENAI_BASE_URL, PLANNER_MODEL, …;
 * without one the ranking planner plans). Goals run one after the other: a local model has one slot.
 *
 * Prints a table (per goal: outcome, plan status, steps, LLM calls, tokens, seconds; totals: share that ended as
 * expected, mean LLM calls per plan generation, tokens per run, p50 planning latency) and writes it with every
 * figure as JSON (default bench/eval-results.json; --out elsewhere; --note adds a line about the conditions), after
 * every goal. SIGINT/SIGTERM measures the goal in progress as it stands (no verdict) and writes before stopping.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { startDevServer, type DevServer } from '../src/dev/temporal-server';
import { projectRoot } from '../src/project-root';
import { loadTemporalTarget } from '../src/temporal-connection';
import { openStorage } from '../src/store/storage';
import { quietSdkLogs, startWorkers, type RunningWorkers } from '../src/cli/local-stack';
import { evalReport, loadGoldenSet, measureInterrupted, renderTable, runGoal, type GoalResult, type GoldenGoal } from './eval-harness';

const ROOT = projectRoot();

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const goalsFile = path.resolve(option('goals') ?? path.join(ROOT, 'bench/eval-goals.json'));
  const out = path.resolve(option('out') ?? path.join(ROOT, 'bench/eval-results.json'));
  const only = option('only')?.split(',').map((s) => s.trim());
  const timeoutMs = Number(option('timeout-s') ?? 900) * 1000;
  const goals = loadGoldenSet(goalsFile).filter((g) => (!only || only.some((o) => g.id.startsWith(o))) && (!process.argv.includes('--smoke') || g.smoke));
  if (goals.length === 0) throw new Error('no goal selected');

  const dir = mkdtempSync(path.join(os.tmpdir(), 'planner-eval-'));
  const taskQueue = `planner-eval-${process.pid}`;
  const config = loadConfig({ ...process.env, PLANNER_TASK_QUEUE: taskQueue, PLANNER_STORE_DIR: path.join(dir, 'store'), TEMPORAL_ADDRESS: undefined });
  const llm = config.llm ? `${config.llm.model} at ${config.llm.baseURL}` : 'none (ranking planner)';
  console.log(`eval: ${goals.length} goal(s) from ${path.relative(ROOT, goalsFile)}; LLM: ${llm}`);

  quietSdkLogs();
  // A reader of the workers' content store: the harness reads each plan conversation's correction turns from it.
  const storage = openStorage(config);
  const readStored = (ref: string) => storage.store.get(ref);
  let server: DevServer | undefined;
  let running: RunningWorkers | undefined;
  let client: Client | undefined;
  let workersDone: Promise<void> | undefined;
  const results: GoalResult[] = [];
  const started = Date.now();
  // Written after every goal, so an interrupted run keeps what it measured.
  const llmInfo = config.llm ? { model: config.llm.model, base_url: config.llm.baseURL, timeout_ms: config.llm.timeoutMs, response_format: config.llm.responseFormat ?? null } : null;
  const write = () => {
    const report = evalReport({ llm: llmInfo, goals_file: path.relative(ROOT, goalsFile), selected: goals.map((g) => g.id), started, note: option('note') }, results);
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    return report.totals;
  };
  // SIGINT/SIGTERM: the goal in progress is measured as it stands (no verdict), then everything is written and stopped.
  let current: { goal: GoldenGoal; handle: WorkflowHandle; started: number } | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (current && client) results.push(await measureInterrupted(current.goal, current.handle, current.started, readStored).catch(() => undefined as never));
      await cleanup();
      process.exit(130);
    })());
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  try {
    server = await startDevServer({ dbFile: path.join(dir, 'temporal.db'), logFile: path.join(dir, 'server.log'), headless: true });
    const target = loadTemporalTarget(config.temporal, { address: server.address });
    running = await startWorkers(target, config);
    workersDone = running.workers.run();
    client = new Client({ connection: await Connection.connect(target.connectionOptions), namespace: target.namespace });
    for (const goal of goals) {
      const goalStarted = Date.now();
      const result = await runGoal(goal, { client, taskQueue, timeoutMs, readStored, onStart: (handle) => (current = { goal, handle, started: goalStarted }) });
      current = undefined;
      results.push(result);
      write();
      const gens = result.plan_generations.map((g) => `${g.seconds.toFixed(0)} s/${g.llm_calls} call(s)`).join(', ');
      console.log(`${result.expected ? 'ok  ' : 'MISS'} ${goal.id}: ${result.outcome}; ${result.llm_calls} LLM call(s), ${result.tokens} tokens, ${result.seconds.toFixed(0)} s (plan: ${gens || '-'})`);
    }
  } finally {
    if (!stopping) await cleanup();
  }

  async function cleanup(): Promise<void> {
    const totals = write();
    console.log(`\n${renderTable(results, totals)}\n\nwritten: ${path.relative(ROOT, out)}`);
    for (const w of running?.workers.workers ?? []) if (w.getState() === 'RUNNING') w.shutdown();
    await workersDone?.catch(() => undefined);
    await running?.close();
    await client?.connection.close();
    await server?.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
