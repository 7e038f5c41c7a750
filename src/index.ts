/**
 * durable-planner's public API, for teams embedding the planner in their own Temporal workers and clients
 * (the package's "main"/"exports"). The `planner` CLI is the bin (bin/planner.js).
 */

// Running the planner: as a plugin of your own worker, or as ready-made workers.
export { plannerPlugin, type PlannerPluginOptions } from './planner-plugin';
export {
  catalogsOf,
  createLocalWorkers,
  createPlannerWorker,
  createToolWorkers,
  servedPacks,
  type LocalWorkers,
  type PlannerWorkerOptions,
} from './worker';
export { DEFAULT_TASK_QUEUE, type ToolQueues } from './config';

// Your own tools: a catalog the planner plans with, chosen per run by `request.tool_catalog`.
export { defineTool, defineToolPack, onQueue, type ToolDefinitionInput } from './tools/define-tool';
export type { ToolContext, ToolImplementation, ToolOutput, ToolPack } from './tools/tool';
export { pathParam, type ToolSpec } from './domain/tool-spec';
export { LocalContentStore, type ContentStore } from './store/content-store';
export { LocalStorage, openStorage, type GarbageReport, type PlannerStorage } from './store/storage';
export { PostgresStorage } from './store/postgres';

// Starting and driving runs.
export { PlannerClient, planningStartOptions, type PlanningHandle, type StartOptions } from './client';
export { ensureSearchAttributes, loadTemporalTarget, type TemporalTarget } from './temporal-connection';

// The contract: the workflow, its messages and input, the state a run reports, search attributes and failures.
export * from './api';
export { planningWorkflow } from './workflows';
export type { Stage } from './domain/stages';
