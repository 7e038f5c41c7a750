/**
 * Whether a plan accounts for every action its goal asks for. The rules analysis finds the goal's clauses that no
 * catalog tool matches by its words ("Email the list to the compliance team", "Order 50 new recycling bins"); a plan
 * must do each of them with a step whose tool shares a word with it (the model may see a match the words missed:
 * "gather the files" with a tool that gathers workspace files), or name it in missing_capabilities. Words that
 * only ask to see data ("list", "get") count for neither. IMPOSSIBLE plans, and plans with llm or human steps, are
 * left alone: the former name what the whole goal needs in their own words, the latter may do it in such a step.
 */
import { flattenSteps, type Plan } from '../domain/plan';
import { effectiveGoal, type PlanningRequest } from '../domain/request';
import type { ToolSpec } from '../domain/tool-spec';
import { contentTokens, identifierStems, stem, tokenize } from '../domain/words';
import { matchTools } from './catalog-match';
import { PRESENTATION_VERBS, unmatchedActions } from './analyze/rules-analyzer';

const stems = (text: string) => contentTokens(tokenize(text)).filter((t) => !PRESENTATION_VERBS.has(t.lower)).map((t) => t.stem);

/** The stems a tool is known by: its name, tags and the content words of its description. */
export function toolVocabulary(tool: ToolSpec): Set<string> {
  return new Set([...identifierStems(tool.name), ...tool.tags.map(stem), ...contentTokens(tokenize(tool.description)).map((t) => t.stem)]);
}

/** The goal's actions that no step's tool shares a word with and the plan does not name as missing. */
export function uncoveredActions(plan: Pick<Plan, 'status' | 'tasks' | 'missing_capabilities'>, request: PlanningRequest, catalog: readonly ToolSpec[]): string[] {
  const steps = flattenSteps(plan);
  // An IMPOSSIBLE plan names what the whole goal would need, in its own words ("a tool that edits source files").
  if (plan.status === 'IMPOSSIBLE' || steps.some((s) => s.action !== 'tool_call')) return [];
  const used = catalog.filter((t) => steps.some((s) => s.tool === t.name));
  const accounted = new Set([...plan.missing_capabilities.flatMap(stems), ...used.flatMap((t) => [...toolVocabulary(t)])]);
  return unmatchedActions({ request, catalog: [...catalog] }).filter((action) => !stems(action).some((s) => accounted.has(s)));
}

/**
 * The catalog tools an IMPOSSIBLE plan passes over although the goal names them ("List this week's rejected
 * inspections and open a Jira ticket for each": inspections). Such a goal is at least PARTIAL.
 */
export function namedToolsLeftOut(plan: Pick<Plan, 'status'>, request: PlanningRequest, catalog: readonly ToolSpec[]): string[] {
  if (plan.status !== 'IMPOSSIBLE') return [];
  return matchTools(tokenize(effectiveGoal(request)), catalog).map((m) => m.tool.name);
}

/**
 * Whether one of `tools` (the tools a plan's steps call) provides `capability`: they share a word, as "incineration
 * plant" does with facilities. A small model names what its own steps do as missing; that is no missing capability.
 */
export function providedBy(capability: string, tools: readonly ToolSpec[]): boolean {
  const words = stems(capability);
  return tools.some((tool) => {
    const vocabulary = toolVocabulary(tool);
    return words.some((w) => vocabulary.has(w));
  });
}
