/**
 * What the Web UI and `planner list` see of a run: the memo, the goal's keywords and the stage, plan version and
 * spend as search attributes. Reads the state; never changes it.
 */
import { upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { goalKeywords, PlanCostSpentKey, PlanGoalKeywordsKey, PlanStageKey, PlanTokensSpentKey, PlanVersionKey } from '../api/search-attributes';
import type { PlanningState } from '../api/state';

export function publishGoal(state: PlanningState): void {
  upsertMemo({ goal: state.request.goal });
  if (state.options.search_attributes) upsertSearchAttributes([{ key: PlanGoalKeywordsKey, value: goalKeywords(state.request.goal) }]);
}

export function publishProgress(state: PlanningState): void {
  if (!state.options.search_attributes) return;
  upsertSearchAttributes([
    { key: PlanStageKey, value: state.stage },
    { key: PlanVersionKey, value: state.plan?.version ?? 0 },
    { key: PlanCostSpentKey, value: state.budget.spent.cost_usd },
    { key: PlanTokensSpentKey, value: state.budget.spent.tokens },
  ]);
}
