/** The state a new run starts from, built from its parsed input; the workflow's clock is its `now`. */
import { planFailureToApplicationFailure } from '../api/failures';
import { checkStartBudget, parseWorkflowInput, type PlanningWorkflowInput } from '../api/input';
import type { PlanningState } from '../api/state';
import { createBudget } from '../domain/budget';
import { PlannerError } from '../domain/errors';
import { rerunStart } from './plan-edits';

export function nowIso(): string {
  return new Date().toISOString();
}

/** Throws the run's final failure (PLAN-006, non-retryable) for malformed input. `effectChain`: see ./effect-keys.ts. */
export function initialState(input: PlanningWorkflowInput, workflowId: string, effectChain?: string): PlanningState {
  let parsed;
  try {
    parsed = parseWorkflowInput(input, { trace_id: workflowId, now: nowIso() });
    checkStartBudget(parsed.request.budget); // a start budget past BUDGET_MAXIMA could never be raised again
  } catch (err) {
    if (err instanceof PlannerError) throw planFailureToApplicationFailure(err);
    throw err;
  }
  const { request, options, started_by, rerun } = parsed;
  return {
    workflow_id: workflowId,
    ...(started_by !== undefined ? { started_by } : {}),
    stage: 'CREATED',
    stage_before_budget: null,
    request,
    options,
    analyzer_kind: null,
    requirements: null,
    question: null,
    answer: null,
    clarifications: [],
    plan_id: null,
    plan: null,
    versions: [],
    next_version_reason: { reason: 'initial', feedback: [] },
    critiques: [],
    decision: null,
    approval: null,
    routes: {},
    route_turns: {},
    routing: [],
    steps: [],
    completed_steps: {},
    budget: createBudget(request.budget),
    budget_needed: null,
    warnings: [],
    refinements: 0,
    replans: 0,
    audit: [],
    failure: null,
    continued_as_new: 0,
    ...(effectChain !== undefined ? { effect_chain: effectChain } : {}),
    ...(rerun ? rerunStart(rerun) : {}),
  };
}
