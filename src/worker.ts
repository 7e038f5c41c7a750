/**
 * The planner's workers, as `planner worker`, `planner dev`, the demo and the tests create them:
 *   - the planner worker: the workflows, the planning activities and the tools on PLANNER_TASK_QUEUE;
 *   - one tool worker per other task queue of the tool packs it serves, each running `executeStep`.
 * By default (PLANNER_TOOL_QUEUES=planner) every tool is on the planner's queue, so there is one worker, as in a
 * plain Temporal deployment; `split` keeps each pack on its own queue, for pools scaled apart. Routing sends each
 * step to its tool's queue either way.
 * They stop cleanly on SIGINT/SIGTERM: Temporal's Runtime turns those signals into a graceful shutdown.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, createPlanningDependencies } from './activities';
import type { PlanningDependencies } from './activities/planning';
import { createToolActivities } from './activities/tools';
import { loadConfig, type PlannerConfig, type ToolQueues } from './config';
import { PlannerError } from './domain/errors';
import { LocalContentStore, type ContentStore } from './store/content-store';
import { ToolCatalogs } from './tools/registry';
import { onQueue, withPlannerQueue } from './tools/define-tool';
import { specsOf, type ToolImplementation, type ToolPack } from './tools/tool';
import { createMcpPacks, loadPlannerConfig } from './tools/mcp';
import { createLazyWastePack } from './tools/waste';
import { createWorkspacePack } from './tools/workspace';

export interface PlannerWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** A prebuilt workflow bundle (tests build one once); otherwise src/workflows is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  activities?: WorkerOptions['activities'];
}

export async function createPlannerWorker(options: PlannerWorkerOptions): Promise<Worker> {
  return await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...plannerWorkflows(options.workflowBundle),
    activities: options.activities ?? createActivities(),
  });
}

/** The planner's workflows: a prebuilt bundle, or src/workflows (dist/workflows once compiled) bundled at start. */
export function plannerWorkflows(bundle?: WorkerOptions['workflowBundle']): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  return bundle ? { workflowBundle: bundle } : { workflowsPath: require.resolve('./workflows') };
}

/**
 * The activities of a planner worker on `taskQueue`: planning over the packs' catalogs, and the tools of the packs
 * that run on that queue. Serving those here lets Temporal hand their steps straight back to this worker (eager
 * activity dispatch) instead of through another queue. `packs` are already on their queues (see withPlannerQueue).
 */
export function plannerActivities(options: {
  packs: readonly ToolPack[];
  taskQueue: string;
  store: ContentStore;
  planning?: PlanningDependencies;
}): NonNullable<WorkerOptions['activities']> {
  const planning = options.planning ?? createPlanningDependencies({ catalogs: catalogsOf(options.packs), store: options.store });
  const colocated = options.packs.flatMap((p) => p.tools).filter((t) => t.spec.task_queue === options.taskQueue);
  const tools = colocated.length ? createToolActivities({ tools: colocated, store: options.store, workspaceRoots: planning.workspaceRoots }) : {};
  return { ...createActivities(planning), ...tools };
}

/**
 * The catalogs a set of packs makes available to the planner. A pack whose MCP server could not start (`unavailable`)
 * is marked so: runs naming it get a retryable CatalogUnavailableError, while the other catalogs serve.
 */
export function catalogsOf(packs: readonly ToolPack[]): ToolCatalogs {
  const catalogs = new ToolCatalogs();
  for (const pack of packs) {
    const down = (pack as { unavailable?: PlannerError }).unavailable;
    if (down instanceof PlannerError) catalogs.markUnavailable(pack.catalog, { message: down.message, hint: down.hint });
    else catalogs.register(pack.catalog, specsOf(pack.tools), pack.clarifications);
  }
  return catalogs;
}

/** One worker per task queue the tools name, each serving `executeStep` for the tools of that queue. */
export async function createToolWorkers(options: {
  connection: NativeConnection;
  namespace: string;
  tools: readonly ToolImplementation[];
  store: ContentStore;
  /** The folders a run's workspace_root may use (config.workspaceRoots); default: loadConfig()'s. */
  workspaceRoots?: readonly string[];
}): Promise<Worker[]> {
  const queues = [...new Set(options.tools.map((t) => t.spec.task_queue))].sort();
  return await Promise.all(
    queues.map((taskQueue) =>
      Worker.create({
        connection: options.connection,
        namespace: options.namespace,
        taskQueue,
        activities: createToolActivities({
          tools: options.tools.filter((t) => t.spec.task_queue === taskQueue),
          store: options.store,
          ...(options.workspaceRoots ? { workspaceRoots: options.workspaceRoots } : {}),
        }),
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

/**
 * The packs as a planner on `taskQueue` serves them: with `planner`, every tool on that queue; with `split`, each
 * tool on its own queue (tools defined without one still join the planner's, see withPlannerQueue).
 */
export function servedPacks(packs: readonly ToolPack[], taskQueue: string, toolQueues: ToolQueues): ToolPack[] {
  return packs.map((p) => (toolQueues === 'planner' ? onQueue(p, taskQueue) : withPlannerQueue(p, taskQueue)));
}

/** The planner worker and the tool workers of `packs` in this process, sharing one connection. */
export async function createLocalWorkers(options: {
  connection: NativeConnection;
  namespace: string;
  packs: ToolPack[];
  taskQueue?: string;
  /** Where the packs' tools are served (see servedPacks); default `split`: each tool on the queue its pack gives it. */
  toolQueues?: ToolQueues;
  workflowBundle?: WorkerOptions['workflowBundle'];
  planning?: PlanningDependencies;
  store?: ContentStore;
  /** Where the task queue, store and planning dependencies not given come from (default: loadConfig()). */
  config?: PlannerConfig;
}): Promise<LocalWorkers> {
  const config = options.config ?? loadConfig();
  const store = options.store ?? new LocalContentStore(config.storeDir);
  const taskQueue = options.taskQueue ?? config.taskQueue;
  const packs = servedPacks(options.packs, taskQueue, options.toolQueues ?? 'split');
  // The catalogs of the packs as served, so routing sends each step to the queue that serves its tool.
  const planning = options.planning ?? createPlanningDependencies({ catalogs: catalogsOf(packs), store, config });
  const others = packs.flatMap((p) => p.tools).filter((t) => t.spec.task_queue !== taskQueue);
  const workers = [
    await createPlannerWorker({
      ...options,
      taskQueue,
      activities: plannerActivities({ packs, taskQueue, store, planning }),
    }),
    ...(await createToolWorkers({ ...options, tools: others, store, workspaceRoots: planning.workspaceRoots })),
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
 * The tool packs this worker serves by default: the waste-management demo pack (PGlite, or DATABASE_URL; opened by
 * its first query), the workspace-context tool over PLANNER_WORKSPACE_ROOT (default: the current folder), and one
 * pack per MCP server configured in planner.config.json (PLANNER_CONFIG overrides the path).
 */
export async function defaultToolPacks(config: PlannerConfig): Promise<ToolPack[]> {
  const mcp = await createMcpPacks(loadPlannerConfig(config.configFile, { required: config.configFile !== undefined }));
  return [
    createLazyWastePack({ today: new Date(), databaseUrl: config.databaseUrl, cacheDir: config.cacheDir }),
    createWorkspacePack(config.workspaceRoot, { allowedRoots: config.workspaceRoots }),
    ...mcp,
  ];
}
