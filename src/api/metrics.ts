/**
 * The names of the metrics workflow code emits (src/workflows/observability.ts): here, below both the workflow and
 * the worker's telemetry (src/telemetry/metrics.ts, which sets their histogram buckets), so neither imports the other.
 * docs/observability.md lists every metric.
 */
export const WORKFLOW_METRICS = {
  plans: 'planner_plans_total',
  budgetPauses: 'planner_budget_pauses_total',
  clarificationWait: 'planner_clarification_wait_ms',
  stepFailures: 'planner_step_failures_total',
} as const;
