/**
 * Which catalog tools a goal talks about, by keyword overlap: a word that matches a tool's name scores 3, one that
 * matches a tag scores 2; a tool needs 3 to be chosen. A word that modifies a tool's noun and names one of its
 * boolean filters ("contaminated shipments" → shipments.has_contaminants) is consumed by that filter and does not
 * select a tool of its own. A match on one word of a name of several words is weak (strongMatches) when that word is
 * also in another tool's name ("file": read_file, write_file, …) or is only the goal's opening verb ("Move the budget
 * meeting" shares nothing it works on with move_file).
 */
import type { JsonSchema } from '../domain/json-schema';
import type { ToolSpec } from '../domain/tool-spec';
import { contentTokens, identifierStems, isContentToken, stem, tokenize, type Token } from '../domain/text';

export const SELECTION_THRESHOLD = 3;

export interface ToolMatch {
  tool: ToolSpec;
  score: number;
  /** Position of the first word that matched, for ordering. */
  firstPos: number;
}

export interface BooleanModifier {
  tool: string;
  param: string;
  token: Token;
  /** False when the goal negates the word ("not contaminated", "without contaminants"). */
  value: boolean;
}

/** What a goal's words name in a catalog: the tools, and the boolean filters named just before a tool's noun. */
export interface CatalogMatches {
  tools: ToolMatch[];
  modifiers: BooleanModifier[];
}

/**
 * What matching reads of a tool, derived once per spec and kept while the spec lives: a worker's catalogs hold their
 * specs for its life, and one plan's analysis, planning and critique match the goal's clauses against every tool
 * dozens of times (re-deriving these each time was most of what the planning activities allocated).
 */
export interface ToolTerms {
  /** Stems of the tool's name. */
  names: ReadonlySet<string>;
  tags: ReadonlySet<string>;
  /** The stems it is known by: its name, tags and the content words of its description. */
  vocabulary: ReadonlySet<string>;
  params: readonly (readonly [string, JsonSchema])[];
  /** Its boolean params, each with the stems of its name ("has_contaminants" → contamin, as "contaminated" stems). */
  booleans: readonly { param: string; stems: ReadonlySet<string> }[];
  /** Its params with an enum, whose values a goal may name ("accepted"). */
  enums: readonly (readonly [string, JsonSchema])[];
  /** Its params named `<x>_id` or `<x>_ids` (`many`), with `x` and its stem: what another tool's results can fill. */
  idParams: readonly { param: string; schema: JsonSchema; base: string; baseStem: string; many: boolean }[];
  /** The fields of its result's rows (of the array's items, or of the object it returns). */
  rowFields: ReadonlySet<string>;
}

const termsBySpec = new WeakMap<ToolSpec, ToolTerms>();

export function toolTerms(tool: ToolSpec): ToolTerms {
  let terms = termsBySpec.get(tool);
  if (terms) return terms;
  const names = new Set(identifierStems(tool.name));
  const tags = new Set(tool.tags.map(stem));
  const params = Object.entries(tool.parameters.properties ?? {}).filter(
    (entry): entry is [string, JsonSchema] => typeof entry[1] === 'object',
  );
  terms = {
    names,
    tags,
    vocabulary: new Set([...names, ...tags, ...contentTokens(tokenize(tool.description)).map((t) => t.stem)]),
    params,
    booleans: params
      .filter(([, s]) => s.type === 'boolean')
      .map(([param]) => ({ param, stems: new Set(identifierStems(param)) })),
    enums: params.filter(([, s]) => s.enum !== undefined),
    idParams: params.flatMap(([param, schema]) => {
      const m = /^(.+)_ids?$/.exec(param);
      return m ? [{ param, schema, base: m[1]!, baseStem: stem(m[1]!), many: param.endsWith('_ids') }] : [];
    }),
    rowFields: rowFieldsOf(tool),
  };
  termsBySpec.set(tool, terms);
  return terms;
}

function rowFieldsOf(tool: ToolSpec): Set<string> {
  const data = tool.result;
  const row = data?.type === 'array' && typeof data.items === 'object' ? (data.items as JsonSchema) : data;
  return new Set(Object.keys(row?.properties ?? {}));
}

/**
 * Words for the same state of a record, as statuses are spelled in any domain (orders, tickets, loads, loans): a goal
 * may say "failed" of what a schema's enum calls `rejected`. English, not one catalog's: a group counts only where
 * an enum has one of its words as a value.
 */
const STATE_SYNONYMS: readonly (readonly string[])[] = [
  ['accepted', 'approved', 'passed', 'cleared'],
  ['rejected', 'refused', 'declined', 'denied', 'failed'],
  ['pending', 'awaiting', 'waiting', 'outstanding', 'undecided'],
  ['delivered', 'arrived'],
  ['completed', 'finished', 'done'],
  ['cancelled', 'canceled', 'aborted'],
  ['closed', 'resolved'],
];
/** Per stem of a state word, the stems of its group. */
const STATE_GROUPS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  STATE_SYNONYMS.flatMap((group) => {
    const stems = new Set(group.map(stem));
    return [...stems].map((s) => [s, stems] as const);
  }),
);

/**
 * The value of `schema`'s enum that `token` names: the same stem ("accepted" for `accepted`), else, when none has
 * it, a word for the same state ("failed" for `rejected`, "arrived" for `delivered`).
 */
export function matchingEnum(schema: JsonSchema, token: Token): string | undefined {
  const values = schema.enum?.filter((v): v is string => typeof v === 'string');
  if (!values) return undefined;
  const same = values.find((v) => stem(v) === token.stem);
  if (same !== undefined) return same;
  const group = STATE_GROUPS.get(token.stem);
  return group && values.find((v) => group.has(stem(v)));
}

export function paramSchemas(tool: ToolSpec): readonly (readonly [string, JsonSchema])[] {
  return toolTerms(tool).params;
}

/**
 * Boolean filters named by a word just before the tool's noun ("contaminated shipments"), after it and "with"
 * ("shipments with contaminants") or in a clause about it ("shipments that were contaminated"); negated, the filter
 * is false ("non-contaminated shipments", "shipments without contaminants", "… that were not contaminated").
 * `tokens` in goal order (as tokenize gives them). Allocates little but its answer: one plan's activities call it
 * about fifty times, and on a cold worker (code not yet optimized) its lookups were one of the larger sources of
 * short-lived objects.
 */
function findBooleanModifiers(tokens: readonly Token[], catalog: readonly ToolSpec[]): BooleanModifier[] {
  const out: BooleanModifier[] = [];
  // Index loops throughout: until V8 optimizes this, each for-of step allocates its iterator result.
  for (let k = 0; k < catalog.length; k++) {
    const tool = catalog[k]!;
    const { names, tags, booleans } = toolTerms(tool);
    if (booleans.length === 0) continue;
    for (let i = 0; i < tokens.length; i++) {
      const noun = tokens[i]!;
      // The tool's noun, or a tag of it ("contaminated loads" are shipments).
      if (!names.has(noun.stem) && !tags.has(noun.stem)) continue;
      for (let b = 0; b < booleans.length; b++) {
        const { param, stems } = booleans[b]!;
        // The two words before the noun in the goal: in order, they are among the two tokens before it.
        const before = wordBefore(tokens, i, noun.pos - 2, stems) ?? wordBefore(tokens, i, noun.pos - 1, stems);
        if (before) {
          const negated = tokens.some((t) => t.pos === before.pos - 1 && NEGATIONS.has(t.lower));
          out.push({ tool: tool.name, param, token: before, value: !negated });
          continue;
        }
        const after = wordAfterWith(tokens, i, stems) ?? wordInClause(tokens, i, stems);
        if (after) out.push({ tool: tool.name, param, token: after.token, value: after.value });
      }
    }
  }
  return out;
}

/** Words that negate the word after them ("not contaminated", "non-contaminated", "with no contaminants"). */
const NEGATIONS: ReadonlySet<string> = new Set(['not', 'no', 'non', 'never', 'without']);
/** Words that begin a clause about the noun before them, and the verbs it may open with ("that were", "which have been"). */
const RELATIVES: ReadonlySet<string> = new Set(['that', 'which', 'who', 'where']);
const AUXILIARIES: ReadonlySet<string> = new Set([
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'has',
  'have',
  'had',
  'got',
]);
/** How far after its noun a clause about it may begin ("shipments to Bremen last week that …"). */
const CLAUSE_REACH = 4;

interface ModifierWord {
  token: Token;
  value: boolean;
}

/** "shipments with contaminants", "with no contaminants", "without contaminants": the word after the noun at index `i`. */
function wordAfterWith(tokens: readonly Token[], i: number, stems: ReadonlySet<string>): ModifierWord | undefined {
  const next = tokens[i + 1];
  if (next?.lower !== 'with' && next?.lower !== 'without') return undefined;
  const no = tokens[i + 2]?.lower === 'no' && next.lower === 'with' ? 1 : 0;
  const word = tokens[i + 2 + no];
  if (!word || word.pos !== next.pos + 1 + no || !stems.has(word.stem)) return undefined;
  return { token: word, value: next.lower === 'with' && no === 0 };
}

/** A verb that may begin what is said of a noun: "were", "have", "weren't". */
const isAuxiliary = (t: Token) => AUXILIARIES.has(t.lower) || /n['’]t$/.test(t.lower);

/** Words that may stand between a negation and what it negates ("not yet inspected", "not been accepted"). */
const BETWEEN_NEGATION: ReadonlySet<string> = new Set([...AUXILIARIES, 'yet', 'ever']);

/**
 * Whether the word at index `i` of `tokens` is negated: "not accepted", "weren't delivered", "not yet inspected",
 * "never approved" (a negation at most two words before it, with nothing but such verbs between).
 */
export function isNegated(tokens: readonly Token[], i: number): boolean {
  for (let j = i - 1; j >= 0 && j >= i - 3 && tokens[j]!.pos === tokens[j + 1]!.pos - 1; j--) {
    const t = tokens[j]!;
    if (t.lower === 'not' || t.lower === 'never' || t.lower === 'non' || /n['’]t$/.test(t.lower)) return true;
    if (!BETWEEN_NEGATION.has(t.lower)) return false;
  }
  return false;
}

/**
 * "shipments that were (not) contaminated", "orders weren't paid": what is said of the noun at index `i`, by a
 * clause beginning close after it or by the verb right after it.
 */
function wordInClause(tokens: readonly Token[], i: number, stems: ReadonlySet<string>): ModifierWord | undefined {
  const noun = tokens[i]!;
  let j = i + 1;
  const next = tokens[j];
  if (!(next && next.pos === noun.pos + 1 && isAuxiliary(next))) {
    while (j < tokens.length && tokens[j]!.pos <= noun.pos + CLAUSE_REACH && !RELATIVES.has(tokens[j]!.lower)) j++;
    if (j >= tokens.length || !RELATIVES.has(tokens[j]!.lower)) return undefined;
    j++;
  }
  let negated = false;
  for (let k = j; k < tokens.length && tokens[k]!.pos === tokens[k - 1]!.pos + 1; k++) {
    const t = tokens[k]!;
    if (stems.has(t.stem)) return { token: t, value: !negated };
    if (!isAuxiliary(t) && !NEGATIONS.has(t.lower)) return undefined;
    negated ||= NEGATIONS.has(t.lower) || /n['’]t$/.test(t.lower);
  }
  return undefined;
}

/** The token at goal position `pos` among the two before index `i`, if its stem is one of `stems`. */
function wordBefore(tokens: readonly Token[], i: number, pos: number, stems: ReadonlySet<string>): Token | undefined {
  for (let j = Math.max(0, i - 2); j < i; j++) {
    const t = tokens[j]!;
    if (t.pos === pos && stems.has(t.stem)) return t;
  }
  return undefined;
}

/**
 * The tools `tokens` (in goal order) name, scored by their names (3) and tags (2) and ordered by the first word that
 * matched, and the boolean modifiers found on the way (a modifier's word names no tool: "contaminated shipments" is
 * the shipments tool filtered, not a second tool). Both from one call, as the analysis and the planner need both.
 */
export function matchCatalog(tokens: readonly Token[], catalog: readonly ToolSpec[]): CatalogMatches {
  const modifiers = findBooleanModifiers(tokens, catalog);
  const consumed = modifiers.length > 0 ? new Set(modifiers.map((m) => m.token.pos)) : undefined;
  // Each distinct stem of the content words with the position of its first word, as two arrays: scanned once per
  // catalog tool. (Index loops, as in findBooleanModifiers.)
  const seen = new Set<string>();
  const stems: string[] = [];
  const firstPositions: number[] = [];
  for (let t = 0; t < tokens.length; t++) {
    const w = tokens[t]!;
    if (!isContentToken(w) || consumed?.has(w.pos) || seen.has(w.stem)) continue;
    seen.add(w.stem);
    stems.push(w.stem);
    firstPositions.push(w.pos);
  }
  const matches: ToolMatch[] = [];
  for (let k = 0; k < catalog.length; k++) {
    const tool = catalog[k]!;
    const { names, tags } = toolTerms(tool);
    let score = 0;
    let firstPos = Infinity;
    for (let i = 0; i < stems.length; i++) {
      const weight = names.has(stems[i]!) ? 3 : tags.has(stems[i]!) ? 2 : 0;
      if (weight === 0) continue;
      score += weight;
      firstPos = Math.min(firstPos, firstPositions[i]!);
    }
    if (score >= SELECTION_THRESHOLD) matches.push({ tool, score, firstPos });
  }
  return {
    tools: matches.sort((a, b) => a.firstPos - b.firstPos || a.tool.name.localeCompare(b.tool.name)),
    modifiers,
  };
}

/**
 * The matches that are strong enough for a tool to join a plan on them: the goal names two of its words (name or
 * tags), or a word of its name that no other tool's name has and that is more than the opening verb of a name of
 * several words. One shared word is no reason to run a tool ("What files are in the meetings folder?" names no *_file tool;
 * "Move the budget review meeting to Friday" is not move_file). `tokens` in goal order, as tokenize gives them.
 */
export function strongMatches(
  matches: readonly ToolMatch[],
  tokens: readonly Token[],
  catalog: readonly ToolSpec[],
): ToolMatch[] {
  const content = tokens.filter(isContentToken);
  const opening = content[0]?.pos === 0 ? content[0].stem : undefined;
  const stems = new Set(content.map((t) => t.stem));
  // The clause of each content word: two words name a tool together only in one clause ("Read the notes and text
  // them to Dana" names no read_text_file).
  const clauses = clausesOf(tokens);
  const inOneClause = (words: readonly string[]) =>
    clauses.some((clause) => words.filter((w) => clause.has(w)).length >= 2);
  return matches.filter(({ tool }) => {
    const { names, tags } = toolTerms(tool);
    const named = [...names].filter((n) => stems.has(n));
    const tagged = [...tags].filter((t) => stems.has(t) && !names.has(t));
    if (named.length + tagged.length >= 2 && inOneClause([...named, ...tagged])) return true;
    const [word] = named;
    if (word === undefined || catalog.some((other) => other !== tool && toolTerms(other).names.has(word))) return false;
    return names.size === 1 || word !== opening;
  });
}

/** Words that join the clauses of a goal, as tokens show them (commas are gone). */
const CLAUSE_JOINS: ReadonlySet<string> = new Set(['and', 'then']);

/** The stems of the content words of each clause of `tokens`. */
function clausesOf(tokens: readonly Token[]): Set<string>[] {
  const clauses: Set<string>[] = [new Set()];
  for (const t of tokens) {
    if (CLAUSE_JOINS.has(t.lower)) clauses.push(new Set());
    else if (isContentToken(t)) clauses[clauses.length - 1]!.add(t.stem);
  }
  return clauses;
}
