/**
 * The planner's workers: `npm run worker` against TEMPORAL_ADDRESS (or, in-process, for the demo and tests).
 *   - the planner worker: the workflows and the planning activities, on PLANNER_TASK_QUEUE;
 *   - one tool worker per task queue of the tool packs it serves, each running `executeStep`.
 * Production can run them as separate pools; routing sends each step to its tool's queue either way.
 * They stop cleanly on SIGINT/SIGTERM: Temporal's Runtime turns those signals into a graceful shutdown.
 */
import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, createPlanningDependencies } from './activities';
import type { PlanningDependencies } from './activities/planning';
import { createToolActivities } from './activities/tools';
import { plannerTaskQueue } from './config';
import { LocalContentStore, type ContentStore } from './store/content-store';
import { defaultStoreDir } from './store/dirs';
import { loadTemporalTarget } from './temporal-connection';
import { ToolCatalogs } from './tools/registry';
import { specsOf, type ToolImplementation, type ToolPack } from './tools/tool';
import { createMcpPacks, loadPlannerConfig } from './tools/mcp';
import { createWastePack } from './tools/waste';
import { createWorkspacePack } from './tools/workspace';

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

/** The catalogs a set of packs makes available to the planner. */
export function catalogsOf(packs: readonly ToolPack[]): ToolCatalogs {
  const catalogs = new ToolCatalogs();
  for (const pack of packs) catalogs.register(pack.catalog, specsOf(pack.tools), pack.clarifications);
  return catalogs;
}

/** One worker per task queue the tools name, each serving `executeStep` for the tools of that queue. */
export async function createToolWorkers(options: {
  connection: NativeConnection;
  namespace: string;
  tools: readonly ToolImplementation[];
  store: ContentStore;
}): Promise<Worker[]> {
  const queues = [...new Set(options.tools.map((t) => t.spec.task_queue))].sort();
  return await Promise.all(
    queues.map((taskQueue) =>
      Worker.create({
        connection: options.connection,
        namespace: options.namespace,
        taskQueue,
        activities: createToolActivities({ tools: options.tools.filter((t) => t.spec.task_queue === taskQueue), store: options.store }),
      }),
    ),
  );
}

export interface LocalWorkers {
  workers: Worker[];
  /** Runs every worker until `until` settles (or until shutdown), then stops them all. */
  runUntil<R>(until: Promise<R>): Promise<R>;
  run(): Promise<void>;
  close(): Promise<void>;
}

/** The planner worker and the tool workers of `packs` in this process, sharing one connection. */
export async function createLocalWorkers(options: {
  connection: NativeConnection;
  namespace: string;
  packs: ToolPack[];
  taskQueue?: string;
  workflowBundle?: WorkerOptions['workflowBundle'];
  planning?: PlanningDependencies;
  store?: ContentStore;
}): Promise<LocalWorkers> {
  const store = options.store ?? new LocalContentStore(defaultStoreDir());
  const planning = options.planning ?? createPlanningDependencies({ catalogs: catalogsOf(options.packs), store });
  const taskQueue = options.taskQueue ?? plannerTaskQueue();
  const tools = options.packs.flatMap((p) => p.tools);
  // Tools on the planner's own queue are served by the planner worker itself, so Temporal can hand their steps
  // straight back to it (eager activity dispatch) instead of through another queue.
  const colocated = tools.filter((t) => t.spec.task_queue === taskQueue);
  const workers = [
    await createPlannerWorker({
      ...options,
      taskQueue,
      activities: { ...createActivities(planning), ...(colocated.length ? createToolActivities({ tools: colocated, store }) : {}) },
    }),
    ...(await createToolWorkers({ ...options, tools: tools.filter((t) => !colocated.includes(t)), store })),
  ];
  const closePacks = () => Promise.all(options.packs.map((p) => p.close())).then(() => undefined);
  return {
    workers,
    async runUntil<R>(until: Promise<R>): Promise<R> {
      const runs = workers.map((w) => w.run());
      try {
        return await until;
      } finally {
        for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.allSettled(runs);
      }
    },
    async run() {
      await Promise.all(workers.map((w) => w.run()));
    },
    close: closePacks,
  };
}

/**
 * The tool packs this worker serves by default: the waste-management demo pack (PGlite, or DATABASE_URL), the
 * workspace-context tool over PLANNER_WORKSPACE_ROOT (default: the current folder), and one pack per MCP server
 * configured in planner.config.json (PLANNER_CONFIG overrides the path).
 */
export async function defaultToolPacks(): Promise<ToolPack[]> {
  const configFile = process.env.PLANNER_CONFIG;
  const mcp = await createMcpPacks(loadPlannerConfig(configFile, { required: configFile !== undefined }));
  return [
    await createWastePack({ today: new Date(), databaseUrl: process.env.DATABASE_URL }),
    createWorkspacePack(path.resolve(process.env.PLANNER_WORKSPACE_ROOT ?? process.cwd())),
    ...mcp,
  ];
}

async function main(): Promise<void> {
  const target = loadTemporalTarget();
  const connection = await NativeConnection.connect(target.connectionOptions);
  const packs = await defaultToolPacks();
  const local = await createLocalWorkers({ connection, namespace: target.namespace, packs });
  try {
    console.log(
      `Workers polling ${local.workers.map((w) => w.options.taskQueue).join(', ')} on ${target.address} (namespace ${target.namespace})`,
    );
    await local.run();
  } finally {
    await local.close();
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
