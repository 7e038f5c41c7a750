/**
 * The pieces `planner dev`, `planner worker` and the demo share: find the Temporal server (TEMPORAL_ADDRESS /
 * envconfig / --address, or a local dev server started or reused) and run the planner and tool workers in-process.
 */
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { PlannerConfig, ToolQueues } from '../config';
import { ensureLocalDevServer, type LocalDevServer } from '../dev/temporal-server';
import { prometheusTelemetry } from '../telemetry/metrics';
import { tracingFromConfig, tracingPlugins } from '../telemetry/tracing';
import { ensureSearchAttributes, loadTemporalTarget, type TemporalTarget } from '../temporal-connection';
import type { MakeCurrent } from '../versioning';
import { DEFAULT_CATALOG } from '../tools/registry';
import type { PlanningDependencies } from '../activities/planning';
import { createLocalWorkers, defaultToolPacks, type LocalWorkers } from '../worker';

let runtimeInstalled = false;

/**
 * The SDK's INFO and WARN lines (bundle sizes, worker states) drown what the user asked for. With `metricsPort` the
 * runtime also serves Prometheus metrics there (the runtime is configured once per process, before any worker).
 */
export function quietSdkLogs(level: 'ERROR' | 'WARN' | 'INFO' = 'ERROR', metricsPort?: number): void {
  if (runtimeInstalled) return;
  Runtime.install({
    logger: new DefaultLogger(level),
    ...(metricsPort === undefined ? {} : { telemetryOptions: prometheusTelemetry(metricsPort) }),
  });
  runtimeInstalled = true;
}

export interface ResolvedServer {
  target: TemporalTarget;
  /** Set when the server is the local dev server (started now, or already running). */
  local?: LocalDevServer;
}

/**
 * The server to use: an explicit address (flag, TEMPORAL_ADDRESS or the envconfig profile) as is; otherwise the
 * local dev server on localhost:7233, started if nothing listens there.
 */
export async function resolveServer(
  config: PlannerConfig,
  overrides: { address?: string; namespace?: string; local?: boolean },
  log: (line: string) => void,
): Promise<ResolvedServer> {
  const useLocal = overrides.local ?? (!overrides.address && !config.temporal.address);
  if (!useLocal) return { target: loadTemporalTarget(config.temporal, overrides) };
  const local = await ensureLocalDevServer(config, log);
  const target = loadTemporalTarget(config.temporal, { ...overrides, address: local.address });
  target.webUiUrl = local.uiUrl ?? target.webUiUrl;
  return { target, local };
}

export interface RunningWorkers {
  workers: LocalWorkers;
  /** The task queues polled, planner queue first. */
  queues: string[];
  /** With `warmUp` and an LLM configured: what warming the provider's prompt cache did, as a line to print. */
  warmed?: Promise<string>;
  close(): Promise<void>;
}

/**
 * Sends the system prompt every LLM role shares for the default catalog to the LLM once (src/llm/warm-up.ts), through the
 * client the planning activities call (`planning.llm`, built once in src/activities/llm-dependencies.ts), so the first
 * run's planning call finds it in the provider's prompt cache. Undefined when the planner has no LLM.
 */
export function warmUp(planning: Pick<PlanningDependencies, 'llm' | 'catalogs'>): Promise<string> | undefined {
  const { llm, catalogs } = planning;
  if (!llm) return undefined;
  return import('../llm/warm-up').then(async ({ warmPromptCache }) => {
    const result = await warmPromptCache(llm.client, catalogs.get(DEFAULT_CATALOG));
    return 'error' in result
      ? `LLM prompt cache not warmed: ${result.error}`
      : `LLM prompt cache warmed with the shared system prompt for catalog ${DEFAULT_CATALOG}: ${result.prompt_tokens} prompt tokens (${result.cached_tokens} already cached) in ${(result.ms / 1000).toFixed(1)} s`;
  });
}

/**
 * Registers missing search attributes, then creates the planner worker serving the default tool packs: on its own
 * queue (config.toolQueues `planner`, the default), or with a tool worker per pack queue (`split`). `today` is the
 * day the waste pack's data is generated around (default: the current date; the eval pins one). With Worker
 * Versioning on, the workers' version becomes the deployment's current one once they poll (`makeCurrent`: `always`,
 * as `planner dev` and the demo do, or `if-none`, as `planner worker` does: only a deployment's first version).
 */
export async function startWorkers(
  target: TemporalTarget,
  config: PlannerConfig,
  options: {
    taskQueue?: string;
    toolQueues?: ToolQueues;
    warn?: (line: string) => void;
    today?: string | Date;
    makeCurrent?: MakeCurrent;
    /** Warm the LLM's prompt cache at start (PLANNER_LLM_WARM_UP): long-lived workers, not the one-run demo. */
    warmUp?: boolean;
  } = {},
): Promise<RunningWorkers> {
  const admin = await Connection.connect(target.connectionOptions);
  try {
    await ensureSearchAttributes(admin, target.namespace, options.warn);
  } finally {
    await admin.close();
  }
  const connection = await NativeConnection.connect(target.connectionOptions);
  const tracing = tracingFromConfig(config);
  const packs = await defaultToolPacks(config, { today: options.today });
  const workers = await createLocalWorkers({
    connection,
    namespace: target.namespace,
    packs,
    taskQueue: options.taskQueue,
    toolQueues: options.toolQueues ?? config.toolQueues,
    config,
    plugins: tracingPlugins(tracing),
    makeCurrent: options.makeCurrent ?? 'always',
  });
  const warmed = options.warmUp && config.llmWarmUp ? warmUp(workers.planning) : undefined;
  return {
    workers,
    queues: workers.workers.map((w) => w.options.taskQueue),
    ...(warmed ? { warmed } : {}),
    async close() {
      await workers.close();
      await connection.close();
      await tracing?.shutdown();
    },
  };
}
