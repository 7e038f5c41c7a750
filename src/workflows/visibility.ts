/**
 * What the Web UI and `planner list` see of a run: the memo, the goal's keywords and the stage, plan version and
 * spend as search attributes, and the markdown plan view as the run's current details. Reads the state; never
 * changes it.
 */
import { setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { goalKeywords, PlanCostSpentKey, PlanGoalKeywordsKey, PlanStageKey, PlanTokensSpentKey, PlanVersionKey } from '../api/search-attributes';
import type { PlanningState } from '../api/state';
import { planDetails } from './details';

export function publishGoal(state: PlanningState): void {
  upsertMemo({ goal: state.request.goal });
  if (state.options.search_attributes) upsertSearchAttributes([{ key: PlanGoalKeywordsKey, value: goalKeywords(state.request.goal) }]);
}

/**
 * The current details at every change (held by the worker and read by the Web UI through the metadata query: no
 * command, no history); the search attributes only when `searchAttributes` (an upsert is a command, so where it is
 * published stays as committed histories recorded it).
 */
export function publishProgress(state: PlanningState, searchAttributes = true): void {
  setCurrentDetails(planDetails(state));
  if (!searchAttributes || !state.options.search_attributes) return;
  upsertSearchAttributes([
    { key: PlanStageKey, value: state.stage },
    { key: PlanVersionKey, value: state.plan?.version ?? 0 },
    { key: PlanCostSpentKey, value: state.budget.spent.cost_usd },
    { key: PlanTokensSpentKey, value: state.budget.spent.tokens },
  ]);
}
