/**
 * The bench's worker process (spawned by bench/bench.ts, so its RSS is its own; compiled first with
 * tsconfig.bench.json, so it runs JavaScript as a deployment does). Each mode loads its own prebuilt
 * bundle (BENCH_BUNDLE: the planner's workflows, or only the baseline's) and serves BENCH_TASK_QUEUE; BENCH_TOOLS
 * picks the topology:
 *   - `planner`: everything on BENCH_TASK_QUEUE, one worker (the default deployment);
 *   - `split`: the tools on `<queue>-tools` (and the default packs on their own queues), served by tool workers in
 *     this process.
 * BENCH_MODE=planner runs what `planner worker` runs (createLocalWorkers with the default tool packs: waste,
 * workspace, MCP from planner.config.json) plus the bench pack, with the deterministic planner. BENCH_MODE=baseline
 * runs plain Temporal workers: the baseline workflow, and its no-op activity on the workflow's queue (`planner`) or
 * on a worker of `<queue>-tools` (`split`).
 * BENCH_RAW_EXTRA_LIVE_MB, BENCH_RAW_EXTRA_GARBAGE_KB, BENCH_RAW_EXTRA_CPU_MS and BENCH_RAW_LOCAL_ACTIVITIES are the
 * bench's control experiments on the raw side (bench.ts's `--raw-extra-*` options).
 * Env: TEMPORAL_ADDRESS, BENCH_BUNDLE, BENCH_TASK_QUEUE, BENCH_STORE_DIR. Prints "ready" once polling, and on SIGUSR2 a line
 * `memory {json}`: where its memory is (process.memoryUsage, V8 heap and its spaces, cached workflows).
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { ToolQueues } from '../src/config';
import type { BaselineActivities } from './baseline-workflow';

const MB = 2 ** 20;

/** What one of smallObjects' objects costs on the heap with its string and array (measured with --trace-gc). */
const SMALL_OBJECT_BYTES = 155;

/** About `kb` KB of small objects, the shape most of a worker's own data has. */
function smallObjects(kb: number): unknown[] {
  const objects: unknown[] = [];
  for (let i = 0; i < (kb * 1024) / SMALL_OBJECT_BYTES; i++) objects.push({ a: i, b: `x${i}`, c: [i] });
  return objects;
}

/** The raw side's extra live data under `--raw-extra-live-mb`, held for the process's life. */
let heldForControl: unknown[] = [];

function memoryReport(workers: readonly Worker[]): Record<string, number> {
  const m = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  const mb = (n: number) => Math.round((n / MB) * 10) / 10;
  return {
    rss_mb: mb(m.rss),
    heap_used_mb: mb(m.heapUsed),
    heap_total_mb: mb(m.heapTotal),
    external_mb: mb(m.external),
    array_buffers_mb: mb(m.arrayBuffers),
    malloced_mb: mb(heap.malloced_memory),
    native_contexts: heap.number_of_native_contexts,
    // The main thread's heap by space: young objects, old ones, and large ones (such as the workflow bundle's text).
    ...Object.fromEntries(
      v8
        .getHeapSpaceStatistics()
        .filter((s) => ['new_space', 'old_space', 'large_object_space'].includes(s.space_name))
        .map((s) => [`${s.space_name}_mb`, mb(s.space_size)]),
    ),
    cached_workflows: workers.reduce((n, w) => n + w.getStatus().numCachedWorkflows, 0),
    ...(heldForControl.length ? { control_live_objects: heldForControl.length } : {}),
  };
}

async function main() {
  // SIGUSR2 asks for the memory report, so it must not be one of the Runtime's shutdown signals (it is by default).
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: ['SIGINT', 'SIGTERM'] });
  const mode = process.env.BENCH_MODE;
  const taskQueue = process.env.BENCH_TASK_QUEUE!;
  const toolQueues = process.env.BENCH_TOOLS as ToolQueues;
  if (toolQueues !== 'planner' && toolQueues !== 'split')
    throw new Error(`BENCH_TOOLS must be planner or split, not ${toolQueues}`);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const workflowBundle = { code: readFileSync(process.env.BENCH_BUNDLE!, 'utf8') };
  let workers: Worker[];
  if (mode === 'planner') {
    // Loaded here, not at the top: the raw side's process holds nothing of the planner, as a raw deployment would not.
    const [{ loadConfig }, { LocalContentStore }, { createBenchPack }, { createLocalWorkers, defaultToolPacks }] =
      await Promise.all([
        import('../src/config'),
        import('../src/store/content-store'),
        import('./bench-pack'),
        import('../src/worker'),
      ]);
    const config = loadConfig({ PLANNER_STORE_DIR: process.env.BENCH_STORE_DIR });
    const store = new LocalContentStore(config.storeDir);
    const packs = [createBenchPack({ taskQueue: `${taskQueue}-tools` }), ...(await defaultToolPacks(config))];
    const local = await createLocalWorkers({
      connection,
      namespace: 'default',
      packs,
      taskQueue,
      toolQueues,
      workflowBundle,
      store,
      config, // no LLM settings: the deterministic planner
    });
    workers = local.workers;
  } else if (mode === 'baseline') {
    heldForControl = smallObjects(Number(process.env.BENCH_RAW_EXTRA_LIVE_MB ?? 0) * 1024);
    const garbageKb = Number(process.env.BENCH_RAW_EXTRA_GARBAGE_KB ?? 0);
    const cpuMs = Number(process.env.BENCH_RAW_EXTRA_CPU_MS ?? 0);
    const activities: BaselineActivities = {
      async noop({ tool }) {
        if (garbageKb > 0) smallObjects(garbageKb); // dropped at once: garbage for the young generation
        // Busy, allocating next to nothing: the main thread is taken as long as this, and every other activity waits.
        if (cpuMs > 0) for (const until = performance.now() + cpuMs; performance.now() < until;);
        return [{ id: `${tool}-1` }];
      },
    };
    workers =
      toolQueues === 'planner'
        ? [await Worker.create({ connection, namespace: 'default', taskQueue, workflowBundle, activities })]
        : [
            // The workflow's worker runs its local activities, when the control asks for some.
            await Worker.create({
              connection,
              namespace: 'default',
              taskQueue,
              workflowBundle,
              ...(Number(process.env.BENCH_RAW_LOCAL_ACTIVITIES ?? 0) > 0 ? { activities } : {}),
            }),
            await Worker.create({ connection, namespace: 'default', taskQueue: `${taskQueue}-tools`, activities }),
          ];
  } else {
    throw new Error(`BENCH_MODE must be planner or baseline, not ${mode}`);
  }
  process.on('SIGUSR2', () => console.log(`memory ${JSON.stringify(memoryReport(workers))}`));
  console.log('ready');
  await Promise.all(workers.map((w) => w.run()));
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
