/**
 * Requirements analysis by rules: the analyzer used when no LLM is configured. It resolves dates, finds the tools,
 * places and filter values a goal names, writes abstract requirement steps (values removed, services kept:
 * "Fetch shipments filtered by date range"), and asks a clarifying question with concrete options when the goal is
 * empty or too vague to plan ("Add validation"). The options for a vague word come from a lexicon: the generic one
 * here plus the one the catalog's pack registered (its domain's wording).
 */
import { resolveTemporalReferences } from '../../domain/dates';
import { effectiveGoal } from '../../domain/request';
import {
  RequirementsSchema,
  type Clarification,
  type ClarificationLexicon,
  type Intent,
  type Requirements,
} from '../../domain/requirements';
import type { ToolSpec } from '../../domain/tool-spec';
import { matchCatalog, matchingEnum, paramSchemas, strongMatches, toolTerms } from '../catalog-match';
import type { RequirementsAnalysisInput, RequirementsAnalysisResult, RequirementsAnalyzer } from '../types';
import { contentTokens, findLocations, splitClauses, stem, tokenize, type Token } from '../../domain/text';
import { goalConstraints } from '../goal-constraints';
import { folderListing } from '../folder-listing';

const CUSTOM_OPTION = 'Something else (describe it)';

/** Generic objects that need a kind before anyone can plan them ("Add validation": which validation?). */
const GENERIC_LEXICON: ClarificationLexicon = {
  validation: {
    question: 'What type of validation should I add?',
    options: ['Email format validation', 'Phone number validation', 'Required field validation'],
  },
  test: {
    question: 'What kind of tests should I write?',
    options: ['Unit tests', 'Integration tests', 'End-to-end tests'],
  },
  log: {
    question: 'What should be logged?',
    options: ['Incoming requests', 'Errors with stack traces', 'Audit events (who changed what)'],
  },
  cache: {
    question: 'What should be cached?',
    options: ['Database query results', 'HTTP responses', 'Computed values in memory'],
  },
};

/**
 * Words that ask to see data or an answer, whatever the data, by group: each test below is a union of groups, so
 * each word is listed once. All are lower case.
 */
const DATA_WORDS = {
  fetching: ['get', 'list', 'show', 'find', 'fetch', 'give', 'display'],
  analysing: ['analyze', 'analyse'],
  /** "Collect the relevant code", "Pull together the notes": bringing data into one place. */
  gathering: ['collect', 'gather', 'pull', 'compile', 'assemble', 'grab'],
  /** Openings of a query ("Count the loads", "From shipments, ..."). */
  querying: ['count', 'search', 'from'],
  inspecting: ['check', 'look', 'review'],
  /** "Let me see", "Tell me". */
  seeingOrTelling: ['see', 'tell'],
  reporting: ['return', 'report'],
  summarising: ['summarize', 'summarise', 'compare'],
  questionWords: ['what', 'which', 'who', 'how', 'why', 'when', 'where'],
  auxiliaries: ['did', 'does', 'do', 'is', 'are', 'can', 'could', 'was', 'were', 'has', 'have'],
} as const satisfies Record<string, readonly string[]>;

/** Verbs that only hold a constraint on what was asked for ("keep it under 1200 tokens", "limit it to 50 rows"). */
const LIMITING_VERBS = new Set(['keep', 'limit', 'cap', 'stay', 'restrict', 'trim']);

/** Text that starts with one of `words` as a whole word, in any case. */
function openingWith(...words: readonly string[]): RegExp {
  return new RegExp(`^(${words.join('|')})\\b`, 'i');
}

const {
  fetching,
  analysing,
  gathering,
  querying,
  inspecting,
  seeingOrTelling,
  reporting,
  summarising,
  questionWords,
  auxiliaries,
} = DATA_WORDS;

/** Words that ask to see data, whatever the data: they say nothing about which tool does a clause. */
export const PRESENTATION_VERBS = new Set<string>([
  ...fetching,
  ...seeingOrTelling,
  ...reporting,
  ...analysing,
  ...gathering,
]);
const QUESTION_START = openingWith(...questionWords, ...auxiliaries);
const QUERY_START = openingWith(...fetching, ...querying, ...analysing);
const CONFIRMATION = /^(yes|no|ok|okay|sure|confirm(ed)?|approve[d]?|go ahead)\b[.!]*$/i;

function clarification(goal: string, catalog: readonly ToolSpec[], lexicon: ClarificationLexicon): Clarification {
  if (goal.length === 0) {
    const examples = catalog.slice(0, 3).map((t) => `Query ${t.name}: ${t.description}`);
    return {
      question: 'What would you like me to plan?',
      options: [...examples, CUSTOM_OPTION].slice(-4),
      default_option: 0,
    };
  }
  const byStem = new Map(Object.entries({ ...GENERIC_LEXICON, ...lexicon }).map(([word, q]) => [stem(word), q]));
  const known = contentTokens(tokenize(goal))
    .map((t) => byStem.get(t.stem))
    .find(Boolean);
  if (known) return { question: known.question, options: [...known.options, CUSTOM_OPTION], default_option: 0 };
  // Real alternatives: the different data the catalog holds, each as its tool says it.
  return {
    question: `"${goal}" is too vague to plan. Which data should it cover?`,
    options: [...catalog.slice(0, 3).map((t) => t.description), CUSTOM_OPTION],
    default_option: 0,
  };
}

/** Whether the goal is a question ("When is the contract due?", "Which sites …"): it says what it wants to know. */
export function asksQuestion(goal: string): boolean {
  const text = goal.trim();
  return text.endsWith('?') || QUESTION_START.test(text);
}

function detectIntent(goal: string, toolsNamed: number): { type: Intent; confidence: number } {
  const text = goal.trim();
  if (text.length === 0) return { type: 'command', confidence: 0 };
  if (CONFIRMATION.test(text)) return { type: 'confirmation', confidence: 0.9 };
  if (/^\d+$/.test(text)) return { type: 'clarification', confidence: 0.8 };
  const asks = asksQuestion(text);
  if (toolsNamed > 0 && (asks || QUERY_START.test(text))) return { type: 'query', confidence: 0.9 };
  if (asks) return { type: 'question', confidence: 0.85 };
  if (toolsNamed > 0) return { type: 'query', confidence: 0.7 };
  return { type: 'command', confidence: 0.7 };
}

/**
 * Clause → abstract step with the service named and the values gone ("Fetch shipments filtered by date range").
 * `constrained`: the lower-case words of the whole goal's constraints ("Bremen" is a place in "shipments to Hamburg
 * and Bremen", though not in the clause "Bremen last week" alone); `named`: the tools the whole goal names strongly.
 */
function abstractStep(
  clause: string,
  catalog: readonly ToolSpec[],
  nowIso: string,
  constrained: ReadonlySet<string>,
  named: ReadonlySet<ToolSpec>,
): { step: string; capability?: string } | undefined {
  const tokens = tokenize(clause);
  const matched = matchCatalog(tokens, catalog);
  // A tool does the clause if the clause or the goal names it strongly: "text the action items to Dana" is not
  // read_text_file's work ("Read the notes and text …" names no read_text_file), "contaminants found in them" is
  // contaminants-detected's in a goal that names it.
  const strong = new Set(strongMatches(matched.tools, tokens, catalog).map((m) => m.tool));
  const tools = matched.tools.map((m) => m.tool).filter((t) => strong.has(t) || named.has(t));
  if (tools.length > 0) {
    const filters = new Set<string>();
    if (resolveTemporalReferences(clause, nowIso).length > 0) filters.add('date range');
    if (findLocations(tokens).length > 0) filters.add('location');
    for (const m of matched.modifiers) filters.add(m.param.replace(/_/g, ' '));
    for (const tool of tools) {
      for (const [param, schema] of toolTerms(tool).enums) {
        if (tokens.some((t) => matchingEnum(schema, t) !== undefined)) filters.add(param.replace(/_/g, ' '));
      }
    }
    const names = tools.map((t) => t.name).join(' and ');
    return { step: `Fetch ${names} from the catalog${filters.size ? ` filtered by ${[...filters].join(', ')}` : ''}` };
  }
  // A place in a clause that asks for data asks for what is there ("What is in Hannover?"); in an action no tool does
  // ("Book a flight to München"), it is where that action would happen.
  const asks = asksForData(clause) || QUESTION_START.test(clause) || clause.trim().endsWith('?');
  if (findLocations(tokens).length > 0 && asks) return { step: 'Find records by location' };
  const words = contentTokens(tokens);
  if (words.length === 0 || words.every((w) => PRESENTATION_VERBS.has(w.lower))) return undefined;
  // A clause that only states constraints ("within 2000 tokens", "Bremen last week", "keep it under 1200 tokens")
  // asks for no action of its own.
  const inClause = constrainedWords(clause, nowIso, catalog);
  const isConstraint = (w: Token) => constrained.has(w.lower) || inClause.has(w.lower);
  if (words.every((w) => isConstraint(w) || (LIMITING_VERBS.has(w.lower) && words.some(isConstraint))))
    return undefined;
  const text = clause
    .replace(/\$\{[^}]*\}?/g, 'a value')
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, 'a date')
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .replace(/"[^"]*"|'[^']*'/g, 'a value')
    .replace(/[?.!]+$/, '')
    .trim();
  const step = text.charAt(0).toUpperCase() + text.slice(1);
  // The capability keeps the user's own words ("Order 50 new bins"): it is what a plan names as missing.
  const said = clause.replace(/[?.!]+$/, '').trim();
  return { step, capability: said.charAt(0).toUpperCase() + said.slice(1) };
}

/** The lower-case words of the constraints `text` states. */
function constrainedWords(text: string, nowIso: string, catalog: readonly ToolSpec[]): Set<string> {
  return new Set(goalConstraints(text, nowIso, catalog).flatMap((c) => tokenize(c.words).map((t) => t.lower)));
}

/** Openings that ask to see data, whatever the data ("Check the reports", "Look into the problem loads"). */
const ASKS_TO_SEE = openingWith(...fetching, ...inspecting, ...seeingOrTelling);

/**
 * Whether the goal names something to plan by: a tool, place, name, date, constraint or a folder the catalog can
 * list ("the archive folder"). A proper noun after the first word ("for Hamburg", "by EcoTrans") names something, as
 * a place does.
 */
export function isPinned(text: string, catalog: readonly ToolSpec[], nowIso: string): boolean {
  const tokens = tokenize(text);
  return (
    tokens.slice(1).some((t) => t.text.length > 1 && /^\p{Lu}/u.test(t.text)) ||
    matchCatalog(tokens, catalog).tools.length > 0 ||
    findLocations(tokens).length > 0 ||
    resolveTemporalReferences(text, nowIso).length > 0 ||
    goalConstraints(text, nowIso, catalog).length > 0 ||
    folderListing(text, catalog) !== undefined
  );
}

/**
 * Too little to plan: empty, or pinned by nothing (isPinned) while saying nothing more than two meaningful words
 * ("Add validation") or than a wish to see some data ("Get me the data on the bad stuff"). Readings of such a goal
 * lead to different work, so it is asked about, whoever analyses it.
 */
function isVague(text: string, catalog: readonly ToolSpec[], nowIso: string): boolean {
  if (text.trim().length === 0) return true;
  if (isPinned(text, catalog, nowIso)) return false;
  return contentTokens(tokenize(text)).length <= 2 || ASKS_TO_SEE.test(text.trim());
}

/** The question to ask before planning, when the goal (with the answers given so far) is too vague to plan; else null. */
export function clarificationNeeded(
  input: RequirementsAnalysisInput,
  lexicon: ClarificationLexicon = {},
): Clarification | null {
  const goal = effectiveGoal(input.request);
  return isVague(goal, input.catalog, input.request.now) ? clarification(goal, input.catalog, lexicon) : null;
}

/** A filter keeping the first item of each key: linear, unlike findIndex over the whole list. */
function firstOfEach<T>(keyOf: (item: T) => string): (item: T) => boolean {
  const seen = new Set<string>();
  return (item) => !seen.has(keyOf(item)) && Boolean(seen.add(keyOf(item)));
}

/** `lexicon`: the catalog's pack's words that need a clarifying question, beside the generic ones. */
export function analyzeGoalByRules(input: RequirementsAnalysisInput, lexicon: ClarificationLexicon = {}): Requirements {
  const { request, catalog } = input;
  const goal = effectiveGoal(request);
  const tokens = tokenize(goal);
  const tools = matchCatalog(tokens, catalog).tools;
  const locations = findLocations(tokens);
  const temporal = goal ? resolveTemporalReferences(goal, request.now) : [];
  const question = clarificationNeeded(input, lexicon);
  const vague = question !== null;
  // Once a vague goal has been answered, the answers say what to do; the vague words are no requirement of their own.
  const answers = effectiveGoal({ goal: '', context: request.context });
  const requirementText = answers && isVague(request.goal, catalog, request.now) ? answers : goal;

  const steps: string[] = [];
  const seen = new Set<string>();
  const capabilities: string[] = tools.map((m) => m.tool.name);
  const constrained = vague ? new Set<string>() : constrainedWords(requirementText, request.now, catalog);
  const requirementTokens = tokenize(requirementText);
  const named = new Set(
    strongMatches(matchCatalog(requirementTokens, catalog).tools, requirementTokens, catalog).map((m) => m.tool),
  );
  for (const clause of vague ? [] : splitClauses(requirementText)) {
    const abstract = abstractStep(clause, catalog, request.now, constrained, named);
    if (!abstract || seen.has(abstract.step)) continue;
    seen.add(abstract.step);
    steps.push(abstract.step);
    if (abstract.capability) capabilities.push(abstract.capability);
  }

  const entities = [
    ...tools.map((m) => ({ type: 'tool', value: m.tool.name })),
    ...locations.map((t) => ({ type: 'location', value: t.text })),
    ...temporal.map((r) => ({ type: 'date_range', value: r.phrase })),
    ...tools.flatMap((m) =>
      toolTerms(m.tool).enums.flatMap(([param, schema]) =>
        tokens.filter((t) => matchingEnum(schema, t) !== undefined).map((t) => ({ type: param, value: t.lower })),
      ),
    ),
  ].filter(firstOfEach((e) => `${e.type}\u0000${e.value}`));

  return RequirementsSchema.parse({
    is_clear: !vague,
    clarification: question,
    steps,
    required_capabilities: [...new Set(capabilities)],
    complexity_indicators: {
      estimated_steps:
        tools.length +
        (locations.length > 0 && !tools.some((m) => paramSchemas(m.tool).some(([p]) => p === 'location')) ? 1 : 0),
      external_services: tools.map((m) => m.tool.name),
      has_conditionals: /\b(if|unless|otherwise|in case)\b/i.test(goal),
      has_iteration: /\b(each|every|for all|per)\b/i.test(goal),
      has_temporal_filter: temporal.length > 0,
    },
    intent: detectIntent(goal, tools.length),
    entities,
    temporal_references: temporal,
  });
}

/** Clauses that ask for data or an answer rather than for an action in the world. */
const ASKS_FOR_DATA = openingWith(
  ...fetching,
  ...gathering,
  ...querying,
  ...analysing,
  ...inspecting,
  ...seeingOrTelling,
  ...reporting,
  ...summarising,
  ...questionWords,
);

/**
 * "I need Priya Raman's email address", "We'd like the list of carriers": a wish for a thing that exists (a definite
 * one: "the", "my", "every", a name), not for one to be made or bought ("I need a new folder", "We need 50 bins") nor
 * for something to be done ("I want to order bins", "I'd like the done command to take several ids": a verb after
 * "to").
 */
const WISH_FOR_A_THING =
  /^(?:[Ii]|[Ww]e)(?:['’]d like|\s+would like|\s+want|\s+need)\s+(?:the|my|our|your|his|her|their|this|that|these|those|every|all|each|\p{Lu})(?!.*\bto\s+(?!(?:me|us|them|him|her)\b)\p{Ll})/u;

/** Whether a clause asks for data or an answer ("List the composting sites") rather than for an action. */
export function asksForData(clause: string): boolean {
  return ASKS_FOR_DATA.test(clause) || WISH_FOR_A_THING.test(clause.trim());
}

/** "I'd like …", "I want …", "We need …", "I would love …": a clause in which the user says what they want. */
const STATES_WISH = /^(i|we)(['’]d|\s+would|\s+want|\s+need|\s+wish|\s+like|\s+hope)\b/i;

/**
 * Whether a clause says what the user wants ("I'd like the done command to take several task ids at once") rather
 * than asking for an action: the request in words, which a tool that takes the request in words is given.
 */
export function statesWish(clause: string): boolean {
  return STATES_WISH.test(clause.trim());
}

/**
 * Whether a capability the rules found is an order for an action ("Order 50 new bins", "Email the list to the
 * team"), not a question, a request for data or a wish, which reading the catalog's data may still answer.
 */
function isOrderedAction(capability: string): boolean {
  return !asksForData(capability) && !QUESTION_START.test(capability) && !statesWish(capability);
}

/** The capabilities the rules found that are orders for an action no tool of the catalog does ("Reboot the build server"). */
export function actionsNoToolDoes(
  rules: Pick<Requirements, 'required_capabilities'>,
  catalog: readonly ToolSpec[],
): string[] {
  const tools = new Set(catalog.map((t) => t.name));
  return rules.required_capabilities.filter((c) => !tools.has(c) && isOrderedAction(c));
}

/**
 * The actions the goal asks for that no tool of the catalog matches ("Email the list to the compliance team"): a
 * plan without them is at most PARTIAL. Clauses that ask for data are left to the planner's judgement.
 */
export function unmatchedActions(input: RequirementsAnalysisInput): string[] {
  const tools = new Set(input.catalog.map((t) => t.name));
  return analyzeGoalByRules(input).required_capabilities.filter((c) => !tools.has(c) && !asksForData(c));
}

export class RuleBasedAnalyzer implements RequirementsAnalyzer {
  readonly kind = 'rules' as const;

  /** `lexiconOf`: the clarification lexicon registered with a catalog (by the request's tool_catalog name). */
  constructor(private readonly lexiconOf: (catalog: string) => ClarificationLexicon = () => ({})) {}

  async analyze(input: RequirementsAnalysisInput): Promise<RequirementsAnalysisResult> {
    return { requirements: analyzeGoalByRules(input, this.lexiconOf(input.request.tool_catalog)), llm_calls: [] };
  }
}
