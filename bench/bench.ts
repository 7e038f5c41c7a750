/**
 * What the planner costs on top of Temporal itself.
 *   npm run bench [-- --plans 200 --concurrency 20 --warmup 20 --replan-plans 20 --rounds 3 --db file --out bench/results.json]
 *   (`--profile <dir>`: each worker process writes a V8 CPU profile there, for where the worker's time goes;
 *   `--worker-heap-mb N`: both sides' worker processes run with `--max-old-space-size=N`, the heap Node gives itself
 *   in a container of 4×N MB, where V8 also grows the heap less eagerly: for the memory figures of such a deployment;
 *   `--gc-trace <dir>`: both sides' worker processes run with `--trace-gc-verbose`, their output kept there, and each
 *   side records the old-generation limits V8 set in its main thread, the decisions behind its peak RSS;
 *   `--planner-node-options "<options>"`: the planner's worker process also runs with them, after the bin's (the last
 *   value of an option wins): an experiment, such as `--max-semi-space-size=16` for Node's default young generation)
 *
 * Starts its own dev server (free ports; a temporary SQLite file, or `--db memory`) and, one after the other, worker
 * processes (bench/bench-worker.ts, compiled), each loading only its own side's code and workflow bundle, as a
 * deployment would:
 *   - raw: bench/baseline-workflow.ts, ten no-op activities in two parallel chains of five;
 *   - planner: planningWorkflow with the deterministic planner over the bench pack (bench/bench-pack.ts), whose goal the
 *     ranking planner turns into the same shape (two chains of five no-op steps linked by `<x>_ids`), in a worker
 *     that serves what `planner worker` serves (the default packs too);
 * in two topologies, each planner side next to the raw side it is compared with: the default deployment (the
 * activities / tools on the workflow's own queue, one worker) and split pools (on a second queue, its own worker in
 * the same process); then a re-plan case (the last step of one chain fails once, permanently, so the plan is
 * re-planned once) on the default deployment. `--rounds N` repeats the sides N times, the raw side first in odd
 * rounds and second in even ones, so neither side always meets the cooler machine or the emptier server database;
 * each side's figures pool its rounds, and every round's ratios are kept to show the spread.
 * Prints plans/s, p50/p95 end-to-end latency, history events and bytes per plan, worker peak RSS and where the
 * memory is, the planner/raw ratios per topology and where the planner's time goes; writes results.json and
 * results.svg next to this file. `--before <file>` copies worker memory figures measured before a change (see
 * bench/memory-before.json) under `memory_before`, to record what the change did.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startDevServer, type DevServer } from '../src/dev/temporal-server';
import { BENCH_BRANCHES, BENCH_GOAL, BENCH_REPLAN_GOAL } from './bench-pack';
import type { PlanningOutcome } from '../src/api';
import { planningStartOptions } from '../src/client';
import { loadConfig, type ToolQueues } from '../src/config';
import { renderChart } from './chart';
import { describeHeapLimits, mainThreadHeapLimits, type HeapLimit } from './heap-limits';
import { exited } from './child-processes';
import { mean, percentile, round } from './figures';
import { plannerNodeOptions } from './node-options';
import { projectRoot } from '../src/project-root';
import { bundleWorkflows } from '../src/worker';
import type { planningWorkflow } from '../src/workflows';

const ROOT = projectRoot();
const EventType = temporal.api.enums.v1.EventType;

interface Flags {
  plans: number;
  concurrency: number;
  warmup: number;
  replanPlans: number;
  /** How often the sides are measured, alternating which of each pair goes first. */
  rounds: number;
  out: string;
  /** The dev server's persistence: a SQLite file in the temporary folder (default) or in memory. */
  db: 'file' | 'memory';
  /** A JSON file of worker memory figures measured before a change, copied under `memory_before`. */
  before?: string;
  /** A folder for the worker processes' CPU profiles (node --cpu-prof), one per process. */
  profile?: string;
  /** The old-generation limit of every worker process (both sides alike), in MB; unset: Node's default for the machine. */
  workerHeapMb?: number;
  /** A folder for the worker processes' GC traces (both sides alike); each side then records its heap limits. */
  gcTrace?: string;
  /**
   * Control experiments on the raw side only, to tell what moves a worker's peak RSS: the raw worker holds this many
   * MB more live data from its start (`--raw-extra-live-mb`), or each raw activity allocates about this many KB of
   * short-lived objects (`--raw-extra-garbage-kb`), or spends this many ms of CPU before it returns, allocating
   * nothing (`--raw-extra-cpu-ms`); or the raw workflow runs this many no-op local activities before its chains
   * (`--raw-extra-local-activities`); or the raw workflow publishes what a planner run publishes for operators, a patch
   * marker, the memo and search attributes (`--raw-extra-visibility`); or the raw worker runs with the node options of the planner's bin
   * (`--raw-with-planner-node-options`: like for like, since a plain worker runs with Node's defaults). Not for the
   * figures the targets are read from.
   */
  rawExtraLiveMb?: number;
  rawExtraGarbageKb?: number;
  rawExtraCpuMs?: number;
  rawExtraLocalActivities?: number;
  rawExtraVisibility?: boolean;
  rawWithPlannerNodeOptions?: boolean;
  /**
   * An experiment on the planner's side: node options for its worker process after the bin's, e.g.
   * `--max-semi-space-size=16` (Node's default young generation; the last value wins) (`--planner-node-options
   * "<options>"`). Not for the figures the targets are read from.
   */
  plannerNodeOptions?: string[];
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = {
    plans: 200,
    concurrency: 20,
    warmup: 20,
    replanPlans: 20,
    rounds: 1,
    out: path.join(__dirname, 'results.json'),
    db: 'file',
  };
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
    else if (name === '--rounds') flags.rounds = Math.max(1, int());
    else if (name === '--out') flags.out = path.resolve(value());
    else if (name === '--before') flags.before = path.resolve(value());
    else if (name === '--profile') flags.profile = path.resolve(value());
    else if (name === '--gc-trace') flags.gcTrace = path.resolve(value());
    else if (name === '--worker-heap-mb') flags.workerHeapMb = Math.max(16, int());
    else if (name === '--raw-extra-live-mb') flags.rawExtraLiveMb = int();
    else if (name === '--raw-extra-garbage-kb') flags.rawExtraGarbageKb = int();
    else if (name === '--raw-extra-cpu-ms') flags.rawExtraCpuMs = Number(value());
    else if (name === '--raw-extra-local-activities') flags.rawExtraLocalActivities = int();
    else if (name === '--raw-extra-visibility') flags.rawExtraVisibility = true;
    else if (name === '--raw-with-planner-node-options') flags.rawWithPlannerNodeOptions = true;
    else if (name === '--planner-node-options') {
      flags.plannerNodeOptions = value().split(/\s+/).filter(Boolean);
      if (!flags.plannerNodeOptions.every((o) => o.startsWith('--')))
        throw new Error('--planner-node-options takes node options, each starting with --');
    } else if (name === '--db') {
      const v = value();
      if (v !== 'file' && v !== 'memory') throw new Error('--db takes file or memory');
      flags.db = v;
    } else if (name === '--help' || name === '-h') {
      console.log(
        'npm run bench -- [--plans 200] [--concurrency 20] [--warmup 20] [--replan-plans 20] [--rounds 1] [--db file|memory] [--out bench/results.json] [--before bench/memory-before.json] [--profile <dir>] [--gc-trace <dir>] [--worker-heap-mb N] [--raw-extra-live-mb N] [--raw-extra-garbage-kb N] [--raw-extra-cpu-ms N] [--raw-extra-local-activities N] [--raw-extra-visibility] [--raw-with-planner-node-options] [--planner-node-options "<options>"]',
      );
      process.exit(0);
    } else throw new Error(`unknown flag ${name} (try --help)`);
  }
  return flags;
}

// ---- the worker process ----------------------------------------------------------------------------------------

interface WorkerProcess {
  child: ChildProcess;
  /** Peak and current resident set size of the worker process, in MB (Linux /proc). */
  rss(): { peak_mb: number; current_mb: number };
  /** Where the worker's memory is, as it reports it (bench-worker.ts's `memory` line on SIGUSR2). */
  memory(): Promise<Record<string, number>>;
  /** Stops the process; resolves once it has exited and its output file (if any) is complete. */
  stop(): Promise<void>;
}

/** The node options that size a worker's heap, recorded with the figures (not the profiling and tracing ones). */
function isHeapOption(option: string): boolean {
  return option.startsWith('--max-old-space-size') || option.startsWith('--max-semi-space-size');
}

/**
 * The worker processes run compiled JavaScript, as a deployment runs dist/ (`planner worker` from the package), not
 * TypeScript through tsx: tsx's loader hooks, transformed sources and source maps cost each process memory and CPU
 * in proportion to the modules it loads (about 100 MB of the planner worker's peak RSS in one run). Compiled into
 * node_modules/.cache so the worker's modules resolve the project's packages. Returns the worker script's path.
 */
function compileWorker(): string {
  const out = path.join(ROOT, 'node_modules', '.cache', 'durable-planner-bench');
  rmSync(out, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.bench.json'), '--outDir', out],
    { stdio: 'inherit' },
  );
  return path.join(out, 'bench', 'bench-worker.js');
}

async function spawnWorker(
  script: string,
  env: NodeJS.ProcessEnv,
  children: Set<ChildProcess>,
  nodeOptions: readonly string[],
  outputFile?: string,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...nodeOptions, script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const output = outputFile ? child.stdout!.pipe(createWriteStream(outputFile)) : undefined;
  const outputWritten = output
    ? new Promise<void>((resolve) => output.once('close', () => resolve()))
    : Promise.resolve();
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const lines: string[] = [];
  let partial = '';
  child.stdout!.on('data', (c: Buffer) => {
    const parts = (partial + c.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => lines.includes('ready') && (clearInterval(poll), resolve()), 50);
    child.once(
      'exit',
      (code) => (clearInterval(poll), reject(new Error(`bench worker exited (${code}) before ready: ${stderr}`))),
    );
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
    async memory() {
      const seen = lines.length;
      child.kill('SIGUSR2');
      for (let waited = 0; waited < 5000; waited += 50) {
        const line = lines.slice(seen).find((l) => l.startsWith('memory '));
        if (line) return JSON.parse(line.slice('memory '.length)) as Record<string, number>;
        await new Promise((r) => setTimeout(r, 50));
      }
      return {};
    },
    async stop() {
      if (!exited(child)) {
        const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await done;
        clearTimeout(timer);
        children.delete(child);
      }
      await outputWritten;
    },
  };
}

// ---- measuring -----------------------------------------------------------------------------------------------

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
  /** Encoded bytes per event type: where the history's size is. */
  eventTypeBytes: Record<string, number>;
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
    eventTypeBytes: {},
    activities: {},
    workflowTasks: 0,
    workflowTaskMs: 0,
  };
  const scheduled = new Map<string, { type: string; at: number }>();
  const wftScheduled = new Map<string, number>();
  for (const e of events) {
    const type = String(EventType[e.eventType ?? 0] ?? e.eventType).replace(/^EVENT_TYPE_/, '');
    facts.eventTypes[type] = (facts.eventTypes[type] ?? 0) + 1;
    facts.eventTypeBytes[type] =
      (facts.eventTypeBytes[type] ?? 0) + temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes) {
      scheduled.set(id, {
        type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?',
        at: ms(e.eventTime),
      });
    }
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
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

interface Measured<R> {
  runs: Run<R>[];
  seconds: number;
  rss: { peak_mb: number; current_mb: number };
  memory: Record<string, number>;
  /** The machine's 1-minute load average before and after the measured runs (the machine is shared). */
  load: { before: number; after: number };
  /** CPU time the worker process and the dev server spent during the measured runs: unlike wall time, other load hardly moves it. */
  cpu_ms: { worker: number; server: number };
  /** With `--gc-trace`: the old-generation limits V8 set in the worker's main thread over its life. */
  heap_limits?: HeapLimit[];
}

/** A side's CPU time per plan, of its worker process and of the dev server (measured over its runs only). */
function cpuPerPlan(m: Measured<unknown>): { worker: number; server: number } {
  return { worker: round(m.cpu_ms.worker / m.runs.length, 1), server: round(m.cpu_ms.server / m.runs.length, 1) };
}

/** A process's CPU time so far (user + system), from /proc; NaN where there is none. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

function sortedLatencies(m: Measured<unknown>): number[] {
  return m.runs.map((r) => r.latency_ms).sort((a, b) => a - b);
}

/** One side's rounds as one measurement: every run, the summed time and CPU, the highest peak RSS, the last memory report. */
function pooled<R>(rounds: readonly Measured<R>[]): Measured<R> {
  const last = rounds.at(-1)!;
  return {
    runs: rounds.flatMap((m) => m.runs),
    seconds: rounds.reduce((sum, m) => sum + m.seconds, 0),
    rss: { peak_mb: Math.max(...rounds.map((m) => m.rss.peak_mb)), current_mb: last.rss.current_mb },
    memory: last.memory,
    load: { before: rounds[0]!.load.before, after: last.load.after },
    cpu_ms: {
      worker: rounds.reduce((sum, m) => sum + m.cpu_ms.worker, 0),
      server: rounds.reduce((sum, m) => sum + m.cpu_ms.server, 0),
    },
  };
}

/** The share of completed planner runs whose steps cost within the p90 forecast made before approval (issue 37). */
function costWithinP90(sides: readonly Measured<PlanningOutcome>[]) {
  const forecast = sides
    .flatMap((m) => m.runs.map((r) => r.result.cost_within_p90))
    .filter((w) => typeof w === 'boolean');
  const value = forecast.length === 0 ? null : round(forecast.filter(Boolean).length / forecast.length, 3);
  return {
    target: '>= 0.9 of completed planner runs within the p90 cost forecast',
    value,
    met: value !== null && value >= 0.9,
  };
}

function summarize(name: string, m: Measured<unknown>, facts: HistoryFacts[]) {
  const { runs, seconds, rss } = m;
  const lat = sortedLatencies(m);
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
  const eventTypeBytes: Record<string, number> = {};
  for (const f of facts)
    for (const [t, n] of Object.entries(f.eventTypeBytes)) eventTypeBytes[t] = (eventTypeBytes[t] ?? 0) + n;
  for (const t of Object.keys(eventTypeBytes)) eventTypeBytes[t] = Math.round(eventTypeBytes[t]! / facts.length);
  return {
    name,
    plans: runs.length,
    seconds: round(seconds, 2),
    plans_per_s: round(runs.length / seconds, 2),
    latency_ms: {
      p50: round(percentile(lat, 50), 1),
      p95: round(percentile(lat, 95), 1),
      mean: round(mean(lat), 1),
      max: round(lat.at(-1) ?? NaN, 1),
    },
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
    event_type_bytes_per_plan: eventTypeBytes,
    cpu_ms_per_plan: cpuPerPlan(m),
    worker_rss_mb: rss,
    worker_memory: m.memory,
    load_average: m.load,
  };
}

// ---- the bench -------------------------------------------------------------------------------------------------

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  const commit = measuredCommit(); // the code compiled and bundled now, not whatever is checked out when the run ends
  const rawControl =
    flags.rawExtraLiveMb ||
    flags.rawExtraGarbageKb ||
    flags.rawExtraCpuMs ||
    flags.rawExtraLocalActivities ||
    flags.rawExtraVisibility
      ? {
          extra_live_mb: flags.rawExtraLiveMb ?? 0,
          extra_garbage_kb_per_activity: flags.rawExtraGarbageKb ?? 0,
          extra_cpu_ms_per_activity: flags.rawExtraCpuMs ?? 0,
          extra_local_activities_per_plan: flags.rawExtraLocalActivities ?? 0,
          visibility_like_the_planner: flags.rawExtraVisibility ?? false,
        }
      : undefined;
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
    const loadAtStart = os.loadavg().map((l) => round(l, 2));
    // The bin's options are read once, when the run starts: every planner worker of the run gets the same.
    const binNodeOptions = plannerNodeOptions();
    const plannerSideOptions = [...binNodeOptions, ...(flags.plannerNodeOptions ?? [])];
    log(
      `bench: ${flags.plans} plans per side, ${flags.concurrency} concurrent, ${flags.warmup} warm-up, ${flags.replanPlans} re-plan plans; server db ${flags.db}; ${os.cpus().length} cores; worker heap ${flags.workerHeapMb ? `${flags.workerHeapMb} MB` : "Node's default"}; planner worker node options ${plannerSideOptions.join(' ') || 'none'} (raw: ${flags.rawWithPlannerNodeOptions ? "the bin's" : 'none'})${rawControl ? `; control: raw worker holds ${rawControl.extra_live_mb} MB more, allocates ${rawControl.extra_garbage_kb_per_activity} KB and spends ${rawControl.extra_cpu_ms_per_activity} ms more per activity, runs ${rawControl.extra_local_activities_per_plan} local activities per plan${rawControl.visibility_like_the_planner ? ', publishes memo and search attributes as the planner does' : ''}` : ''}`,
    );
    server = await startDevServer({
      binaries: loadConfig(),
      ...(flags.db === 'memory' ? {} : { dbFile: path.join(dir, 'temporal.db') }),
      headless: true,
      logFile: path.join(dir, 'server.log'),
    });
    const bundles = { planner: path.join(dir, 'planner-bundle.js'), baseline: path.join(dir, 'baseline-bundle.js') };
    writeFileSync(bundles.planner, (await bundleWorkflows()).code);
    writeFileSync(bundles.baseline, (await bundleWorkflows(require.resolve('./baseline-workflow'), {})).code);
    const workerScript = compileWorker();
    // The same for both sides: only what was asked for (a CPU profile, a heap limit); then each side's own: the
    // planner's worker runs with the node options of the `planner` bin, as `planner worker` does, and the raw worker with
    // Node's defaults, as a plain Temporal worker does (or, for the like-for-like control, with the planner's).
    const workerNodeOptions = [
      ...(flags.profile ? ['--cpu-prof', '--cpu-prof-dir', flags.profile] : []),
      ...(flags.workerHeapMb ? [`--max-old-space-size=${flags.workerHeapMb}`] : []),
      ...(flags.gcTrace ? ['--trace-gc-verbose'] : []),
    ];
    const nodeOptions = {
      planner: [...workerNodeOptions, ...plannerSideOptions],
      baseline: [...workerNodeOptions, ...(flags.rawWithPlannerNodeOptions ? binNodeOptions : [])],
    };
    if (flags.gcTrace) mkdirSync(flags.gcTrace, { recursive: true });
    client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const c = client;
    const workerEnv = (mode: 'baseline' | 'planner', taskQueue: string, tools: ToolQueues) => ({
      BENCH_MODE: mode,
      BENCH_TOOLS: tools,
      BENCH_TASK_QUEUE: taskQueue,
      BENCH_BUNDLE: bundles[mode],
      BENCH_STORE_DIR: path.join(dir, 'store'),
      TEMPORAL_ADDRESS: server!.address,
      ...(mode === 'baseline' && rawControl
        ? {
            BENCH_RAW_EXTRA_LIVE_MB: String(rawControl.extra_live_mb),
            BENCH_RAW_EXTRA_GARBAGE_KB: String(rawControl.extra_garbage_kb_per_activity),
            BENCH_RAW_EXTRA_CPU_MS: String(rawControl.extra_cpu_ms_per_activity),
            BENCH_RAW_LOCAL_ACTIVITIES: String(rawControl.extra_local_activities_per_plan),
          }
        : {}),
    });
    const branches = BENCH_BRANCHES.map((b) => [...b]);
    const load1 = () => round(os.loadavg()[0]!, 2);

    /** One side: a fresh worker process, warm-up runs, the measured runs, then its peak RSS and memory report. */
    async function measure<R>(
      worker: { mode: 'baseline' | 'planner'; tools: ToolQueues; taskQueue: string },
      start: (tag: string) => (i: number) => Promise<WorkflowHandle>,
      count: number,
      after?: (w: WorkerProcess) => Promise<Measured<unknown>>,
    ): Promise<{ measured: Measured<R>; extra?: Measured<unknown> }> {
      const traceFile = flags.gcTrace ? path.join(flags.gcTrace, `${worker.taskQueue}-${Date.now()}.log`) : undefined;
      const w = await spawnWorker(
        workerScript,
        workerEnv(worker.mode, worker.taskQueue, worker.tools),
        children,
        nodeOptions[worker.mode],
        traceFile,
      );
      log(`${worker.mode} worker (tools: ${worker.tools}) ready, RSS ${w.rss().current_mb} MB; warming up …`);
      await runMany(flags.warmup, flags.concurrency, start('warmup'));
      const before = load1();
      const cpuBefore = { worker: cpuMsOf(w.child.pid), server: cpuMsOf(server!.pid) };
      const { runs, seconds } = await runMany<R>(count, flags.concurrency, start('run'));
      const cpu_ms = {
        worker: cpuMsOf(w.child.pid) - cpuBefore.worker,
        server: cpuMsOf(server!.pid) - cpuBefore.server,
      };
      const measured: Measured<R> = {
        runs,
        seconds,
        rss: w.rss(),
        memory: await w.memory(),
        load: { before, after: load1() },
        cpu_ms,
      };
      const extra = after ? await after(w) : undefined;
      await w.stop();
      log(
        `${worker.mode} (tools: ${worker.tools}): ${count} runs in ${seconds.toFixed(1)} s, worker RSS peak ${measured.rss.peak_mb} MB, load ${before} → ${measured.load.after}`,
      );
      if (traceFile) {
        measured.heap_limits = mainThreadHeapLimits(readFileSync(traceFile, 'utf8'));
        log(`  main-thread heap limits: ${describeHeapLimits(measured.heap_limits)}`);
      }
      return { measured, ...(extra ? { extra } : {}) };
    }
    const startBaseline =
      (taskQueue: string, activityQueue: string | undefined, round: number) => (tag: string) => (i: number) =>
        c.workflow.start('baselineWorkflow', {
          taskQueue,
          workflowId: `${taskQueue}-${tag}-${round}-${i}`,
          args: [
            {
              branches,
              ...(activityQueue ? { activityQueue } : {}),
              ...(flags.rawExtraLocalActivities ? { localActivities: flags.rawExtraLocalActivities } : {}),
              ...(flags.rawExtraVisibility ? { visibility: true } : {}),
            },
          ],
        });
    // Started as `planner start` and PlannerClient start runs: the goal in the memo, the Web UI's summary and details.
    const startPlanner = (taskQueue: string, goal: string, round: number) => (tag: string) => (i: number) =>
      c.workflow.start<typeof planningWorkflow>(
        'planningWorkflow',
        planningStartOptions(
          { request: { goal, tool_catalog: 'bench', planner: 'ranking' } },
          { taskQueue, workflowId: `${taskQueue}-${tag}-${round}-${i}` },
        ),
      );
    const notDone = (runs: Run<PlanningOutcome>[], version: number) =>
      runs.filter(
        (r) =>
          r.result.stage !== 'COMPLETED' ||
          r.result.steps.length !== 10 ||
          r.result.steps.some((s) => s.status !== 'COMPLETED') ||
          r.result.plan_version !== version,
      );
    const check = (what: string, runs: Run<PlanningOutcome>[], version: number) => {
      if (notDone(runs, version).length > 0)
        throw new Error(`${notDone(runs, version).length} ${what} runs did not complete 10 steps on plan v${version}`);
    };
    const checkBaseline = (runs: Run<number>[]) => {
      if (runs.some((r) => r.result !== 10)) throw new Error('a baseline run did not run 10 activities');
    };

    // Each topology: the raw baseline and the planner back to back (the machine is shared; load drifts), the raw
    // side first in odd rounds and second in even ones.
    const sides = {
      raw: [] as Measured<number>[],
      planner: [] as Measured<PlanningOutcome>[],
      rawSplit: [] as Measured<number>[],
      split: [] as Measured<PlanningOutcome>[],
    };
    let replan: Measured<unknown> | undefined;
    for (let round = 0; round < flags.rounds; round++) {
      log(`round ${round + 1} of ${flags.rounds}`);
      const rawFirst = round % 2 === 0;
      const measureRaw = async () => {
        const raw = (
          await measure<number>(
            { mode: 'baseline', tools: 'planner', taskQueue: 'raw' },
            startBaseline('raw', undefined, round),
            flags.plans,
          )
        ).measured;
        checkBaseline(raw.runs);
        sides.raw.push(raw);
      };
      const measurePlanner = async () => {
        const { measured: planner, extra } = await measure<PlanningOutcome>(
          { mode: 'planner', tools: 'planner', taskQueue: 'planner' },
          startPlanner('planner', BENCH_GOAL, round),
          flags.plans,
          round > 0
            ? undefined
            : async (w) => {
                const before = load1();
                const cpuBefore = { worker: cpuMsOf(w.child.pid), server: cpuMsOf(server!.pid) };
                const r = await runMany<PlanningOutcome>(
                  flags.replanPlans,
                  flags.concurrency,
                  startPlanner('planner', BENCH_REPLAN_GOAL, round)('replan'),
                );
                const cpu_ms = {
                  worker: cpuMsOf(w.child.pid) - cpuBefore.worker,
                  server: cpuMsOf(server!.pid) - cpuBefore.server,
                };
                return { ...r, rss: w.rss(), memory: await w.memory(), load: { before, after: load1() }, cpu_ms };
              },
        );
        check('planner', planner.runs, 1);
        if (extra) {
          check('re-plan', extra.runs as Run<PlanningOutcome>[], 2);
          replan = extra;
        }
        sides.planner.push(planner);
      };
      const measureRawSplit = async () => {
        const rawSplit = (
          await measure<number>(
            { mode: 'baseline', tools: 'split', taskQueue: 'raw-split' },
            startBaseline('raw-split', 'raw-split-tools', round),
            flags.plans,
          )
        ).measured;
        checkBaseline(rawSplit.runs);
        sides.rawSplit.push(rawSplit);
      };
      const measureSplit = async () => {
        const split = (
          await measure<PlanningOutcome>(
            { mode: 'planner', tools: 'split', taskQueue: 'planner-split' },
            startPlanner('planner-split', BENCH_GOAL, round),
            flags.plans,
          )
        ).measured;
        check('split-pool planner', split.runs, 1);
        sides.split.push(split);
      };
      for (const step of rawFirst
        ? [measureRaw, measurePlanner, measureRawSplit, measureSplit]
        : [measurePlanner, measureRaw, measureSplit, measureRawSplit])
        await step();
    }
    const perRound = sides.raw.map((raw, i) => {
      const ratioIn = (side: Measured<unknown>, base: Measured<unknown>) => ({
        latency_p50: round(percentile(sortedLatencies(side), 50) / percentile(sortedLatencies(base), 50)),
        throughput: round(side.runs.length / side.seconds / (base.runs.length / base.seconds)),
        // Per round as well as the highest: V8 sizes a heap by its allocation at the time of a collection, so one
        // process's peak differs from the next one's under the same load (bench/README.md, "Worker memory").
        worker_rss_peak: round(side.rss.peak_mb / base.rss.peak_mb),
      });
      const rawSplit = sides.rawSplit[i]!;
      const [planner, split] = [sides.planner[i]!, sides.split[i]!];
      return {
        round: i + 1,
        raw_first: i % 2 === 0,
        ratio: ratioIn(planner, raw),
        ratio_split: ratioIn(split, rawSplit),
        rss_peak_mb: {
          raw: raw.rss.peak_mb,
          planner: planner.rss.peak_mb,
          raw_split: rawSplit.rss.peak_mb,
          split: split.rss.peak_mb,
        },
        // Per round too: the spread of a side's CPU per plan from round to round is the noise a change's gain must clear.
        cpu_ms_per_plan: {
          raw: cpuPerPlan(raw),
          planner: cpuPerPlan(planner),
          raw_split: cpuPerPlan(rawSplit),
          split: cpuPerPlan(split),
        },
        ...(flags.gcTrace
          ? {
              heap_limits: {
                raw: raw.heap_limits,
                planner: planner.heap_limits,
                raw_split: rawSplit.heap_limits,
                split: split.heap_limits,
              },
            }
          : {}),
      };
    });
    const raw = pooled(sides.raw);
    const planner = pooled(sides.planner);
    const rawSplit = pooled(sides.rawSplit);
    const split = pooled(sides.split);

    log('reading histories …');
    const side = async (name: string, m: Measured<unknown>) =>
      summarize(
        name,
        m,
        await histories(
          c,
          m.runs.map((r) => r.id),
        ),
      );
    const b = await side('raw Temporal, activities on its queue', raw);
    const p = await side('planner, default (one queue)', planner);
    // `--replan-plans 0` measures no re-plan: nothing to report for it, and no verdict on its target.
    const rp = replan?.runs.length ? await side('planner, one re-plan', replan) : undefined;
    const bs = await side('raw Temporal, activities on a 2nd queue', rawSplit);
    const ps = await side('planner, split pools', split);

    const ratioOf = (s: typeof p, base: typeof b) => ({
      latency_p50: round(s.latency_ms.p50 / base.latency_ms.p50),
      latency_p95: round(s.latency_ms.p95 / base.latency_ms.p95),
      throughput: round(s.plans_per_s / base.plans_per_s),
      history_events: round(s.history.events_per_plan / base.history.events_per_plan),
      history_bytes: round(s.history.bytes_per_plan / base.history.bytes_per_plan),
      worker_rss_peak: round(s.worker_rss_mb.peak_mb / base.worker_rss_mb.peak_mb),
      cpu_per_plan: round(
        (s.cpu_ms_per_plan.worker + s.cpu_ms_per_plan.server) /
          (base.cpu_ms_per_plan.worker + base.cpu_ms_per_plan.server),
      ),
      activities: round(s.activities_per_plan / base.activities_per_plan),
    });
    /** The default deployment (tools on the planner's queue) against a raw workflow with activities on its own queue. */
    const ratio = ratioOf(p, b);
    /** Split pools (tools on a second queue) against a raw workflow calling activities on a second queue. */
    const ratio_split = ratioOf(ps, bs);
    const targets = {
      latency_p50: {
        target: '<= 1.2x raw (default deployment)',
        value: ratio.latency_p50,
        met: ratio.latency_p50 <= 1.2,
      },
      throughput: {
        target: '>= 0.85x raw (default deployment)',
        value: ratio.throughput,
        met: ratio.throughput >= 0.85,
      },
      worker_rss_peak: {
        target: '<= 1.2x raw worker (default deployment, same load)',
        value: ratio.worker_rss_peak,
        met: ratio.worker_rss_peak <= 1.2,
      },
      cost_within_p90: costWithinP90([...sides.planner, ...sides.split]),
      ...(rp
        ? {
            replan_history_bytes: {
              target: '< 200 KB per plan (10 steps, one re-plan)',
              value: rp.history.max_bytes,
              met: rp.history.max_bytes < 200 * 1024,
            },
          }
        : {}),
    };
    const cpu = os.cpus();
    const results = {
      date: new Date().toISOString(),
      commit,
      machine: {
        cores: cpu.length,
        cpu: cpu[0]?.model ?? 'unknown',
        memory_gb: round(os.totalmem() / 2 ** 30, 1),
        platform: `${os.platform()} ${os.release()} ${os.arch()}`,
        node: process.version,
        temporal_sdk: '1.24.0',
        temporal_server: 'temporal CLI dev server (SQLite file), same machine',
        load_average_at_start: loadAtStart,
      },
      config: {
        plans: flags.plans,
        concurrency: flags.concurrency,
        warmup: flags.warmup,
        replan_plans: flags.replanPlans,
        rounds: flags.rounds,
        server_db: flags.db === 'file' ? 'SQLite file in a temporary folder' : 'in memory',
        shape: 'two parallel chains of 5 no-op steps (10 steps)',
        planner_worker:
          'createLocalWorkers with the default tool packs (waste, workspace) and the bench pack, deterministic planner',
        worker_node_options: {
          planner: nodeOptions.planner.filter(isHeapOption),
          raw: nodeOptions.baseline.filter(isHeapOption),
        },
        ...(rawControl ? { raw_control: rawControl } : {}),
        ...(flags.plannerNodeOptions ? { planner_node_options: flags.plannerNodeOptions } : {}),
        order:
          'per round: raw, planner (+ re-plan in round 1), raw split, planner split; reversed within each pair in even rounds; each side a fresh worker process',
      },
      ratio,
      ratio_split,
      rounds: perRound,
      targets,
      raw: b,
      planner: p,
      replan: rp ?? null,
      raw_split: bs,
      planner_split: ps,
      where_the_time_goes: explain(b, p),
      ...(flags.before ? { memory_before: memoryBefore(flags.before) } : {}),
    };
    writeFileSync(flags.out, `${JSON.stringify(results, null, 2)}\n`);
    const svg = flags.out.replace(/\.json$/, '') + '.svg';
    writeFileSync(svg, renderChart(results));

    const line = (s: ReturnType<typeof summarize>) =>
      `${s.name.padEnd(40)} ${s.plans_per_s.toFixed(2).padStart(7)} plans/s  p50 ${s.latency_ms.p50.toFixed(0).padStart(5)} ms  p95 ${s.latency_ms.p95.toFixed(0).padStart(5)} ms  ` +
      `${s.history.events_per_plan.toFixed(0).padStart(4)} events  ${(s.history.bytes_per_plan / 1024).toFixed(1).padStart(6)} KB/plan (max ${(s.history.max_bytes / 1024).toFixed(1)})  ` +
      `RSS peak ${s.worker_rss_mb.peak_mb} MB (heap ${s.worker_memory.heap_used_mb ?? '?'} MB, ${s.worker_memory.cached_workflows ?? '?'} cached workflows)`;
    log('');
    for (const s of rp ? [b, p, rp, bs, ps] : [b, p, bs, ps]) log(line(s));
    for (const r of perRound)
      log(
        `round ${r.round} (${r.raw_first ? 'raw first' : 'planner first'}): default p50 ${r.ratio.latency_p50}x, throughput ${r.ratio.throughput}x, RSS peak ${r.ratio.worker_rss_peak}x; split p50 ${r.ratio_split.latency_p50}x, throughput ${r.ratio_split.throughput}x, RSS peak ${r.ratio_split.worker_rss_peak}x`,
      );
    const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
    log(
      `default deployment / raw: latency p50 ${ratio.latency_p50}x (<= 1.2: ${verdict(targets.latency_p50.met)}), ` +
        `throughput ${ratio.throughput}x (>= 0.85: ${verdict(targets.throughput.met)}), worker RSS peak ${ratio.worker_rss_peak}x (<= 1.2: ${verdict(targets.worker_rss_peak.met)}), history ${ratio.history_bytes}x bytes, CPU per plan ${ratio.cpu_per_plan}x`,
    );
    log(
      `split pools / raw split: latency p50 ${ratio_split.latency_p50}x, throughput ${ratio_split.throughput}x, worker RSS peak ${ratio_split.worker_rss_peak}x, CPU per plan ${ratio_split.cpu_per_plan}x`,
    );
    if (rp && targets.replan_history_bytes)
      log(
        `re-plan history max ${(rp.history.max_bytes / 1024).toFixed(1)} KB (< 200 KB: ${verdict(targets.replan_history_bytes.met)})`,
      );
    else log('re-plan: not measured (--replan-plans 0)');
    for (const note of results.where_the_time_goes.notes) log(`  - ${note}`);
    log(`wrote ${path.relative(process.cwd(), flags.out)} and ${path.relative(process.cwd(), svg)}`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

/** The commit measured, marked `-dirty` when tracked files differ from it (a measurement-only change). */
function measuredCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '-dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** Worker memory figures measured before a change (`--before`, e.g. bench/memory-before.json), kept next to today's. */
function memoryBefore(file: string): Record<string, unknown> {
  return { file: path.relative(ROOT, file), ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) };
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
          'its planning work (analysis, plan, critique) runs as local activities inside workflow tasks; the gatekeeper decides in the workflow and the routes come with the plan'
        : `the planner runs ${p.activities_per_plan} activities per plan against the baseline's ${b.activities_per_plan}: ` +
          `${planning.map(([t, a]) => `${t} ×${a.per_plan}`).join(', ')} before the ${steps.per_plan} steps, one after another`,
      `planning activities take ${planningMs.toFixed(0)} ms per plan scheduled-to-closed in sum; a step takes ${steps.mean_ms} ms vs ${baseSteps.mean_ms} ms for a baseline activity`,
      `CPU per plan: worker ${p.cpu_ms_per_plan.worker} ms + dev server ${p.cpu_ms_per_plan.server} ms vs ${b.cpu_ms_per_plan.worker} + ${b.cpu_ms_per_plan.server} ms for the baseline (load-independent, unlike wall time)`,
      `${p.workflow_tasks_per_plan} workflow tasks per plan (${p.workflow_task_ms_per_plan} ms summed) vs ${b.workflow_tasks_per_plan} (${b.workflow_task_ms_per_plan} ms) for the baseline`,
      `${p.event_types_per_plan.MARKER_RECORDED ?? 0} markers per plan (local activities for the deterministic planning work, and one patch marker)`,
      `${p.event_types_per_plan.UPSERT_WORKFLOW_SEARCH_ATTRIBUTES ?? 0} search-attribute upserts and ${p.event_types_per_plan.WORKFLOW_PROPERTIES_MODIFIED ?? 0} memo updates per plan (stage, version, budget visibility)`,
    ],
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
