/**
 * The planner's worker: `npm run worker` (or `node dist/src/worker.js`) against TEMPORAL_ADDRESS.
 * It stops cleanly on SIGINT/SIGTERM: Temporal's Runtime turns those signals into a graceful shutdown.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities';
import { plannerTaskQueue } from './config';
import { loadTemporalTarget } from './temporal-connection';

export interface PlannerWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue?: string;
  /** A prebuilt workflow bundle (tests build one once); otherwise src/workflows is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  activities?: WorkerOptions['activities'];
}

export async function createPlannerWorker(options: PlannerWorkerOptions): Promise<Worker> {
  return await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? plannerTaskQueue(),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('./workflows') }),
    activities: options.activities ?? createActivities(),
  });
}

async function main(): Promise<void> {
  const target = loadTemporalTarget();
  const connection = await NativeConnection.connect(target.connectionOptions);
  try {
    const worker = await createPlannerWorker({ connection, namespace: target.namespace });
    console.log(`Worker polling task queue ${plannerTaskQueue()} on ${target.address} (namespace ${target.namespace})`);
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
