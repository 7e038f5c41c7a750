/**
 * The constraints a goal states, each with the catalog params that can apply it: its periods (to date params), the
 * enum values it names ("rejected", "landfill"), its places (to a location param), proper names (to a param that
 * takes a name: "carried by EcoTrans AG") and amounts with a unit a number param is measured in ("at least 100 tons"
 * → min_capacity_tons). Read from the tools' param names, descriptions and schemas, so it holds for any catalog; a
 * constraint no param of the catalog can take is left out (the plan cannot be asked to apply it).
 */
import { resolveTemporalReferences } from '../domain/dates';
import { isIdParam, type GoalConstraint, type Grounding } from '../domain/grounding';
import type { JsonSchema } from '../domain/json-schema';
import { effectiveGoal, type PlanningRequest } from '../domain/request';
import type { ToolSpec } from '../domain/tool-spec';
import { contentStems, findLocations, identifierStems, isContentToken, tokenize, type Token } from '../domain/text';
import { matchCatalog, matchingEnum, paramSchemas, toolTerms } from './catalog-match';

export const DATE_FROM = /^(date_from|from_date|start_date|since|from|after|start)$/;
export const DATE_TO = /^(date_to|to_date|end_date|until|to|before|end)$/;

interface ParamRef {
  tool: ToolSpec;
  param: string;
  schema: JsonSchema;
}

function paramsOf(catalog: readonly ToolSpec[], keep: (param: string, schema: JsonSchema) => boolean): ParamRef[] {
  return catalog.flatMap((tool) =>
    paramSchemas(tool)
      .filter(([p, s]) => keep(p, s))
      .map(([param, schema]) => ({ tool, param, schema })),
  );
}

const names = (refs: readonly ParamRef[]) => refs.map((r) => `${r.tool.name}.${r.param}`);
const isText = (s: JsonSchema) =>
  s.type === 'string' && s.enum === undefined && s.format === undefined && s.pattern === undefined;
const describedAs = (param: string, schema: JsonSchema, stems: readonly string[]) => {
  const words = new Set([
    ...identifierStems(param),
    ...contentStems(typeof schema.description === 'string' ? schema.description : ''),
  ]);
  return stems.some((s) => words.has(s));
};

/** Values a free-text param names as its examples: `examples`, or "e.g. lead, asbestos, PCB" in its description. */
function exampleValues(schema: JsonSchema): string[] {
  const listed = Array.isArray(schema.examples)
    ? schema.examples.filter((e): e is string => typeof e === 'string')
    : [];
  const described =
    typeof schema.description === 'string'
      ? /\b(?:e\.g\.|such as|for example)\s*([^.;()]+)/i.exec(schema.description)?.[1]
      : undefined;
  return [
    ...listed,
    ...(described
      ?.split(/,|\bor\b/)
      .map((v) => v.trim())
      .filter((v) => v.length > 1 && !/\s/.test(v)) ?? []),
  ];
}

/** The value `token` names among a param's enum, or among the examples of a free-text param ("lead" for contaminant). */
function knownValue(schema: JsonSchema, token: Token): string | undefined {
  const fromEnum = matchingEnum(schema, token);
  if (fromEnum !== undefined || !isText(schema) || isIdParam('', schema)) return fromEnum;
  // Only a lower-case word: a capitalised one is a place or a name, found as such below.
  return token.text === token.lower ? exampleValues(schema).find((v) => v.toLowerCase() === token.lower) : undefined;
}

/** Params that take a date bound: by name, or by a date format. */
export function isDateParam(param: string, schema: JsonSchema): boolean {
  return (
    DATE_FROM.test(param) ||
    DATE_TO.test(param) ||
    ((schema.format === 'date' || schema.format === 'date-time') && /date|from|to|since|until/.test(param))
  );
}

/** Params that take a place (generic words of places, not of one catalog). */
export function isPlaceParam(param: string, schema: JsonSchema): boolean {
  return isText(schema) && describedAs(param, schema, ['location', 'city', 'place', 'region', 'country', 'town']);
}

/** Params that take a name: free text described as a name ("Carrier company name"), not an id or a path. */
export function isNameParam(param: string, schema: JsonSchema): boolean {
  return (
    isText(schema) &&
    !isIdParam(param, schema) &&
    !/path/i.test(param) &&
    describedAs(param, schema, ['name', 'company', 'person'])
  );
}

const AMOUNT =
  /\b(at least|more than|over|above|minimum of|min\.?|at most|less than|under|below|up to|within|maximum of|max\.?)?\s*(\d+(?:\.\d+)?)\s+(\p{L}+)/giu;
const AT_LEAST = /^(at least|more than|over|above|minimum of|min\.?)$/i;

/** Where in the goal's tokens the text at character `index` begins. */
function tokenPos(goal: string, index: number): number {
  return tokenize(goal.slice(0, Math.max(0, index))).length;
}

/** Consecutive capitalised words after the first word that are no place, no tool and no period: "EcoTrans AG". */
function properNames(tokens: readonly Token[], excluded: ReadonlySet<number>): Token[][] {
  const runs: Token[][] = [];
  let run: Token[] = [];
  for (const t of tokens) {
    const proper =
      t.pos > 0 && /^\p{Lu}/u.test(t.text) && isContentToken(t) && !excluded.has(t.pos) && !/\d/.test(t.text);
    if (proper && (run.length === 0 || run[run.length - 1]!.pos === t.pos - 1)) run.push(t);
    else {
      if (run.length > 0) runs.push(run);
      run = proper ? [t] : [];
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The goal's constraints that some param of `catalog` can apply, in goal order. */
export function goalConstraints(goal: string, now: string, catalog: readonly ToolSpec[]): GoalConstraint[] {
  if (goal.trim() === '') return [];
  const tokens = tokenize(goal);
  const out: GoalConstraint[] = [];
  const lower = goal.toLowerCase();

  const dateParams = paramsOf(catalog, isDateParam);
  const periods = resolveTemporalReferences(goal, now);
  const periodTokens = new Set<number>();
  for (const p of periods) {
    const at = tokenPos(goal, lower.indexOf(p.phrase.split(' ')[0]!));
    tokenize(p.phrase).forEach((_, i) => periodTokens.add(at + i));
    if (dateParams.length > 0)
      out.push({
        kind: 'period',
        words: p.phrase,
        values: [...new Set([p.start, p.end])],
        params: names(dateParams),
        at,
      });
  }

  const seenValues = new Set<string>();
  for (const token of tokens) {
    const takers = paramsOf(catalog, (_, s) => knownValue(s, token) !== undefined);
    const value = takers[0] ? knownValue(takers[0].schema, token)! : undefined;
    if (value === undefined || seenValues.has(value)) continue;
    seenValues.add(value);
    out.push({
      kind: 'value',
      words: token.text,
      values: [value],
      params: names(takers.filter((t) => knownValue(t.schema, token) === value)),
      at: token.pos,
    });
  }

  // A word naming a boolean filter before a tool's noun: "contaminated shipments" → has_contaminants = true.
  const matched = matchCatalog(tokens, catalog);
  for (const m of matched.modifiers) {
    out.push({
      kind: 'value',
      words: m.token.text,
      values: ['true'],
      params: [`${m.tool}.${m.param}`],
      at: m.token.pos,
    });
  }

  const places = findLocations(tokens);
  const placeParams = paramsOf(catalog, isPlaceParam);
  if (placeParams.length > 0)
    for (const place of places)
      out.push({ kind: 'place', words: place.text, values: [place.text], params: names(placeParams), at: place.pos });

  const nameParams = paramsOf(catalog, isNameParam);
  if (nameParams.length > 0) {
    const toolWords = new Set(matched.tools.flatMap((m) => [...toolTerms(m.tool).names, ...toolTerms(m.tool).tags]));
    // Words of an id or a code ("FAC-02", "Q3 2026") are no name.
    const coded = [...goal.matchAll(/[\p{L}\p{N}]+(?:[-_/.][\p{L}\p{N}]+)*/gu)]
      .filter((m) => /\d/.test(m[0]))
      .flatMap((m) => tokenize(m[0]).map((_, i) => tokenPos(goal, m.index) + i));
    const excluded = new Set([
      ...places.map((p) => p.pos),
      ...periodTokens,
      ...coded,
      ...tokens.filter((t) => toolWords.has(t.stem) || seenValues.has(t.lower)).map((t) => t.pos),
    ]);
    for (const run of properNames(tokens, excluded)) {
      const words = run.map((t) => t.text).join(' ');
      out.push({ kind: 'name', words, values: [words], params: names(nameParams), at: run[0]!.pos });
    }
  }

  for (const m of goal.matchAll(AMOUNT)) {
    const [, direction, number, unit] = m;
    const unitStem = contentStems(unit!)[0];
    if (!unitStem || periodTokens.has(tokenPos(goal, m.index! + m[0].indexOf(number!)))) continue;
    // "at least 100" fills a minimum, "at most 100" a maximum; a bare "100 tons" either.
    const bound = direction === undefined ? undefined : AT_LEAST.test(direction.trim()) ? 'min' : 'max';
    const takers = paramsOf(catalog, (p, s) => {
      if (s.type !== 'number' && s.type !== 'integer') return false;
      const stems = identifierStems(p);
      if (!describedAs(p, s, [unitStem])) return false;
      return bound === undefined || !stems.includes(bound === 'min' ? 'max' : 'min');
    });
    if (takers.length > 0)
      out.push({
        kind: 'amount',
        words: m[0].trim(),
        values: [number!],
        params: names(takers),
        at: tokenPos(goal, m.index!),
      });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A constraint's value as `schema` takes it: `true` for a flag, a number for an amount, else the text. */
export function typedValue(schema: JsonSchema | undefined, value: string): unknown {
  if (schema?.type === 'boolean') return value === 'true';
  if (schema?.type === 'number' || schema?.type === 'integer') return Number(value);
  return value;
}

/** What validation grounds a plan of `request` on, over the tools the request may use. */
export function groundingOf(request: PlanningRequest, catalog: readonly ToolSpec[]): Grounding {
  const allowed = request.constraints.allowed_tools;
  const tools = allowed ? catalog.filter((t) => allowed.includes(t.name)) : catalog;
  const goal = effectiveGoal(request);
  return { constraints: goalConstraints(goal, request.now, tools), given_text: goal };
}
