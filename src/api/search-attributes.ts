/**
 * The search attributes planning workflows publish, so the Web UI and `planner list` can filter runs
 * (e.g. `PlanStage="AWAITING_CLARIFICATION"`). The dev server registers them at start; other servers get
 * them through the operator service (see src/temporal-connection.ts).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const PlanStageKey = defineSearchAttributeKey('PlanStage', SearchAttributeType.KEYWORD);
export const PlanVersionKey = defineSearchAttributeKey('PlanVersion', SearchAttributeType.INT);
export const PlanCostSpentKey = defineSearchAttributeKey('PlanCostSpent', SearchAttributeType.DOUBLE);
export const PlanTokensSpentKey = defineSearchAttributeKey('PlanTokensSpent', SearchAttributeType.INT);
export const PlanGoalKeywordsKey = defineSearchAttributeKey('PlanGoalKeywords', SearchAttributeType.KEYWORD_LIST);

export const PLANNER_SEARCH_ATTRIBUTES = [
  PlanStageKey,
  PlanVersionKey,
  PlanCostSpentKey,
  PlanTokensSpentKey,
  PlanGoalKeywordsKey,
] as const;

/** `temporal server start-dev --search-attribute` spells the types in CamelCase. */
const CLI_TYPE_NAMES: Record<SearchAttributeType, string> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

export function searchAttributeCliFlags(): string[] {
  return PLANNER_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${CLI_TYPE_NAMES[key.type]}`]);
}
