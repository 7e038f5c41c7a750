/**
 * The constraints a goal states, each with the catalog params that can apply it: its periods (to date params), the
 * enum values it names ("rejected", "landfill"; negated, the others: "not accepted"), its places (to a location
 * param), proper names (to a param that takes a name: "carried by EcoTrans AG"), amounts with a unit a number param
 * is measured in ("at least 100 tons" → min_capacity_tons) and counts of a tool's records ("the 5 most recent
 * shipments" → its limit). Read from the tools' param names, descriptions and schemas, so it holds for any catalog; a
 * constraint no param of the catalog can take is left out (the plan cannot be asked to apply it).
 */
import { resolveTemporalReferences } from '../domain/dates';
import { NUMBER_WORD, numberValue } from '../domain/numbers';
import { isIdParam, type GoalConstraint, type Grounding } from '../domain/grounding';
import type { JsonSchema } from '../domain/json-schema';
import { effectiveGoal, type PlanningRequest } from '../domain/request';
import type { ToolSpec } from '../domain/tool-spec';
import {
  contentStems,
  findLocations,
  identifierStems,
  isContentToken,
  stem,
  tokenize,
  type Token,
} from '../domain/text';
import { isNegated, matchCatalog, matchingEnum, paramSchemas, toolTerms } from './catalog-match';

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
  // A lower-case word in any case ("lead"), an acronym as the example spells it ("PCB"): a capitalised word is a
  // place or a name, found as such below.
  const acronym = token.text.length > 1 && token.text === token.text.toUpperCase() && token.text !== token.lower;
  return exampleValues(schema).find((v) =>
    token.text === token.lower ? v.toLowerCase() === token.lower : acronym && v === token.text,
  );
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

/** Abbreviated units, as a number param's name or description spells them in full. */
const UNIT_ABBREVIATIONS: Readonly<Record<string, readonly string[]>> = {
  t: ['ton', 'tonne'],
  kg: ['kilogram', 'kilo'],
  g: ['gram'],
  km: ['kilometer', 'kilometre'],
  h: ['hour'],
  hr: ['hour'],
  min: ['minute'],
  sec: ['second'],
  kb: ['kilobyte'],
  mb: ['megabyte'],
  gb: ['gigabyte'],
  pct: ['percent'],
};

/** The stems a unit may be written with, singular or plural, abbreviated or not ("t" → ton, tons, tonne, …). */
function unitStems(unit: string): string[] {
  const lower = unit.toLowerCase();
  const words = [lower, ...(UNIT_ABBREVIATIONS[lower.replace(/s$/, '')] ?? UNIT_ABBREVIATIONS[lower] ?? [])];
  return [...new Set(words.flatMap((w) => [w, `${w}s`, w.replace(/e?s$/, '')]).flatMap((w) => contentStems(w)))];
}

/**
 * An amount: an optional bound (words or a sign), a number (digits, "2,500", "1k", or words: "two hundred") and the
 * word after it, its unit.
 */
const AMOUNT = new RegExp(
  `(?:\\b((?:no|not) (?:more|less|fewer) than|at least|more than|over|above|minimum of|min\\.?|at most|less than|under|below|up to|within|maximum of|max\\.?)|(≥|>=|>|≤|<=|<))?\\s*` +
    `(\\b\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?(?![\\d,])|\\b\\d+(?:\\.\\d+)?(?:k\\b)?|\\b${NUMBER_WORD}(?:(?:[\\s-]+|\\s+and\\s+)${NUMBER_WORD})*\\b)\\s*(\\p{L}+)`,
  'giu',
);
/** The directions of a lower bound ("no more than" is an upper one). */
const AT_LEAST = /^((?:no|not) (?:less|fewer) than|at least|more than|over|above|minimum of|min\.?|≥|>=|>)$/i;

/** "the 5 most recent shipments", "top three facilities", "first 10 loans": a count and the noun it counts. */
const COUNT = new RegExp(
  `\\b(?:(?:top|first|latest|newest|last|most recent)\\s+(\\d+|${NUMBER_WORD})|(\\d+|${NUMBER_WORD})\\s+(?:most recent|latest|newest|last|first))\\s+(\\p{L}+)`,
  'giu',
);

/** A param that limits how many rows a tool returns: named so, or described as a maximum number of them. */
function isLimitParam(param: string, schema: JsonSchema): boolean {
  if (schema.type !== 'integer' && schema.type !== 'number') return false;
  const described = typeof schema.description === 'string' ? schema.description : '';
  return (
    /^(limit|max_?results|max_?rows|max_?items|page_?size|top|count)$/i.test(param) ||
    /\bmaximum number of\b/i.test(described)
  );
}

/** A word with digits, joined by dashes, slashes or dots: an id or a code ("FAC-02", "SHP-0001", "Q3"). */
const CODED = /[\p{L}\p{N}]+(?:[-_/.][\p{L}\p{N}]+)*/gu;
const codesOf = (goal: string) => [...goal.matchAll(CODED)].filter((m) => /\d/.test(m[0]));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pattern an id param's values (or its array's items) must match, if its schema gives one. */
function idPattern(schema: JsonSchema): RegExp | undefined {
  const item = schema.type === 'array' && typeof schema.items === 'object' ? (schema.items as JsonSchema) : schema;
  if (typeof item.pattern !== 'string') return undefined;
  try {
    return new RegExp(item.pattern, 'u');
  } catch {
    return undefined;
  }
}

/**
 * Places: a capitalised word after "in", "at" or "near" (findLocations), also after "at the" ("at the Hamburg
 * incineration plant"), after "to" or "from" when it is one word ("brought to Bremen"; "from EcoTrans AG" is a
 * name), and after "and" or "or" following a place ("in Hannover and Bremen"). Words of a period or an enum value are none ("in Transit").
 */
function placesOf(tokens: readonly Token[], excluded: ReadonlySet<number>): Token[] {
  const capitalised = (t: Token | undefined) => t !== undefined && /^\p{Lu}/u.test(t.text);
  const found = new Map(findLocations(tokens).map((t) => [t.pos, t]));
  for (let i = 1; i < tokens.length; i++) {
    const before = tokens[i - 1]!.lower;
    const article = before === 'the' && i > 1 ? tokens[i - 2]!.lower : undefined;
    const word = tokens[i]!;
    const next = tokens[i + 1];
    if (!capitalised(word) || found.has(word.pos)) continue;
    const alone = !(capitalised(next) && next!.pos === word.pos + 1);
    const listed = (before === 'and' || before === 'or') && found.has(word.pos - 2);
    if (['in', 'at', 'near'].includes(article ?? '') || (alone && ['to', 'from'].includes(article ?? before)) || listed)
      found.set(word.pos, word);
  }
  return [...found.values()].filter((t) => !excluded.has(t.pos)).sort((a, b) => a.pos - b.pos);
}

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
    // The phrase as the resolver spells it (spaces collapsed), else its first word.
    const index = lower.indexOf(p.phrase);
    const at = tokenPos(goal, index >= 0 ? index : lower.indexOf(p.phrase.split(' ')[0]!));
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
  // An enum value of several words, written with spaces or in another case ("in transit", "IN_TRANSIT" →
  // in_transit): the goal's words, as the enum spells them. Its words are consumed (no place "Transit").
  const phraseTokens = new Set<number>();
  for (const { tool, param, schema } of paramsOf(catalog, (_, s) => s.enum !== undefined)) {
    for (const value of schema.enum!) {
      const words = typeof value === 'string' ? value.split(/[\s_-]+/).filter(Boolean) : [];
      if (words.length < 2) continue;
      const found = new RegExp(
        `(?<![\\p{L}\\p{N}])${words.map(escapeRegExp).join('[\\s_-]+')}(?![\\p{L}\\p{N}])`,
        'iu',
      ).exec(goal);
      if (!found) continue;
      const at = tokenPos(goal, found.index);
      tokenize(found[0]).forEach((_, i) => phraseTokens.add(at + i));
      seenValues.add(value as string);
      // Negated ("not fully booked"), it asks for the enum's other values.
      const negated = isNegated(
        tokens,
        tokens.findIndex((t) => t.pos === at),
      );
      for (const v of negated ? schema.enum!.filter((e) => e !== value) : [value]) {
        const known = out.find((k) => k.kind === 'value' && k.values[0] === v && k.at === at);
        if (known) known.params.push(`${tool.name}.${param}`);
        else out.push({ kind: 'value', words: found[0], values: [v as string], params: [`${tool.name}.${param}`], at });
      }
    }
  }
  // An id the user wrote ("facility FAC-04"): the id params whose schema's pattern it matches take it as it is.
  for (const m of codesOf(goal)) {
    const takers = paramsOf(catalog, (p, s) => isIdParam(p, s) && idPattern(s)?.test(m[0]) === true);
    if (takers.length > 0)
      out.push({ kind: 'value', words: m[0], values: [m[0]], params: names(takers), at: tokenPos(goal, m.index) });
  }
  tokens.forEach((token, i) => {
    if (phraseTokens.has(token.pos)) return;
    const takers = paramsOf(catalog, (_, s) => knownValue(s, token) !== undefined);
    const value = takers[0] ? knownValue(takers[0].schema, token)! : undefined;
    if (value === undefined || seenValues.has(value)) return;
    seenValues.add(value);
    const own = takers.filter((t) => knownValue(t.schema, token) === value);
    // A negated enum value asks for the others ("not accepted": rejected, pending), each a value of its own.
    const others = isNegated(tokens, i) && own[0]!.schema.enum ? own[0]!.schema.enum.filter((v) => v !== value) : [];
    for (const v of others.length > 0 ? (others as string[]) : [value])
      out.push({
        kind: 'value',
        words: token.text,
        values: [v],
        params: names(own.filter((t) => t.schema.enum === undefined || t.schema.enum.includes(v))),
        at: token.pos,
      });
  });

  // A word naming a boolean filter about a tool's noun: "contaminated shipments" → has_contaminants = true, "not
  // contaminated" → false.
  const matched = matchCatalog(tokens, catalog);
  for (const m of matched.modifiers) {
    out.push({
      kind: 'value',
      words: m.token.text,
      values: [String(m.value)],
      params: [`${m.tool}.${m.param}`],
      at: m.token.pos,
    });
  }

  // Words of an id or a code ("FAC-02", "Q3 2026") are no place and no name.
  const coded = codesOf(goal).flatMap((m) => tokenize(m[0]).map((_, i) => tokenPos(goal, m.index) + i));
  const places = placesOf(tokens, new Set([...phraseTokens, ...periodTokens, ...coded]));
  const placeParams = paramsOf(catalog, isPlaceParam);
  if (placeParams.length > 0)
    for (const place of places)
      out.push({ kind: 'place', words: place.text, values: [place.text], params: names(placeParams), at: place.pos });

  const nameParams = paramsOf(catalog, isNameParam);
  if (nameParams.length > 0) {
    const toolWords = new Set(matched.tools.flatMap((m) => [...toolTerms(m.tool).names, ...toolTerms(m.tool).tags]));
    const excluded = new Set([...places.map((p) => p.pos), ...periodTokens, ...phraseTokens, ...coded]);
    // A tool's word or a value inside a name is part of it ("Rhein Cargo GmbH"); alone it is no name ("HIGH risk").
    const plain = (t: Token) => toolWords.has(t.stem) || seenValues.has(t.lower);
    for (const run of properNames(tokens, excluded).filter((r) => !r.every(plain))) {
      const words = run.map((t) => t.text).join(' ');
      // A param that lists its values by example ("e.g. lead, asbestos, PCB") takes a name only among them.
      const takers = nameParams.filter((r) => {
        const examples = exampleValues(r.schema);
        return examples.length === 0 || examples.some((e) => e.toLowerCase() === words.toLowerCase());
      });
      if (takers.length > 0) out.push({ kind: 'name', words, values: [words], params: names(takers), at: run[0]!.pos });
    }
  }

  for (const m of goal.matchAll(AMOUNT)) {
    const [, words, sign, number, unit] = m;
    const direction = words ?? sign;
    const stems = unitStems(unit!);
    const value = numberValue(number!);
    if (stems.length === 0 || value === undefined) continue;
    if (periodTokens.has(tokenPos(goal, m.index + m[0].indexOf(number!)))) continue;
    // "at least 100" fills a minimum, "at most 100" a maximum; a bare "100 tons" either.
    const bound = direction === undefined ? undefined : AT_LEAST.test(direction.trim()) ? 'min' : 'max';
    const takers = paramsOf(catalog, (p, s) => {
      if (s.type !== 'number' && s.type !== 'integer') return false;
      if (!describedAs(p, s, stems)) return false;
      return bound === undefined || !identifierStems(p).includes(bound === 'min' ? 'max' : 'min');
    });
    if (takers.length > 0)
      out.push({
        kind: 'amount',
        words: m[0].trim(),
        values: [String(value)],
        params: names(takers),
        at: tokenPos(goal, m.index),
      });
  }
  // "the 5 most recent shipments", "top three facilities": how many of a tool's records, for its param that limits them.
  for (const m of goal.matchAll(COUNT)) {
    const count = numberValue(m[1] ?? m[2]!);
    const noun = stem(m[3]!);
    const takers = paramsOf(catalog, isLimitParam).filter((r) => toolTerms(r.tool).names.has(noun));
    if (count !== undefined && count > 0 && Number.isInteger(count) && takers.length > 0)
      out.push({
        kind: 'amount',
        words: m[0],
        values: [String(count)],
        params: names(takers),
        at: tokenPos(goal, m.index),
      });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A constraint's value as `schema` takes it: `true` for a flag, a number for an amount, a list of one for a list, else the text. */
export function typedValue(schema: JsonSchema | undefined, value: string): unknown {
  if (schema?.type === 'array')
    return [typedValue(typeof schema.items === 'object' ? (schema.items as JsonSchema) : undefined, value)];
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

/**
 * The positions of the words that only say what kind of record an id the goal gives is ("facility FAC-04": the word
 * before an id a `facility_id` takes): they name no tool to look the id up with, as the id is given.
 */
export function idNounPositions(tokens: readonly Token[], constraints: readonly GoalConstraint[]): Set<number> {
  const out = new Set<number>();
  for (const k of constraints) {
    const before = tokens.find((t) => t.pos === k.at - 1);
    if (k.kind !== 'value' || !before) continue;
    const bases = k.params.map((p) => /^(.+)_ids?$/.exec(p.split('.').pop()!)?.[1]).filter((b) => b !== undefined);
    if (bases.some((b) => identifierStems(b).includes(before.stem))) out.add(before.pos);
  }
  return out;
}
