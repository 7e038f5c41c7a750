/**
 * The bench's worker process (spawned by bench/bench.ts, so its RSS is its own): BENCH_MODE=planner runs the planner
 * worker and the bench pack's tool worker (createLocalWorkers, the deterministic planner only); BENCH_MODE=baseline
 * runs one plain Temporal worker with the baseline workflow and its no-op activity. Both load the same prebuilt
 * bundle (BENCH_BUNDLE). Env: TEMPORAL_ADDRESS, BENCH_TASK_QUEUE, BENCH_STORE_DIR. Prints "ready" once polling.
 */
import { readFileSync } from 'node:fs';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createPlanningDependencies } from '../src/activities';
import { loadConfig } from '../src/config';
import { LocalContentStore } from '../src/store/content-store';
import { createBenchPack } from './bench-pack';
import { catalogsOf, createLocalWorkers } from '../src/worker';
import type { BaselineActivities } from './baseline-workflow';

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const mode = process.env.BENCH_MODE;
  const taskQueue = process.env.BENCH_TASK_QUEUE!;
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const workflowBundle = { code: readFileSync(process.env.BENCH_BUNDLE!, 'utf8') };
  let run: () => Promise<unknown>;
  if (mode === 'planner') {
    const store = new LocalContentStore(process.env.BENCH_STORE_DIR!);
    // BENCH_TOOLS=colocated serves the no-op tools from the planner's own queue (and worker), as the baseline does.
    const toolQueue = process.env.BENCH_TOOLS === 'colocated' ? taskQueue : `${taskQueue}-tools`;
    const packs = [createBenchPack({ taskQueue: toolQueue })];
    const local = await createLocalWorkers({
      connection,
      namespace: 'default',
      packs,
      taskQueue,
      workflowBundle,
      store,
      planning: createPlanningDependencies({ catalogs: catalogsOf(packs), config: loadConfig({}), store }),
    });
    run = () => local.run();
  } else if (mode === 'baseline') {
    const activities: BaselineActivities = {
      async noop({ tool }) {
        return [{ id: `${tool}-1` }];
      },
    };
    const worker = await Worker.create({ connection, namespace: 'default', taskQueue, workflowBundle, activities });
    run = () => worker.run();
  } else {
    throw new Error(`BENCH_MODE must be planner or baseline, not ${mode}`);
  }
  console.log('ready');
  await run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
