/**
 * The planning-quality eval: `npm run eval [-- --goals F --goals G --only f01,p01 --smoke --held-out-only | --tuning-only
 * --label NAME --out bench/eval-results.json --timeout-s 900 --note TEXT]`
 *
 * Carries every goal of the golden set (by default bench/eval-goals.json and bench/eval-goals-held-out.json; each
 * --goals names one file instead) through a whole planning run, as the demo does: a Temporal dev server of its own
 * (temporary database, free ports), the planner worker and the tool workers in this process, against whatever LLM
 * the environment configures (OPENAI_BASE_URL, PLANNER_MODEL, …; without one the ranking planner plans). Goals run
 * one after the other: a local model has one slot.
 *
 * The catalogs: `waste` seeded for the pinned day (EVAL_DAY; every run's request.now is EVAL_NOW), `workspace`
 * (a goal's `workspace` folder is its run's workspace_root), and `files`, the MCP filesystem server over
 * a copy of bench/eval-fixtures/notes, configured as `planner dev` configures MCP servers (a planner.config.json). Before the
 * runs, each goal's gold calls are executed against the same catalogs (bench/eval-gold.ts), so each run's answer is
 * graded against the gold answer, not only its status (bench/eval-scoring.ts).
 *
 * Prints a line per goal and a table (answer right first, the status verdict beside; plan F1s, constraint coverage,
 * LLM calls, tokens, seconds; totals over all goals, held-out and tuning goals apart, by catalog) and writes it with
 * every figure as this planner's section of the results file (default bench/eval-results.json; the label is the
 * configured model, or "ranking"; --label overrides; the other planners' sections stay), after every goal.
 * SIGINT/SIGTERM measures the goal in progress as it stands (no verdict) and writes before stopping.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { startDevServer, type DevServer } from '../src/dev/temporal-server';
import { projectRoot } from '../src/project-root';
import { loadTemporalTarget } from '../src/temporal-connection';
import { openStorage } from '../src/store/storage';
import { quietSdkLogs, startWorkers, type RunningWorkers } from '../src/cli/local-stack';
import { defaultToolPacks } from '../src/worker';
import { executeGold } from './eval-gold';
import {
  EVAL_DAY,
  EVAL_FIXTURES,
  EVAL_NOTES,
  evalReport,
  goalLine,
  loadGoldenSet,
  measureInterrupted,
  plannerLabel,
  renderTable,
  runGoal,
  withPlannerSection,
  workspaceRootOf,
  type GoalResult,
  type GoldenGoal,
} from './eval-harness';

const ROOT = projectRoot();
const DEFAULT_GOALS = ['bench/eval-goals.json', 'bench/eval-goals-held-out.json'].map((f) => path.join(ROOT, f));

function option(name: string): string | undefined {
  return options(name)[0];
}

function options(name: string): string[] {
  return process.argv.flatMap((arg, i) =>
    arg === `--${name}` && i + 1 < process.argv.length ? [process.argv[i + 1]!] : [],
  );
}

/** The catalog of the MCP filesystem server: the server's name in planner.config.json. */
const FILES_CATALOG = 'files';

/** The planner.config.json of the eval's `files` catalog: server-filesystem run by this Node over `notes`, the folder its runs may name. */
function writeMcpConfig(dir: string, notes: string): string {
  const server = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
  const file = path.join(dir, 'planner.config.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { [FILES_CATALOG]: { command: process.execPath, args: [server, notes], roots: [notes] } },
    }),
  );
  return file;
}

async function main(): Promise<void> {
  const given = options('goals').map((f) => path.resolve(f));
  const goalsFiles = given.length > 0 ? given : DEFAULT_GOALS.filter((f) => existsSync(f));
  const out = path.resolve(option('out') ?? path.join(ROOT, 'bench/eval-results.json'));
  const only = option('only')
    ?.split(',')
    .map((s) => s.trim());
  const timeoutMs = Number(option('timeout-s') ?? 900) * 1000;
  const heldOut = process.argv.includes('--held-out-only')
    ? true
    : process.argv.includes('--tuning-only')
      ? false
      : undefined;
  const goals = loadGoldenSet(...goalsFiles).filter(
    (g) =>
      (!only || only.some((o) => g.id.startsWith(o))) &&
      (!process.argv.includes('--smoke') || g.smoke) &&
      (heldOut === undefined || g.held_out === heldOut),
  );
  if (goals.length === 0) throw new Error('no goal selected');
  for (const goal of goals) {
    const root = workspaceRootOf(goal);
    if (root && !statSync(root, { throwIfNoEntry: false })?.isDirectory())
      throw new Error(`goal ${goal.id}: workspace ${goal.workspace} is not a folder of the project`);
  }
  if (!statSync(EVAL_NOTES, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`${path.relative(ROOT, EVAL_NOTES)} (the files catalog's folder) is missing`);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'planner-eval-'));
  // The server works on a copy: a plan calling one of its write tools must not change the committed fixture.
  const notes = path.join(dir, 'notes');
  cpSync(EVAL_NOTES, notes, { recursive: true });
  const taskQueue = `planner-eval-${process.pid}`;
  const config = loadConfig({
    ...process.env,
    PLANNER_TASK_QUEUE: taskQueue,
    PLANNER_STORE_DIR: path.join(dir, 'store'),
    TEMPORAL_ADDRESS: undefined,
    PLANNER_CONFIG: writeMcpConfig(dir, notes),
    // The project (the default workspace) and the fixtures (workspace goals' folders) are the roots runs may use.
    PLANNER_WORKSPACE_ROOT: ROOT,
    PLANNER_WORKSPACE_ROOTS: [ROOT, EVAL_FIXTURES].join(path.delimiter),
  });
  const label = option('label') ?? plannerLabel(config.llm);
  const llm = config.llm ? `${config.llm.model} at ${config.llm.baseURL}` : 'none (ranking planner)';
  const goalsNames = goalsFiles.map((f) => path.relative(ROOT, f));
  console.log(`eval "${label}": ${goals.length} goal(s) from ${goalsNames.join(', ')}; day ${EVAL_DAY}; LLM: ${llm}`);

  // The gold answers, from the same catalogs as the workers', before anything runs.
  const goldPacks = await defaultToolPacks(config, { today: EVAL_DAY });
  const goldData = await executeGold(goals, goldPacks, { [FILES_CATALOG]: notes }).finally(() =>
    Promise.all(goldPacks.map((p) => p.close())),
  );
  console.log(`gold: ${goldData.size} goal(s) with gold calls executed`);

  quietSdkLogs();
  // A reader of the workers' content store: the harness reads correction turns and step results from it.
  const storage = openStorage(config);
  const readStored = (ref: string) => storage.store.get(ref);
  let server: DevServer | undefined;
  let running: RunningWorkers | undefined;
  let client: Client | undefined;
  let workersDone: Promise<void> | undefined;
  const results: GoalResult[] = [];
  const started = Date.now();
  // Written after every goal, so an interrupted run keeps what it measured.
  const llmInfo = config.llm
    ? {
        model: config.llm.model,
        base_url: config.llm.baseURL,
        timeout_ms: config.llm.timeoutMs,
        response_format: config.llm.responseFormat ?? null,
      }
    : null;
  const write = () => {
    const report = evalReport(
      { llm: llmInfo, goals_files: goalsNames, selected: goals.map((g) => g.id), started, note: option('note') },
      results,
    );
    writeFileSync(out, withPlannerSection(existsSync(out) ? readFileSync(out, 'utf8') : undefined, label, report));
    return report.totals;
  };
  // SIGINT/SIGTERM: the goal in progress is measured as it stands (no verdict), then everything is written and stopped.
  let current: { goal: GoldenGoal; handle: WorkflowHandle; started: number } | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (current && client)
        results.push(
          await measureInterrupted(current.goal, current.handle, current.started, readStored).catch(
            () => undefined as never,
          ),
        );
      await cleanup();
      process.exit(130);
    })());
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  try {
    server = await startDevServer({
      binaries: loadConfig(),
      dbFile: path.join(dir, 'temporal.db'),
      logFile: path.join(dir, 'server.log'),
      headless: true,
    });
    const target = loadTemporalTarget(config.temporal, { address: server.address });
    running = await startWorkers(target, config, { today: EVAL_DAY });
    workersDone = running.workers.run();
    client = new Client({
      connection: await Connection.connect(target.connectionOptions),
      namespace: target.namespace,
    });
    for (const goal of goals) {
      const goalStarted = Date.now();
      const result = await runGoal(goal, {
        client,
        taskQueue,
        timeoutMs,
        readStored,
        goldData,
        onStart: (handle) => (current = { goal, handle, started: goalStarted }),
      });
      current = undefined;
      results.push(result);
      write();
      console.log(goalLine(result));
    }
  } finally {
    if (!stopping) await cleanup();
  }

  async function cleanup(): Promise<void> {
    // Nothing measured (the server or workers did not start): this planner's earlier section stays.
    if (results.length > 0)
      console.log(`\n${renderTable(results, write())}\n\nwritten: ${path.relative(ROOT, out)} ("${label}")`);
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
