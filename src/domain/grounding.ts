/**
 * Whether a plan answers the goal it was given, not only the tools' schemas: every constraint the goal states reaches
 * a param that filters on it, and every id a step passes comes from somewhere (the goal, or an earlier step's data
 * through a template). A plan that drops "last week" or passes the city "Hannover" as a facility id validates
 * against the schemas and returns a wrong answer that looks right; these checks make it a validation issue instead,
 * so the LLM planner is corrected in the same conversation and the ranking planner binds what it can itself.
 * Domain-independent: what counts as a filter or an id comes from the tools' param schemas, never from one catalog.
 */
import type { ValidationIssue } from './errors';
import type { JsonSchema } from './json-schema';
import type { Plan, Step } from './plan';
import { containsTemplate } from './templates';
import type { ToolSpec } from './tool-spec';
import { isRecord } from './walk';
import { identifierStems, tokenize } from './text';

export const CONSTRAINT_KINDS = ['period', 'value', 'place', 'name', 'amount'] as const;

/** One thing the goal asks to filter by, and the params of the catalog that can take it. */
export interface GoalConstraint {
  kind: (typeof CONSTRAINT_KINDS)[number];
  /** The goal's own words ("last week", "EcoTrans AG", "at least 100 tons"). */
  words: string;
  /** The param values that apply it; all of them must reach one step ("2026-06-01" and "2026-06-07"). */
  values: string[];
  /** "tool.param" of every catalog param that can take it. */
  params: string[];
  /** Position of its first word among the goal's tokens (for planners that bind it to the nearest step). */
  at: number;
}

/** What grounding checks a plan against: the goal's constraints and the text the user gave (ids may come from it). */
export interface Grounding {
  constraints: readonly GoalConstraint[];
  /** The goal with its answers: an id written there is the user's, not an invention. */
  given_text: string;
}

/** A param that names records of another tool: `id`, `facility_id`, `shipment_ids`, or one whose description says so. */
export function isIdParam(name: string, schema: JsonSchema | undefined): boolean {
  if (/(^|_)ids?$/i.test(name)) return true;
  return typeof schema?.description === 'string' && /\bidentifiers?\b/i.test(schema.description);
}

const sameValue = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The literal (template-free) scalar values a step passes, as text. */
function literalValues(params: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (!containsTemplate(v)) out.push(v);
    } else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isRecord(v)) Object.values(v).forEach(walk);
  };
  walk(params);
  return out;
}

/** A step applies the constraint: it passes each of its values to a param that can take it (a name may be part of a longer text). */
function applies(step: Pick<Step, 'tool' | 'params'>, constraint: GoalConstraint): boolean {
  const passed = Object.entries(step.params).flatMap(([param, value]) =>
    constraint.params.includes(`${step.tool}.${param}`) ? literalValues(value) : [],
  );
  const matches = (p: string, value: string) =>
    sameValue(p, value) ||
    (constraint.kind === 'name' &&
      p.length >= 3 &&
      (p.toLowerCase().includes(value.toLowerCase()) || value.toLowerCase().includes(p.toLowerCase())));
  return constraint.values.every((value) => passed.some((p) => matches(p, value)));
}

/** The plan says why it does not apply it: its assumptions or missing capabilities quote the goal's words. */
function explained(plan: Pick<Plan, 'assumptions' | 'missing_capabilities'>, constraint: GoalConstraint): boolean {
  const text = [...plan.assumptions, ...plan.missing_capabilities].join('\n').toLowerCase();
  return text.includes(constraint.words.toLowerCase());
}

/** The constraints no tool call of `steps` applies. */
export function unboundConstraints(
  steps: readonly Pick<Step, 'action' | 'tool' | 'params'>[],
  constraints: readonly GoalConstraint[],
): GoalConstraint[] {
  const calls = steps.filter((s) => s.action === 'tool_call');
  return constraints.filter((c) => !calls.some((s) => applies(s, c)));
}

/** The goal's constraints no step applies and the plan does not explain, as validation issues. */
export function unboundConstraintIssues(
  plan: Pick<Plan, 'status' | 'assumptions' | 'missing_capabilities'>,
  steps: readonly Step[],
  constraints: readonly GoalConstraint[],
): ValidationIssue[] {
  if (plan.status === 'IMPOSSIBLE' || !steps.some((s) => s.action === 'tool_call')) return [];
  return unboundConstraints(steps, constraints)
    .filter((c) => !explained(plan, c))
    .map((c) => ({
      code: 'UNBOUND_CONSTRAINT' as const,
      message: `the goal says "${c.words}", but no step passes ${c.values.map((v) => JSON.stringify(v)).join(' and ')}`,
      hint: `Pass ${c.values.length > 1 ? 'them' : 'it'} to a param that filters on it (${c.params.slice(0, 4).join(', ')}), or say in assumptions why "${c.words}" cannot be applied.`,
    }));
}

/**
 * Whether the goal accounts for a literal (as text): it is a constraint's value, or the user wrote it — a number or a
 * flag as a whole word ("7" is not said by "2017"), other text anywhere. What it does not account for, the planner chose.
 */
export function saidByGoal(value: string, grounding: Grounding): boolean {
  const text = value.trim().toLowerCase();
  if (text.length === 0 || grounding.constraints.some((c) => c.values.some((v) => v.trim().toLowerCase() === text)))
    return true;
  if (/^(-?\d+(\.\d+)?|true|false)$/.test(text)) return tokenize(grounding.given_text).some((t) => t.lower === text);
  return grounding.given_text.toLowerCase().includes(text);
}

/** A literal a step passes that neither the goal nor the tool's schema accounts for. */
export interface UnsaidLiteral {
  param: string;
  value: string;
}

/**
 * The literals of a step the planner chose: not a constraint's value, not the user's words, not the default or an
 * example the tool's schema gives (an allowed directory, say). When the step then returns nothing, one of these may
 * be why (a search for words the notes do not use, a status the user never named): the run re-plans once, naming them.
 */
export function unsaidLiterals(step: Pick<Step, 'params'>, tool: ToolSpec, grounding: Grounding): UnsaidLiteral[] {
  const properties = tool.parameters.properties ?? {};
  return Object.entries(step.params).flatMap(([param, value]) => {
    const schema = isRecord(properties[param]) ? (properties[param] as JsonSchema) : undefined;
    const offered = [schema?.default, ...(Array.isArray(schema?.examples) ? schema.examples : [])]
      .filter((v) => v !== undefined)
      .map((v) => String(v).toLowerCase());
    return literalValues(value)
      .filter((v) => !saidByGoal(v, grounding) && !offered.includes(v.toLowerCase()))
      .map((v) => ({ param, value: v }));
  });
}

/** The catalog tools whose rows are records of `param` ("facility_id" → facilities): where its ids come from. */
export function idProviders(param: string, catalog: readonly ToolSpec[]): ToolSpec[] {
  const base = identifierStems(param.replace(/_?ids?$/i, ''));
  if (base.length === 0) return [];
  return catalog.filter((tool) => {
    const row =
      tool.result?.type === 'array' && isRecord(tool.result.items) ? (tool.result.items as JsonSchema) : tool.result;
    const names = new Set(identifierStems(tool.name));
    return row?.properties?.id !== undefined && base.every((w) => names.has(w));
  });
}

/** An id written in the user's text, as a whole word ("SHP-0042" in "shipment SHP-0042"). */
function givenBy(text: string, value: string): boolean {
  const words = tokenize(value)
    .map((t) => t.lower)
    .join(' ');
  return (
    words.length > 0 &&
    ` ${tokenize(text)
      .map((t) => t.lower)
      .join(' ')} `.includes(` ${words} `)
  );
}

/** An example id of `schema` when `value` does not match its pattern (an id of another shape); else undefined. */
function unlike(schema: JsonSchema | undefined, value: string): string | undefined {
  const pattern = schema?.type === 'array' && isRecord(schema.items) ? (schema.items as JsonSchema) : schema;
  const example = Array.isArray(pattern?.examples)
    ? pattern.examples.find((e): e is string => typeof e === 'string')
    : undefined;
  if (typeof pattern?.pattern === 'string' && example !== undefined) {
    try {
      if (!new RegExp(pattern.pattern).test(value)) return example;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** An id param of a step given a literal the user never wrote, with an example id when it is unlike the schema's pattern. */
export interface GuessedId {
  param: string;
  value: string;
  example?: string;
}

/**
 * A step's id params given a literal the user never wrote: an id is looked up (a step returning records, then
 * `${step[N].data.*.id}`), never guessed, and never a name or a place passed as an id.
 */
export function guessedIds(step: Pick<Step, 'params'>, tool: ToolSpec, grounding: Grounding): GuessedId[] {
  // A place or a name of the goal is what an id is looked up BY, never an id itself.
  const lookupWords = new Set(
    grounding.constraints.filter((c) => c.kind === 'place' || c.kind === 'name').map((c) => c.words.toLowerCase()),
  );
  const properties = tool.parameters.properties ?? {};
  return Object.entries(step.params).flatMap(([param, value]) => {
    const schema = isRecord(properties[param]) ? (properties[param] as JsonSchema) : undefined;
    if (!isIdParam(param, schema)) return [];
    const guessed = literalValues(value).find(
      (v) =>
        !givenBy(grounding.given_text, v) || lookupWords.has(v.trim().toLowerCase()) || unlike(schema, v) !== undefined,
    );
    if (guessed === undefined) return [];
    const example = unlike(schema, guessed);
    return [{ param, value: guessed, ...(example ? { example } : {}) }];
  });
}

/** guessedIds as validation issues, each naming the tool to look the id up with. */
export function unverifiedIdIssues(
  step: Step,
  index: number,
  tool: ToolSpec,
  catalog: readonly ToolSpec[],
  grounding: Grounding,
): ValidationIssue[] {
  return guessedIds(step, tool, grounding).map(({ param, value, example }) => {
    const providers = idProviders(param, catalog).filter((p) => p.name !== tool.name);
    const lookup =
      providers.length > 0
        ? `call "${providers[0]!.name}" with what the goal says (a place, a name, a type) and pass \${step[N].data.*.id}`
        : "take it from an earlier step's data with ${step[N].data...}";
    return {
      code: 'UNVERIFIED_ID' as const,
      message: `step ${index} ("${step.id}"): param ${param} is ${JSON.stringify(value)}, an id the goal does not give and no step returned${example ? ` (ids of ${param} look like "${example}")` : ''}`,
      step_index: index,
      hint: `Look the id up: ${lookup}; a tool whose ${param} takes one id runs once per id of the list.`,
    };
  });
}
