/**
 * What the planner costs on top of Temporal itself.
 *   npm run bench [-- --plans 200 --concurrency 20 --warmup 20 --replan-plans 20 --db file --out bench/results.json]
 *
 * Starts its own dev server (free ports; a temporary SQLite file, or `--db memory`) and, one after the other, two worker processes that load
 * the same workflow bundle (bench/workflows.ts):
 *   - baseline: bench/baseline-workflow.ts, ten no-op activities in two parallel chains of five;
 *   - planner: planningWorkflow with the deterministic planner over the bench pack (bench/bench-pack.ts), whose goal the
 *     ranking planner turns into the same shape (two chains of five no-op steps linked by `<x>_ids`);
 * then a re-plan case (the last step of one chain fails once, permanently, so the plan is re-planned once).
 * Prints plans/s, p50/p95 end-to-end latency, history events and bytes per plan, worker peak RSS, the planner/
 * baseline ratios and where the planner's time goes; writes results.json and results.svg next to this file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../src/dev/temporal-server';
import { BENCH_BRANCHES, BENCH_GOAL, BENCH_REPLAN_GOAL } from './bench-pack';
import type { PlanningOutcome } from '../src/api';
import { renderChart } from './chart';
import { exited } from './child-processes';
import { projectRoot } from '../src/project-root';

const ROOT = projectRoot();
const EventType = temporal.api.enums.v1.EventType;

interface Flags {
  plans: number;
  concurrency: number;
  warmup: number;
  replanPlans: number;
  out: string;
  /** The dev server's persistence: a SQLite file in the temporary folder (default) or in memory. */
  db: 'file' | 'memory';
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { plans: 200, concurrency: 20, warmup: 20, replanPlans: 20, out: path.join(__dirname, 'results.json'), db: 'file' };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i] ?? '';
    const int = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) throw new Error(`${name} takes a whole number`);
      return n;
    };
    if (name === '--plans') flags.plans = Math.max(1, int());
    else if (name === '--concurrency') flags.concurrency = Math.max(1, int());
    else if (name === '--warmup') flags.warmup = int();
    else if (name === '--replan-plans') flags.replanPlans = int();
    else if (name === '--out') flags.out = path.resolve(value());
    else if (name === '--db') {
      const v = value();
      if (v !== 'file' && v !== 'memory') throw new Error('--db takes file or memory');
      flags.db = v;
    } else if (name === '--help' || name === '-h') {
      console.log('npm run bench -- [--plans 200] [--concurrency 20] [--warmup 20] [--replan-plans 20] [--db file|memory] [--out bench/results.json]');
      process.exit(0);
    } else throw new Error(`unknown flag ${name} (try --help)`);
  }
  return flags;
}

// ---- the worker process ----------------------------------------------------------------------------------------

interface WorkerProcess {
  child: ChildProcess;
  /** Peak and current resident set size of the worker process, in MB (Linux /proc; ps elsewhere). */
  rss(): { peak_mb: number; current_mb: number };
  stop(): Promise<void>;
}

async function spawnWorker(env: NodeJS.ProcessEnv, children: Set<ChildProcess>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'bench-worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`bench worker exited (${code}) before ready: ${stderr}`)));
  });
  const kb = (field: string): number => {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) : NaN;
    } catch {
      return NaN;
    }
  };
  return {
    child,
    rss: () => ({ peak_mb: round(kb('VmHWM') / 1024, 1), current_mb: round(kb('VmRSS') / 1024, 1) }),
    async stop() {
      if (exited(child)) return;
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await done;
      clearTimeout(timer);
      children.delete(child);
    },
  };
}

// ---- measuring -----------------------------------------------------------------------------------------------

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

async function pool<T>(count: number, concurrency: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await job(i);
      }
    }),
  );
  return out;
}

interface Run<R> {
  id: string;
  latency_ms: number;
  result: R;
}

async function runMany<R>(
  count: number,
  concurrency: number,
  start: (i: number) => Promise<WorkflowHandle>,
): Promise<{ runs: Run<R>[]; seconds: number }> {
  const t0 = performance.now();
  const runs = await pool(count, concurrency, async (i) => {
    const started = performance.now();
    const handle = await start(i);
    const result = (await handle.result()) as R;
    return { id: handle.workflowId, latency_ms: performance.now() - started, result };
  });
  return { runs, seconds: (performance.now() - t0) / 1000 };
}

function ms(t: temporal.api.history.v1.IHistoryEvent['eventTime']): number {
  return Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
}

interface HistoryFacts {
  events: number;
  bytes: number;
  eventTypes: Record<string, number>;
  /** Activities per type: how many, and their mean schedule-to-close time. */
  activities: Record<string, { count: number; total_ms: number }>;
  workflowTasks: number;
  workflowTaskMs: number;
}

function historyFacts(history: temporal.api.history.v1.IHistory): HistoryFacts {
  const events = history.events ?? [];
  const facts: HistoryFacts = {
    events: events.length,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    eventTypes: {},
    activities: {},
    workflowTasks: 0,
    workflowTaskMs: 0,
  };
  const scheduled = new Map<string, { type: string; at: number }>();
  const wftScheduled = new Map<string, number>();
  for (const e of events) {
    const type = String(EventType[e.eventType ?? 0] ?? e.eventType).replace(/^EVENT_TYPE_/, '');
    facts.eventTypes[type] = (facts.eventTypes[type] ?? 0) + 1;
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes) {
      scheduled.set(id, { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at: ms(e.eventTime) });
    }
    const closed = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    if (closed) {
      const s = scheduled.get(String(closed.scheduledEventId));
      if (s) {
        const a = (facts.activities[s.type] ??= { count: 0, total_ms: 0 });
        a.count += 1;
        a.total_ms += ms(e.eventTime) - s.at;
      }
    }
    if (e.workflowTaskScheduledEventAttributes) wftScheduled.set(id, ms(e.eventTime));
    if (e.workflowTaskCompletedEventAttributes) {
      const s = wftScheduled.get(String(e.workflowTaskCompletedEventAttributes.scheduledEventId));
      facts.workflowTasks += 1;
      if (s !== undefined) facts.workflowTaskMs += ms(e.eventTime) - s;
    }
  }
  return facts;
}

async function histories(client: Client, ids: readonly string[]): Promise<HistoryFacts[]> {
  return await pool(ids.length, 20, async (i) => historyFacts(await client.workflow.getHandle(ids[i]!).fetchHistory()));
}

function summarize(name: string, runs: Run<unknown>[], seconds: number, facts: HistoryFacts[], rss: { peak_mb: number; current_mb: number }) {
  const lat = runs.map((r) => r.latency_ms).sort((a, b) => a - b);
  const activities: Record<string, { per_plan: number; mean_ms: number }> = {};
  for (const f of facts) {
    for (const [type, a] of Object.entries(f.activities)) {
      const x = (activities[type] ??= { per_plan: 0, mean_ms: 0 });
      x.per_plan += a.count;
      x.mean_ms += a.total_ms;
    }
  }
  for (const x of Object.values(activities)) {
    x.mean_ms = round(x.mean_ms / Math.max(1, x.per_plan), 1);
    x.per_plan = round(x.per_plan / facts.length, 2);
  }
  const eventTypes: Record<string, number> = {};
  for (const f of facts) for (const [t, n] of Object.entries(f.eventTypes)) eventTypes[t] = (eventTypes[t] ?? 0) + n;
  for (const t of Object.keys(eventTypes)) eventTypes[t] = round(eventTypes[t]! / facts.length, 2);
  return {
    name,
    plans: runs.length,
    seconds: round(seconds, 2),
    plans_per_s: round(runs.length / seconds, 2),
    latency_ms: { p50: round(percentile(lat, 50), 1), p95: round(percentile(lat, 95), 1), mean: round(mean(lat), 1), max: round(lat.at(-1) ?? NaN, 1) },
    history: {
      events_per_plan: round(mean(facts.map((f) => f.events)), 1),
      bytes_per_plan: Math.round(mean(facts.map((f) => f.bytes))),
      max_bytes: Math.max(...facts.map((f) => f.bytes)),
    },
    activities_per_plan: round(mean(facts.map((f) => Object.values(f.activities).reduce((s, a) => s + a.count, 0))), 2),
    activities: activities,
    workflow_tasks_per_plan: round(mean(facts.map((f) => f.workflowTasks)), 2),
    workflow_task_ms_per_plan: round(mean(facts.map((f) => f.workflowTaskMs)), 1),
    event_types_per_plan: eventTypes,
    worker_rss_mb: rss,
  };
}

// ---- the bench -------------------------------------------------------------------------------------------------

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const children = new Set<ChildProcess>();
  let server: DevServer | undefined;
  let client: Client | undefined;
  const cleanup = async () => {
    for (const c of children) if (!exited(c)) c.kill('SIGKILL');
    await client?.connection.close().catch(() => undefined);
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const log = (line: string) => console.log(line);
    log(`bench: ${flags.plans} plans per side, ${flags.concurrency} concurrent, ${flags.warmup} warm-up, ${flags.replanPlans} re-plan plans; server db ${flags.db}; ${os.cpus().length} cores`);
    server = await startDevServer({ ...(flags.db === 'memory' ? {} : { dbFile: path.join(dir, 'temporal.db') }), headless: true, logFile: path.join(dir, 'server.log') });
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('./workflows'),
      logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
    });
    const bundle = path.join(dir, 'bundle.js');
    writeFileSync(bundle, code);
    client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const c = client;
    const workerEnv = (mode: string, taskQueue: string, tools = 'pool') => ({
      BENCH_MODE: mode,
      BENCH_TOOLS: tools,
      BENCH_TASK_QUEUE: taskQueue,
      BENCH_BUNDLE: bundle,
      BENCH_STORE_DIR: path.join(dir, 'store'),
      TEMPORAL_ADDRESS: server!.address,
    });
    const branches = BENCH_BRANCHES.map((b) => [...b]);

    // Baseline.
    const baselineWorker = await spawnWorker(workerEnv('baseline', 'bench-baseline'), children);
    const startBaseline = (tag: string) => (i: number) =>
      c.workflow.start('baselineWorkflow', { taskQueue: 'bench-baseline', workflowId: `baseline-${tag}-${i}`, args: [{ branches }] });
    await runMany(flags.warmup, flags.concurrency, startBaseline('warmup'));
    const baseline = await runMany<number>(flags.plans, flags.concurrency, startBaseline('run'));
    const baselineRss = baselineWorker.rss();
    await baselineWorker.stop();
    if (baseline.runs.some((r) => r.result !== 10)) throw new Error('a baseline run did not run 10 activities');
    log(`baseline: ${flags.plans} runs in ${baseline.seconds.toFixed(1)} s`);

    // Planner.
    const plannerWorker = await spawnWorker(workerEnv('planner', 'bench-planner'), children);
    const startPlanner = (tag: string, goal: string, taskQueue = 'bench-planner') => (i: number) =>
      c.workflow.start('planningWorkflow', {
        taskQueue,
        workflowId: `planner-${tag}-${i}`,
        args: [{ request: { goal, tool_catalog: 'bench', planner: 'ranking' } }],
      });
    await runMany(flags.warmup, flags.concurrency, startPlanner('warmup', BENCH_GOAL));
    const planner = await runMany<PlanningOutcome>(flags.plans, flags.concurrency, startPlanner('run', BENCH_GOAL));
    const plannerRss = plannerWorker.rss();
    log(`planner: ${flags.plans} runs in ${planner.seconds.toFixed(1)} s`);
    const replan = await runMany<PlanningOutcome>(flags.replanPlans, flags.concurrency, startPlanner('replan', BENCH_REPLAN_GOAL));
    const replanRss = plannerWorker.rss();
    await plannerWorker.stop();
    const notDone = (runs: Run<PlanningOutcome>[], version: number) =>
      runs.filter((r) => r.result.stage !== 'COMPLETED' || r.result.steps.length !== 10 || r.result.steps.some((s) => s.status !== 'COMPLETED') || r.result.plan_version !== version);
    if (notDone(planner.runs, 1).length > 0) throw new Error(`${notDone(planner.runs, 1).length} planner runs did not complete 10 steps on plan v1`);
    if (notDone(replan.runs, 2).length > 0) throw new Error(`${notDone(replan.runs, 2).length} re-plan runs did not complete 10 steps on plan v2`);

    // Planner again, with the tools served from the planner's own queue (a deployment choice; the baseline's shape).
    const colocatedWorker = await spawnWorker(workerEnv('planner', 'bench-colocated', 'colocated'), children);
    await runMany(flags.warmup, flags.concurrency, startPlanner('colocated-warmup', BENCH_GOAL, 'bench-colocated'));
    const colocated = await runMany<PlanningOutcome>(flags.plans, flags.concurrency, startPlanner('colocated', BENCH_GOAL, 'bench-colocated'));
    const colocatedRss = colocatedWorker.rss();
    await colocatedWorker.stop();
    if (notDone(colocated.runs, 1).length > 0) throw new Error(`${notDone(colocated.runs, 1).length} co-located planner runs did not complete`);
    log(`planner, tools co-located: ${flags.plans} runs in ${colocated.seconds.toFixed(1)} s`);

    log('reading histories …');
    const b = summarize('baseline', baseline.runs, baseline.seconds, await histories(c, baseline.runs.map((r) => r.id)), baselineRss);
    const p = summarize('planner', planner.runs, planner.seconds, await histories(c, planner.runs.map((r) => r.id)), plannerRss);
    const rp = summarize('planner with one re-plan', replan.runs, replan.seconds, await histories(c, replan.runs.map((r) => r.id)), replanRss);
    const pc = summarize('planner, tools co-located', colocated.runs, colocated.seconds, await histories(c, colocated.runs.map((r) => r.id)), colocatedRss);

    const ratioOf = (s: typeof p) => ({
      latency_p50: round(s.latency_ms.p50 / b.latency_ms.p50),
      latency_p95: round(s.latency_ms.p95 / b.latency_ms.p95),
      throughput: round(s.plans_per_s / b.plans_per_s),
      history_events: round(s.history.events_per_plan / b.history.events_per_plan),
      history_bytes: round(s.history.bytes_per_plan / b.history.bytes_per_plan),
      worker_rss_peak: round(s.worker_rss_mb.peak_mb / b.worker_rss_mb.peak_mb),
      activities: round(s.activities_per_plan / b.activities_per_plan),
    });
    /** Steps routed to a separate tool pool: the default deployment. */
    const ratio = ratioOf(p);
    /** Tools on the planner's own queue, as the baseline runs its activities. */
    const ratio_colocated = ratioOf(pc);
    const targets = {
      latency_p50: { target: '<= 1.3x baseline', value: ratio.latency_p50, met: ratio.latency_p50 <= 1.3 },
      throughput: { target: '>= 0.75x baseline', value: ratio.throughput, met: ratio.throughput >= 0.75 },
      latency_p50_colocated: { target: '<= 1.3x baseline', value: ratio_colocated.latency_p50, met: ratio_colocated.latency_p50 <= 1.3 },
      throughput_colocated: { target: '>= 0.75x baseline', value: ratio_colocated.throughput, met: ratio_colocated.throughput >= 0.75 },
      replan_history_bytes: { target: '< 200 KB per plan (10 steps, one re-plan)', value: rp.history.max_bytes, met: rp.history.max_bytes < 200 * 1024 },
    };
    const cpu = os.cpus();
    const results = {
      date: new Date().toISOString(),
      machine: {
        cores: cpu.length,
        cpu: cpu[0]?.model ?? 'unknown',
        memory_gb: round(os.totalmem() / 2 ** 30, 1),
        platform: `${os.platform()} ${os.release()} ${os.arch()}`,
        node: process.version,
        temporal_sdk: '1.24.0',
        temporal_server: 'temporal CLI dev server (SQLite file), same machine',
      },
      config: { plans: flags.plans, concurrency: flags.concurrency, warmup: flags.warmup, replan_plans: flags.replanPlans, server_db: flags.db === 'file' ? 'SQLite file in a temporary folder' : 'in memory', shape: 'two parallel chains of 5 no-op steps (10 steps)' },
      ratio,
      ratio_colocated,
      targets,
      baseline: b,
      planner: p,
      planner_colocated: pc,
      replan: rp,
      where_the_time_goes: explain(b, p),
    };
    writeFileSync(flags.out, `${JSON.stringify(results, null, 2)}\n`);
    const svg = flags.out.replace(/\.json$/, '') + '.svg';
    writeFileSync(svg, renderChart(results));

    const line = (s: ReturnType<typeof summarize>) =>
      `${s.name.padEnd(25)} ${s.plans_per_s.toFixed(2).padStart(7)} plans/s  p50 ${s.latency_ms.p50.toFixed(0).padStart(5)} ms  p95 ${s.latency_ms.p95.toFixed(0).padStart(5)} ms  ` +
      `${s.history.events_per_plan.toFixed(0).padStart(4)} events  ${(s.history.bytes_per_plan / 1024).toFixed(1).padStart(6)} KB/plan (max ${(s.history.max_bytes / 1024).toFixed(1)})  ` +
      `${s.activities_per_plan} activities  worker RSS peak ${s.worker_rss_mb.peak_mb} MB`;
    log('');
    log(line(b));
    log(line(p));
    log(line(rp));
    log(line(pc));
    const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
    log(`ratio planner/baseline: latency p50 ${ratio.latency_p50}x (target <= 1.3: ${verdict(targets.latency_p50.met)}), ` +
      `throughput ${ratio.throughput}x (target >= 0.75: ${verdict(targets.throughput.met)}), history ${ratio.history_bytes}x bytes, RSS ${ratio.worker_rss_peak}x; ` +
      `re-plan history max ${(rp.history.max_bytes / 1024).toFixed(1)} KB (target < 200 KB: ${verdict(targets.replan_history_bytes.met)})`);
    log(`ratio planner (tools co-located)/baseline: latency p50 ${ratio_colocated.latency_p50}x (${verdict(targets.latency_p50_colocated.met)}), ` +
      `throughput ${ratio_colocated.throughput}x (${verdict(targets.throughput_colocated.met)})`);
    for (const note of results.where_the_time_goes.notes) log(`  - ${note}`);
    log(`wrote ${path.relative(process.cwd(), flags.out)} and ${path.relative(process.cwd(), svg)}`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

function explain(b: ReturnType<typeof summarize>, p: ReturnType<typeof summarize>) {
  const planning = Object.entries(p.activities).filter(([t]) => t !== 'executeStep');
  const planningMs = planning.reduce((s, [, a]) => s + a.per_plan * a.mean_ms, 0);
  const steps = p.activities.executeStep ?? { per_plan: 0, mean_ms: 0 };
  const baseSteps = b.activities.noop ?? { per_plan: 0, mean_ms: 0 };
  return {
    planner_activities_per_plan: Object.fromEntries(Object.entries(p.activities).map(([t, a]) => [t, a.per_plan])),
    baseline_activities_per_plan: Object.fromEntries(Object.entries(b.activities).map(([t, a]) => [t, a.per_plan])),
    notes: [
      planning.length === 0
        ? `the planner schedules ${p.activities_per_plan} activities per plan (its ${steps.per_plan} steps) like the baseline's ${b.activities_per_plan}; ` +
          'its planning work (analysis, plan, critique, gatekeeper, tool lookup) runs as local activities inside workflow tasks'
        : `the planner runs ${p.activities_per_plan} activities per plan against the baseline's ${b.activities_per_plan}: ` +
          `${planning.map(([t, a]) => `${t} ×${a.per_plan}`).join(', ')} before the ${steps.per_plan} steps, one after another`,
      `planning activities take ${planningMs.toFixed(0)} ms per plan scheduled-to-closed in sum; a step takes ${steps.mean_ms} ms vs ${baseSteps.mean_ms} ms for a baseline activity`,
      `${p.workflow_tasks_per_plan} workflow tasks per plan (${p.workflow_task_ms_per_plan} ms summed) vs ${b.workflow_tasks_per_plan} (${b.workflow_task_ms_per_plan} ms) for the baseline`,
      `${p.event_types_per_plan.MARKER_RECORDED ?? 0} markers per plan (local activities for the deterministic planning work, and the patch marker)`,
      `${p.event_types_per_plan.UPSERT_WORKFLOW_SEARCH_ATTRIBUTES ?? 0} search-attribute upserts and ${p.event_types_per_plan.WORKFLOW_PROPERTIES_MODIFIED ?? 0} memo updates per plan (stage, version, budget visibility)`,
    ],
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
