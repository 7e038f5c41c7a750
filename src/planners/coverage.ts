/**
 * Whether a plan accounts for every action its goal asks for. The rules analysis finds the goal's clauses that no
 * catalog tool matches by its words ("Email the list to the compliance team", "Order 50 new recycling bins"); a plan
 * must do each of them with a step whose tool does its verb (the model may see a match the words missed: "gather
 * the files" with a tool that gathers workspace files), or name the verb in missing_capabilities ("fetching recycling
 * bins" does not name ordering them). Words that only ask to see data ("list", "get") count for neither. Plans with
 * llm or human steps are left alone: they may do an action in such a step.
 */
import { flattenSteps, PlanSchema, type Plan, type Step } from '../domain/plan';
import { effectiveGoal, type PlanningRequest } from '../domain/request';
import type { ToolSpec } from '../domain/tool-spec';
import type { TemporalReference } from '../domain/dates';
import { contentTokens, isContentToken as isContent, splitClauses, stem, tokenize, type Token } from '../domain/text';
import { matchCatalog, toolTerms } from './catalog-match';
import { asksOnlyForListing, isLister } from './folder-listing';
import { PRESENTATION_VERBS, asksForData, statesWish, unmatchedActions } from './analyze/rules-analyzer';

const stems = (text: string) =>
  contentTokens(tokenize(text))
    .filter((t) => !PRESENTATION_VERBS.has(t.lower))
    .map((t) => t.stem);

/** The catalog tools a plan's steps call. */
function usedTools(plan: Pick<Plan, 'tasks'>, catalog: readonly ToolSpec[]): ToolSpec[] {
  const steps = flattenSteps(plan);
  return catalog.filter((t) => steps.some((s) => s.tool === t.name));
}

/** Whether one of `tools` does the action: its verb ("gather the code") is a word the tool is known by ("Gathers …"). */
export function actionDoneBy(action: string, tools: readonly ToolSpec[]): boolean {
  const verb = stems(action)[0];
  return verb === undefined || tools.some((t) => toolTerms(t).vocabulary.has(verb));
}

/** A param that takes the user's request in words (a tool that ranks or answers by it): the goal is its value. */
export const REQUEST_PARAM = /^(goal|request|question|task|prompt|instruction|objective)$/;

/**
 * Whether a step is given the goal in words (workspace-context.goal): it is given what the user says they want with
 * it too ("I'd like the done command to take several ids"), which is then no action left undone.
 */
export function givenTheRequest(steps: readonly Pick<Step, 'params'>[], goal: string): boolean {
  return steps.some((s) => Object.entries(s.params).some(([p, v]) => REQUEST_PARAM.test(p) && v === goal));
}

/** The goal's actions that no step's tool does and the plan does not name as missing (by the action's verb). */
export function uncoveredActions(
  plan: Pick<Plan, 'tasks' | 'missing_capabilities'>,
  request: PlanningRequest,
  catalog: readonly ToolSpec[],
): string[] {
  if (flattenSteps(plan).some((s) => s.action !== 'tool_call')) return [];
  const named = new Set(plan.missing_capabilities.flatMap(stems));
  const used = usedTools(plan, catalog);
  const wishesTaken = givenTheRequest(flattenSteps(plan), effectiveGoal(request));
  const lists = used.some(isLister);
  return unmatchedActions({ request, catalog: [...catalog] }).filter(
    (action) =>
      !named.has(stems(action)[0] ?? '') &&
      !actionDoneBy(action, used) &&
      !(wishesTaken && statesWish(action)) &&
      // "Subdirectories included" asks a step listing a folder for no more than its listing.
      !(lists && asksOnlyForListing(action)),
  );
}

/**
 * Whether steps calling `used` do nothing `goal` asks, something being `missing`: the goal names no catalog tool, and
 * either no clause of it asks for data ("Order 50 new recycling bins": reading data does nothing asked, even where a
 * tool knows one of its words) or none of the tools knows any word of it ("Translate the safety manual into Polish"
 * with facilities queries). A plan of such steps is IMPOSSIBLE.
 */
export function stepsDoNothingAsked(
  used: readonly ToolSpec[],
  missing: readonly string[],
  goal: string,
  catalog: readonly ToolSpec[],
): boolean {
  if (used.length === 0 || missing.length === 0 || matchCatalog(tokenize(goal), catalog).tools.length > 0) return false;
  const goalStems = stems(goal);
  const knowsGoal = (tool: ToolSpec) => {
    const { vocabulary } = toolTerms(tool);
    return goalStems.some((s) => vocabulary.has(s));
  };
  return asksNoData(goal, catalog) || !used.some(knowsGoal);
}

/** Whether no clause of `goal` asks for data or names a catalog tool ("Book a flight to München for the site visit"). */
export function asksNoData(goal: string, catalog: readonly ToolSpec[]): boolean {
  return splitClauses(goal).every(
    (clause) => !asksForData(clause) && matchCatalog(tokenize(clause), catalog).tools.length === 0,
  );
}

/**
 * `plan` accounting for its goal's actions, mended where it has one reading: an action it neither does nor names is
 * missing (the status follows: PARTIAL with steps, IMPOSSIBLE without); and when something is missing, the goal
 * names no catalog tool and none of the steps' tools knows any word of the goal, the steps do nothing the goal asks
 * ("Translate the safety manual into Polish" with 20 facilities queries): the plan is IMPOSSIBLE. The assumptions
 * say what was mended. A small model leaves actions out; asking again costs a call and says nothing the rules do not.
 */
export function withActionsAccounted(plan: Plan, request: PlanningRequest, catalog: readonly ToolSpec[]): Plan {
  const uncovered = uncoveredActions(plan, request, catalog);
  const missing = [...plan.missing_capabilities, ...uncovered];
  const used = usedTools(plan, catalog);
  const doNothingAsked = stepsDoNothingAsked(used, missing, effectiveGoal(request), catalog);
  if (uncovered.length === 0 && !doNothingAsked) return plan;
  const assumptions = [
    ...plan.assumptions,
    ...uncovered.map((action) => `no tool of the catalog does "${action}": named missing`),
    ...(doNothingAsked
      ? [
          `the steps were dropped: none of their tools (${used.map((t) => t.name).join(', ')}) does anything the goal names`,
        ]
      : []),
  ];
  const status = doNothingAsked || flattenSteps(plan).length === 0 ? 'IMPOSSIBLE' : 'PARTIAL';
  return PlanSchema.parse({
    ...plan,
    status,
    missing_capabilities: missing,
    tasks: status === 'IMPOSSIBLE' ? [] : plan.tasks,
    assumptions,
  });
}

/**
 * The catalog tools an IMPOSSIBLE plan passes over although the goal names them ("List this week's rejected
 * inspections and open a Jira ticket for each": inspections). Such a goal is at least PARTIAL.
 */
export function namedToolsLeftOut(
  plan: Pick<Plan, 'status'>,
  request: PlanningRequest,
  catalog: readonly ToolSpec[],
): string[] {
  if (plan.status !== 'IMPOSSIBLE') return [];
  return matchCatalog(tokenize(effectiveGoal(request)), catalog).tools.map((m) => m.tool.name);
}

/**
 * Whether one of `tools` (the tools a plan's steps call) provides `capability`: they share a word, as "incineration
 * plant" does with facilities. A small model names what its own steps do as missing; that is no missing capability.
 */
export function providedBy(capability: string, tools: readonly ToolSpec[]): boolean {
  const words = stems(capability);
  return tools.some((tool) => {
    const { vocabulary } = toolTerms(tool);
    return words.some((w) => vocabulary.has(w));
  });
}

const DIGITS = /^\d+$/;
const CAPITALIZED = /^\p{Lu}/u;

/**
 * The goal's values that `plan` does not account for: a number, a capitalized name (not the goal's first word), or a
 * word that is an enum value or a boolean filter of a catalog tool, which no param value of the plan, no resolved date
 * phrase and nothing the plan names as missing holds (a filter word counts where a step sets that filter, and a word
 * of a called tool's name counts as that tool). Empty: every value the goal states reached the plan. A value left over
 * is a constraint the plan may have dropped ("carried by EcoTrans AG", "at least 100 tons", "as an Excel file"). Plain
 * words are not weighed: which tools a goal needs is the rules' matching, and a small model is no better at it.
 */
export function unaccountedValues(
  plan: Pick<Plan, 'tasks' | 'missing_capabilities'>,
  request: PlanningRequest,
  catalog: readonly ToolSpec[],
  temporal_references: readonly Pick<TemporalReference, 'phrase'>[],
): string[] {
  const steps = flattenSteps(plan);
  const values = new Set(tokenize(JSON.stringify(steps.map((s) => s.params))).map((t) => t.stem));
  const dateWords = new Set(temporal_references.flatMap((r) => tokenize(r.phrase).map((t) => t.lower)));
  // Numbers too: "no filter by weight over 5000 kg" holds the goal's 5000.
  const missing = new Set(plan.missing_capabilities.flatMap((c) => tokenize(c).map((t) => t.stem)));
  const toolNames = new Set(usedTools(plan, catalog).flatMap((t) => [...toolTerms(t).names]));
  const setParams = new Set(steps.flatMap((s) => Object.keys(s.params).map((p) => `${s.tool}.${p}`)));
  // A filter word is accounted for where a step sets its filter ("contaminated": has_contaminants), an enum value
  // where a param holds it.
  const filterWords = new Map<string, boolean>();
  for (const tool of catalog) {
    const { enums, booleans } = toolTerms(tool);
    for (const [, schema] of enums)
      for (const v of schema.enum ?? []) if (typeof v === 'string') filterWords.set(stem(v), false);
    for (const b of booleans)
      for (const s of b.stems) filterWords.set(s, filterWords.get(s) || setParams.has(`${tool.name}.${b.param}`));
  }
  const isValue = (t: Token) =>
    DIGITS.test(t.lower) || (t.pos > 0 && CAPITALIZED.test(t.text) && isContent(t)) || filterWords.has(t.stem);
  const accounted = (t: Token) =>
    values.has(t.stem) || missing.has(t.stem) || toolNames.has(t.stem) || filterWords.get(t.stem) === true;
  const left = tokenize(effectiveGoal(request)).filter(
    (t) => !dateWords.has(t.lower) && !PRESENTATION_VERBS.has(t.lower) && isValue(t) && !accounted(t),
  );
  return [...new Set(left.map((t) => t.text))];
}
