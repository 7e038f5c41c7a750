/**
 * The chaos drill's worker process (bench/chaos.ts SIGKILLs it): the planner worker (LLM planner, from OPENAI_* and
 * PLANNER_LLM_TIMEOUT_MS) and the demo pack's record-note tool worker. Env: TEMPORAL_ADDRESS, CHAOS_TASK_QUEUE,
 * CHAOS_BUNDLE, NOTES_DIR, PLANNER_STORE_DIR. Prints "ready" once polling.
 */
import { readFileSync } from 'node:fs';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createPlanningDependencies } from '../src/activities';
import { LocalContentStore } from '../src/store/content-store';
import { createDemoPack } from '../src/tools/demo';
import type { ToolPack } from '../src/tools/tool';
import { catalogsOf, createLocalWorkers } from '../src/worker';

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const taskQueue = process.env.CHAOS_TASK_QUEUE!;
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const store = new LocalContentStore(process.env.PLANNER_STORE_DIR!);
  const demo = createDemoPack({ dir: process.env.NOTES_DIR! });
  const packs: ToolPack[] = [{ ...demo, tools: demo.tools.map((t) => ({ ...t, spec: { ...t.spec, task_queue: `${taskQueue}-tools` } })) }];
  const local = await createLocalWorkers({
    connection,
    namespace: 'default',
    packs,
    taskQueue,
    workflowBundle: { code: readFileSync(process.env.CHAOS_BUNDLE!, 'utf8') },
    store,
    planning: createPlanningDependencies({ catalogs: catalogsOf(packs), store }),
  });
  console.log('ready');
  await local.run();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
