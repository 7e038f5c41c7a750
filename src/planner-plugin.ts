/**
 * plannerPlugin: the planner as a Temporal worker plugin (WorkerPlugin, experimental in the SDK since 1.13), for
 * teams running it in their own workers: `Worker.create({ connection, taskQueue, plugins: [plannerPlugin({ packs })] })`.
 * The plugin adds the planner's workflows and activities to that worker, and the tools of `packs` that run on its
 * task queue (tools defined without a queue of their own do), and closes the packs when the worker stops. Tools
 * on other queues need workers there (createToolWorkers). With OTEL_EXPORTER_OTLP_ENDPOINT set it also adds
 * Temporal's OpenTelemetry interceptors (src/telemetry/tracing.ts), so the worker's runs are traced.
 */
import { Runtime, type Worker, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import type { ContentStore } from './store/content-store';
import { openStorage, storeLocation, type PlannerStorage } from './store/storage';
import { loadConfig, type PlannerConfig } from './config';
import { createPlanningDependencies } from './activities';
import { tracingFromConfig, type Tracing } from './telemetry/tracing';
import { withPlannerQueue } from './tools/define-tool';
import type { ToolPack } from './tools/tool';
import { catalogsOf, plannerActivities, plannerWorkflows } from './worker';

export interface PlannerPluginOptions {
  /** The catalogs the planner plans with; a run names one in `request.tool_catalog`. */
  packs: readonly ToolPack[];
  /** Where step results are stored; default: PostgreSQL at DATABASE_URL, else PLANNER_STORE_DIR (default .planner/store in the application's folder, docs/configuration.md). */
  store?: ContentStore;
  /** A prebuilt bundle of the planner's workflows; by default they are bundled when the worker is created. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The planner's configuration; default: built here from the environment once (docs/configuration.md). */
  config?: PlannerConfig;
}

export function plannerPlugin(options: PlannerPluginOptions): WorkerPlugin {
  let opened: PlannerStorage | undefined;
  let tracing: Tracing | undefined;
  return {
    name: 'durable-planner',
    configureWorker(worker: WorkerOptions): WorkerOptions {
      // A worker runs one workflow bundle, so the planner's workflows cannot join the user's own.
      if (worker.workflowsPath || worker.workflowBundle) {
        throw new Error(
          'plannerPlugin: this worker already has workflows; run the planner on a worker (and task queue) of its own',
        );
      }
      const config = options.config ?? loadConfig();
      opened = options.store ? undefined : openStorage(config);
      if (opened) Runtime.instance().logger.info(`durable-planner: Store: ${storeLocation(config)}`);
      const store = options.store ?? opened!.store;
      const packs = options.packs.map((p) => withPlannerQueue(p, worker.taskQueue));
      const planner: WorkerOptions = {
        ...worker,
        ...plannerWorkflows(options.workflowBundle, worker.bundlerOptions),
        activities: {
          ...worker.activities,
          ...plannerActivities({
            packs,
            taskQueue: worker.taskQueue,
            store,
            planning: createPlanningDependencies({
              config,
              catalogs: catalogsOf(packs),
              store,
              ...(opened ? { ledger: opened.ledger } : {}),
            }),
          }),
        },
      };
      tracing = tracingFromConfig(config);
      return tracing ? tracing.plugin.configureWorker(planner) : planner;
    },
    async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
      try {
        await next(worker);
      } finally {
        await Promise.all(options.packs.map((p) => p.close()));
        await opened?.close();
        await tracing?.shutdown();
      }
    },
  };
}
