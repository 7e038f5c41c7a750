/**
 * The run chain a run's side effects are keyed by. A side-effecting step's idempotency key once named only the
 * workflow id and step id, so a new run under a reused id (`planner start --id … --reuse-id`), or the same id in
 * another namespace sharing the ledger, was handed the earlier run's result (`replayed: true`) and skipped its own
 * effect. A run now keys them by `<namespace>/<first run id>` as well: new for each start, the same for a retry of
 * the workflow, and carried by continue-as-new in the state. A cron schedule's runs all share the first run id, yet
 * each starts afresh (src/workflows/resume.ts), so each is its own chain: its own run id.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { Step } from '../domain/plan';
import { defaultIdempotencyScope } from '../domain/step-execution';
import type { PlanningRun } from './run';

/** A new run's chain: `<namespace>/<first run id>` (a cron run's own run id). */
export function effectChainOfNewRun(): string {
  const { namespace, firstExecutionRunId, originalExecutionRunId, cronSchedule } = workflowInfo();
  return `${namespace}/${cronSchedule ? originalExecutionRunId : firstExecutionRunId}`;
}

/**
 * The idempotency scope of the first attempt of `step`, within the run's chain when it has one; a step a person asked
 * to re-run (rerunFrom) gets a scope of its own per re-run, since its effect is meant to happen again.
 */
export function firstScope(run: PlanningRun, step: Step): string {
  const scope = defaultIdempotencyScope(run.state.workflow_id, step.id, run.state.effect_chain);
  const reruns = run.state.rerun_scopes?.[step.id];
  return reruns ? `${scope}:rerun-${reruns}` : scope;
}
