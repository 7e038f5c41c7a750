/**
 * The planner's workers, as `planner worker`, `planner dev`, the demo and the tests create them:
 *   - the planner worker: the workflows, the planning activities and the tools on PLANNER_TASK_QUEUE;
 *   - one tool worker per other task queue of the tool packs it serves, each running `executeStep`.
 * By default (PLANNER_TOOL_QUEUES=planner) every tool is on the planner's queue, so there is one worker, as in a
 * plain Temporal deployment; `split` keeps each pack on its own queue, for pools scaled apart. Routing sends each
 * step to its tool's queue either way.
 * They stop cleanly on SIGINT/SIGTERM: Temporal's Runtime turns those signals into a graceful shutdown.
 */
import {
  bundleWorkflowCode,
  NativeConnection,
  Worker,
  type BundleOptions,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities, createPlanningDependencies } from './activities';
import { createCostHistoryActivities } from './activities/cost-history';
import type { PlanningDependencies } from './activities/planning';
import { createToolActivities } from './activities/tools';
import { loadConfig, type PlannerConfig, type ToolQueues } from './config';
import type { ContentStore } from './store/content-store';
import { openStorage } from './store/storage';
import { PostgresStorage } from './store/postgres';
import type { IdempotencyLedger } from './store/idempotency';
import { ToolCatalogs } from './tools/registry';
import { onQueue, withPlannerQueue } from './tools/define-tool';
import { specsOf, type ToolImplementation, type ToolPack } from './tools/tool';
import { loadPlannerConfig } from './tools/mcp/config';
import { createLazyWastePack } from './tools/waste';
import { createWorkspacePack } from './tools/workspace';
import {
  defaultBuildId,
  makeVersionCurrent,
  workerDeploymentOptions,
  type MakeCurrent,
  type PlannerVersion,
} from './versioning';
import { slimWorkflowBundle, type WebpackConfig } from './workflow-bundle';

export interface PlannerWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** A prebuilt workflow bundle (tests build one once); otherwise src/workflows is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * The planner's activities (plannerActivities, or createActivities for planning alone); without forecastCost and
   * recordCosts, the worker keeps no cost history.
   */
  activities: NonNullable<WorkerOptions['activities']>;
  /** Worker plugins, e.g. tracing's (src/telemetry/tracing.ts). */
  plugins?: WorkerOptions['plugins'];
  /** The Worker Deployment version it polls as, its runs pinned to it (src/versioning.ts); none: unversioned. */
  version?: PlannerVersion;
}

export async function createPlannerWorker(options: PlannerWorkerOptions): Promise<Worker> {
  return await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...plannerWorkflows(options.workflowBundle),
    // The workflow calls forecastCost and recordCosts as local activities, which the SDK refuses unregistered only
    // when not replaying: a run on a worker without them would break at its next replay (a query, an update). Given
    // activities without them get the ones of no cost history: a forecast from the estimate, no record.
    activities: { ...createCostHistoryActivities(undefined), ...options.activities },
    plugins: options.plugins ?? [],
    ...(options.version ? { workerDeploymentOptions: workerDeploymentOptions(options.version) } : {}),
  });
}

/**
 * How the planner's workflows are bundled: zod and the contract's schemas are built once per worker thread
 * (src/domain/shared-schema.ts) rather than at the start of every run, and the bundle is slim in memory
 * (src/workflow-bundle.ts).
 */
export const PLANNER_BUNDLER_OPTIONS = {
  preloadModules: [require.resolve('./domain/shared-schema')],
  webpackConfigHook: slimWorkflowBundle,
} satisfies WorkerOptions['bundlerOptions'];

/**
 * The planner's workflows: a prebuilt bundle, or src/workflows (dist/workflows once compiled) bundled at start with
 * the worker's own bundler options (`own`) and the planner's: its preloaded module, and its webpack hook after the
 * worker's own.
 */
export function plannerWorkflows(
  bundle?: WorkerOptions['workflowBundle'],
  own: WorkerOptions['bundlerOptions'] = {},
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'> {
  if (bundle) return { workflowBundle: bundle };
  const preloadModules = [...(own.preloadModules ?? []), ...PLANNER_BUNDLER_OPTIONS.preloadModules];
  const ownHook = own.webpackConfigHook;
  const webpackConfigHook = ownHook
    ? (config: WebpackConfig) => slimWorkflowBundle(ownHook(config))
    : slimWorkflowBundle;
  return {
    workflowsPath: require.resolve('./workflows'),
    bundlerOptions: { ...own, preloadModules, webpackConfigHook },
  };
}

/**
 * Workflow code bundled once for several workers (tests, bench, chaos drill), quietly; by default the planner's
 * workflows with its bundler options.
 */
export async function bundleWorkflows(
  workflowsPath = require.resolve('./workflows'),
  bundlerOptions: Pick<BundleOptions, 'preloadModules' | 'webpackConfigHook'> = PLANNER_BUNDLER_OPTIONS,
): Promise<{ code: string }> {
  const quiet = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    ...bundlerOptions,
    logger: { trace: quiet, debug: quiet, info: quiet, log: quiet, warn: console.warn, error: console.error },
  });
  return { code };
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
  /** Built from the config once per worker (createPlanningDependencies over catalogsOf(packs)). */
  planning: PlanningDependencies;
}): NonNullable<WorkerOptions['activities']> {
  const { planning } = options;
  const colocated = options.packs.flatMap((p) => p.tools).filter((t) => t.spec.task_queue === options.taskQueue);
  const tools = colocated.length
    ? createToolActivities({
        tools: colocated,
        store: options.store,
        ledger: planning.ledger,
        workspaceRoots: planning.workspaceRoots,
      })
    : {};
  return { ...createActivities(planning), ...tools };
}

/**
 * The catalogs a set of packs makes available to the planner. A pack whose MCP server could not start (`unavailable`)
 * is marked so: runs naming it get a retryable CatalogUnavailableError, while the other catalogs serve; once the
 * server starts (`recovered`) its catalog is registered.
 */
export function catalogsOf(packs: readonly ToolPack[]): ToolCatalogs {
  const catalogs = new ToolCatalogs();
  for (const pack of packs) {
    const down = pack.unavailable;
    if (!down) {
      catalogs.register(pack.catalog, specsOf(pack.tools), pack.clarifications);
      continue;
    }
    catalogs.markUnavailable(pack.catalog, { message: down.message, hint: down.hint });
    void pack.recovered?.then((ready) => {
      if (ready) catalogs.register(ready.catalog, specsOf(ready.tools), ready.clarifications);
    });
  }
  return catalogs;
}

/** One worker per task queue the tools name, each serving `executeStep` for the tools of that queue. */
export async function createToolWorkers(options: {
  connection: NativeConnection;
  namespace: string;
  tools: readonly ToolImplementation[];
  store: ContentStore;
  /** Where side-effecting tools record intents and outcomes (the planning dependencies' ledger). */
  ledger: IdempotencyLedger;
  /** The folders a run's workspace_root may use (config.workspaceRoots). */
  workspaceRoots: readonly string[];
  plugins?: WorkerOptions['plugins'];
  /** The planner's version: a pinned run's steps go to the tool workers of its version. */
  version?: PlannerVersion;
}): Promise<Worker[]> {
  const queues = [...new Set(options.tools.map((t) => t.spec.task_queue))].sort();
  return await Promise.all(
    queues.map((taskQueue) =>
      Worker.create({
        connection: options.connection,
        namespace: options.namespace,
        taskQueue,
        plugins: options.plugins ?? [],
        ...(options.version ? { workerDeploymentOptions: workerDeploymentOptions(options.version) } : {}),
        activities: createToolActivities({
          tools: options.tools.filter((t) => t.spec.task_queue === taskQueue),
          store: options.store,
          ledger: options.ledger,
          workspaceRoots: options.workspaceRoots,
        }),
      }),
    ),
  );
}

export interface LocalWorkers {
  workers: Worker[];
  /** What the planner worker's activities plan with: its catalogs, store and ledger, and its LLM client if any. */
  planning: PlanningDependencies;
  /** The Worker Deployment version they poll as; undefined when versioning is off (PLANNER_WORKER_VERSIONING). */
  version: PlannerVersion | undefined;
  /**
   * The build id of the deployment's current version once the workers poll and `makeCurrent` had its say: theirs, or
   * (`if-none`) the one current before them; undefined when versioning is off, `makeCurrent` is `never`, or it failed
   * (with a warning).
   */
  current: Promise<string | undefined>;
  /** Runs every worker until `until` settles (or until shutdown), then stops them all. */
  runUntil<R>(until: Promise<R>): Promise<R>;
  run(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The packs as a planner on `taskQueue` serves them: with `planner`, every tool on that queue except an isolated
 * pack's (MCP servers keep their own queues); with `split`, each tool on its own queue (tools defined without one
 * still join the planner's, see withPlannerQueue).
 */
export function servedPacks(packs: readonly ToolPack[], taskQueue: string, toolQueues: ToolQueues): ToolPack[] {
  return packs.map((p) =>
    toolQueues === 'planner' && !p.isolated ? onQueue(p, taskQueue) : withPlannerQueue(p, taskQueue),
  );
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
  /** With its ledger beside it (or planning's); default: openStorage(config), closed by close(). */
  store?: ContentStore;
  /** Where the task queue, store and planning dependencies not given come from; built here when not given (an entry point). */
  config?: PlannerConfig;
  /** Plugins of every worker, e.g. tracing's. */
  plugins?: WorkerOptions['plugins'];
  /**
   * Whether the workers' version becomes the deployment's current one once they poll, so new runs land on it:
   * `always` (`planner dev`, tests), `if-none` (the default, `planner worker`: only a deployment's first version;
   * later ones are made current by whoever rolls them out), or `never`.
   */
  makeCurrent?: MakeCurrent | 'never';
}): Promise<LocalWorkers> {
  const config = options.config ?? loadConfig();
  const opened = options.store ? undefined : openStorage(config);
  // A worker that cannot reach its database says so now, not in the first run it would fail.
  if (opened instanceof PostgresStorage) {
    await opened.check().catch(async (err: unknown) => {
      await opened.close();
      throw err;
    });
  }
  const store = options.store ?? opened!.store;
  const taskQueue = options.taskQueue ?? config.taskQueue;
  const packs = servedPacks(options.packs, taskQueue, options.toolQueues ?? 'split');
  // The catalogs of the packs as served, so routing sends each step to the queue that serves its tool.
  const planning =
    options.planning ??
    createPlanningDependencies({
      catalogs: catalogsOf(packs),
      store,
      ...(opened ? { ledger: opened.ledger } : {}),
      config,
    });
  const others = packs.flatMap((p) => p.tools).filter((t) => t.spec.task_queue !== taskQueue);
  const version = config.versioning.enabled
    ? {
        deploymentName: config.versioning.deploymentName ?? taskQueue,
        buildId: config.versioning.buildId ?? defaultBuildId(options.workflowBundle),
      }
    : undefined;
  const workers = [
    await createPlannerWorker({
      ...options,
      taskQueue,
      activities: plannerActivities({ packs, taskQueue, store, planning }),
      version,
    }),
    ...(await createToolWorkers({
      ...options,
      tools: others,
      store,
      ledger: planning.ledger,
      workspaceRoots: planning.workspaceRoots,
      version,
    })),
  ];
  const late = serveRecoveredPacks(packs, (tools) =>
    createToolWorkers({
      ...options,
      tools: tools.filter((t) => t.spec.task_queue !== taskQueue),
      store,
      ledger: planning.ledger,
      workspaceRoots: planning.workspaceRoots,
      version,
    }),
  );
  const makeCurrent = options.makeCurrent ?? 'if-none';
  const stopTrying = new AbortController();
  const current =
    version && makeCurrent !== 'never'
      ? makeVersionCurrent(options.connection.workflowService, options.namespace, version, {
          mode: makeCurrent,
          signal: stopTrying.signal,
        }).catch((err: unknown) => {
          if (!stopTrying.signal.aborted)
            console.warn(
              `worker version ${version.buildId} of deployment ${version.deploymentName} is not current: ${err instanceof Error ? err.message : String(err)}`,
            );
          return undefined;
        })
      : Promise.resolve(undefined);
  return {
    workers,
    planning,
    version,
    current,
    async runUntil<R>(until: Promise<R>): Promise<R> {
      const runs = workers.map((w) => w.run());
      try {
        return await until;
      } finally {
        stopTrying.abort();
        for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.allSettled(runs);
        await late.stop();
      }
    },
    async run() {
      try {
        await Promise.all(workers.map((w) => w.run()));
      } finally {
        await late.stop();
      }
    },
    async close() {
      stopTrying.abort();
      await late.stop();
      await Promise.all(options.packs.map((p) => p.close()));
      await opened?.close();
    },
  };
}

/**
 * Tool workers for the packs that were unavailable at start, created and run once each pack has `recovered` (its
 * MCP server started after all), so its steps are served without restarting the worker. `stop` shuts them down
 * and waits for them; a pack that recovers after that gets none. (Tools on the planner's own queue cannot join the
 * running planner worker; MCP tools have queues of their own.)
 */
function serveRecoveredPacks(
  packs: readonly ToolPack[],
  create: (tools: ToolImplementation[]) => Promise<Worker[]>,
): { stop(): Promise<void> } {
  let stopped = false;
  const running: { worker: Worker; run: Promise<void> }[] = [];
  const starting = new Set<Promise<void>>();
  const serve = async (ready: ToolPack): Promise<void> => {
    for (const worker of await create(ready.tools)) {
      running.push({ worker, run: worker.run() });
      if (stopped) worker.shutdown();
    }
  };
  for (const pack of packs) {
    void pack.recovered?.then((ready) => {
      if (!ready || stopped) return;
      const serving: Promise<void> = serve(ready)
        .catch((err: unknown) =>
          console.error(
            `cannot serve the recovered "${pack.catalog}" catalog: ${err instanceof Error ? err.message : String(err)}`,
          ),
        )
        .finally(() => starting.delete(serving));
      starting.add(serving);
    });
  }
  return {
    async stop() {
      stopped = true;
      await Promise.allSettled([...starting]);
      for (const { worker } of running) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.allSettled(running.map((r) => r.run));
    },
  };
}

/**
 * The tool packs this worker serves by default: the waste-management demo pack (PGlite, or DATABASE_URL; opened by
 * its first query; its data generated around `today`, default the current date), the workspace-context tool over
 * PLANNER_WORKSPACE_ROOT (default: the current folder), and one pack per MCP server configured in
 * planner.config.json (PLANNER_CONFIG overrides the path).
 */
export async function defaultToolPacks(
  config: PlannerConfig,
  options: { today?: string | Date } = {},
): Promise<ToolPack[]> {
  const mcpConfig = loadPlannerConfig(config.configFile, { required: config.configFile !== undefined });
  let mcp: ToolPack[] = [];
  if (Object.keys(mcpConfig.mcpServers).length > 0) {
    // Required here, not imported: only a worker with MCP servers to serve loads the MCP client SDK (several MB of
    // heap). A require, not import(): under tsx (a checkout's bin/planner.js) import() goes to Node's ES module
    // loader, which resolves no folder ('./tools/mcp') and no extensionless file.
    const { createMcpPacks } = require('./tools/mcp') as typeof import('./tools/mcp');
    mcp = await createMcpPacks(mcpConfig);
  }
  return [
    createLazyWastePack({
      today: options.today ?? new Date(),
      databaseUrl: config.databaseUrl,
      cacheDir: config.cacheDir,
    }),
    createWorkspacePack(config.workspaceRoot, { allowedRoots: config.workspaceRoots }),
    ...mcp,
  ];
}
