/** Public API of the pure domain layer (safe to import from workflow code: no Node, no clock, no randomness). */
export * from './errors';
export * from './ids';
export * from './dates';
export * from './request';
export * from './requirements';
export * from './json-schema';
export * from './tool-spec';
export * from './budget';
export {
  ACTION_TYPES,
  FIBONACCI,
  PLAN_STATUSES,
  MAX_PARAM_DEPTH,
  StepSchema,
  TaskSchema,
  PlanEstimateSchema,
  PlanMetadataSchema,
  PlanSchema,
  flattenSteps,
  parsePlanJson,
} from './plan';
export type {
  ActionType,
  Complexity,
  PlanStatus,
  Step,
  Task,
  PlanEstimate,
  PlanMetadata,
  Plan,
  PlanInput,
  PlanStamp,
} from './plan';
export * from './critique';
export * from './templates';
export * from './dag';
export * from './secrets';
export * from './paths';
export * from './validation';
export * from './diff';
export * from './stages';
export * from './step-execution';
export * from './routing';
export * from './canonical-json';
