/**
 * What a step's activity receives: its parameters and its dependencies' results, by reference or inline.
 */
import type { Step } from '../domain/plan';
import { defaultIdempotencyScope, type StepExecutionInput } from '../domain/step-execution';
import type { PlanningRun } from './run';

/** The results of the steps `step` depends on, by reference (small ones inline): the worker loads the rest. */
export function inputsOf(run: PlanningRun, step: Step): Record<string, { ref: string; data: unknown }> {
  return Object.fromEntries(
    step.depends_on.map((d) => [
      String(d),
      { ref: run.state.steps[d]!.result!.ref, data: run.state.steps[d]!.result!.data },
    ]),
  );
}

/** inputsOf, each result by its inline data or else by reference: not both. */
function leanInputsOf(run: PlanningRun, step: Step): StepExecutionInput['inputs'] {
  return Object.fromEntries(
    Object.entries(inputsOf(run, step)).map(([d, { ref, data }]) => [d, data !== undefined ? { data } : { ref }]),
  );
}

/**
 * What `executeStep` receives: only what the worker cannot know itself (no workflow id, plan id or catalog; the
 * default idempotency scope left to the worker).
 */
export function stepInput(run: PlanningRun, step: Step, index: number, scope: string): StepExecutionInput {
  const { state } = run;
  const plan = state.plan!;
  const { workflow_id, request } = state;
  const input = {
    plan_version: plan.version,
    step_index: index,
    step_id: step.id,
    tool: step.tool ?? '',
    params: step.params,
    inputs: leanInputsOf(run, step),
    workspace_root: request.constraints.workspace_root,
  };
  // Left out only when it is the default the worker assumes: a run with an effect chain always sends its scope.
  return scope === defaultIdempotencyScope(workflow_id, step.id) ? input : { ...input, idempotency_scope: scope };
}
