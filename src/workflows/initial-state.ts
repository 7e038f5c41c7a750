/** The state a new run starts from, built from its parsed input; the workflow's clock is its `now`. */
import { patched } from '@temporalio/workflow';
import { planFailureToApplicationFailure } from '../api/failures';
import { checkStartBudget, parseWorkflowInput, type PlanningWorkflowInput } from '../api/input';
import type { PlanningState } from '../api/state';
import { createBudget, limitsPastMaxima } from '../domain/budget';
import { PlannerError } from '../domain/errors';

export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * Runs started after this refuse a start budget past BUDGET_MAXIMA (checkStartBudget); a run started before it with
 * such a budget replays as it ran. Asked only for such a budget, so other runs record no marker.
 */
export const START_BUDGET_MAXIMA_PATCH = 'start-budget-within-maxima';

/** Throws the run's final failure (PLAN-006, non-retryable) for malformed input. */
export function initialState(input: PlanningWorkflowInput, workflowId: string): PlanningState {
  let parsed;
  try {
    parsed = parseWorkflowInput(input, { trace_id: workflowId, now: nowIso() });
    if (limitsPastMaxima(parsed.request.budget).length > 0 && patched(START_BUDGET_MAXIMA_PATCH)) checkStartBudget(parsed.request.budget);
  } catch (err) {
    if (err instanceof PlannerError) throw planFailureToApplicationFailure(err);
    throw err;
  }
  const { request, options } = parsed;
  return {
    workflow_id: workflowId,
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
  };
}
