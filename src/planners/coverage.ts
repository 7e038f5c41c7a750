/**
 * Whether a plan accounts for every action its goal asks for. The rules analysis finds the goal's clauses that no
 * catalog tool matches ("Email the list to the compliance team", "Order 50 new recycling bins"); a plan must name
 * each of them in missing_capabilities (sharing a word with it), whatever its status. Plans with llm or human steps
 * are left alone: such a step may be how the plan does it.
 */
import { flattenSteps, type Plan } from '../domain/plan';
import type { PlanningRequest } from '../domain/request';
import type { ToolSpec } from '../domain/tool-spec';
import { contentTokens, tokenize } from '../domain/words';
import { unmatchedActions } from './analyze/rules-analyzer';

const stems = (text: string) => contentTokens(tokenize(text)).map((t) => t.stem);

/** The goal's actions that no tool does and the plan does not name as missing. */
export function uncoveredActions(plan: Pick<Plan, 'tasks' | 'missing_capabilities'>, request: PlanningRequest, catalog: readonly ToolSpec[]): string[] {
  if (flattenSteps(plan).some((s) => s.action !== 'tool_call')) return [];
  const named = new Set(plan.missing_capabilities.flatMap(stems));
  return unmatchedActions({ request, catalog: [...catalog] }).filter((action) => !stems(action).some((s) => named.has(s)));
}
