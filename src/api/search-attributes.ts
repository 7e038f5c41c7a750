/**
 * The search attributes planning workflows publish, so the Web UI and `planner list` can filter runs
 * (e.g. `PlanStage="AWAITING_CLARIFICATION"`). The dev server registers them at start; other servers get
 * them through the operator service (see src/temporal-connection.ts).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { contentTokens, tokenize, utf8Length } from '../domain/text';

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

/**
 * What a KEYWORD_LIST value may hold so the server never refuses it (it allows 2,048 bytes per keyword and a few KB
 * per run; a refused upsert terminates the run with BadSearchAttributes): at most this many keywords, each at most
 * this many characters, and this many UTF-8 bytes in all.
 */
export const KEYWORD_LIMITS = { count: 10, chars: 64, total_bytes: 1_024 } as const;

/** `values` clipped to KEYWORD_LIMITS: each value cut (whole code points), duplicates dropped, the list cut. */
export function clipKeywords(values: readonly string[]): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (const value of values) {
    const clipped = Array.from(value).slice(0, KEYWORD_LIMITS.chars).join('');
    if (clipped.length === 0 || out.includes(clipped)) continue;
    const size = utf8Length(clipped);
    if (out.length >= KEYWORD_LIMITS.count || bytes + size > KEYWORD_LIMITS.total_bytes) break;
    out.push(clipped);
    bytes += size;
  }
  return out;
}

/** PlanGoalKeywords of a goal: its distinct content words, lower-cased, clipped to what the server accepts. */
export function goalKeywords(goal: string): string[] {
  return clipKeywords(contentTokens(tokenize(goal)).map((t) => t.lower));
}
