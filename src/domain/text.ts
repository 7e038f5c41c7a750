/**
 * Text as the planner reads it, in one place: the words of a goal as the deterministic analyzer, ranking planner,
 * critics and workspace-context ranking see them (lower-cased tokens with their positions and crude stems, so
 * "contaminated", "contaminant" and "contamination" meet, as do "inspected" and "inspections"), the words of an
 * identifier, the stop-word lists, and UTF-8 byte lengths. Deliberately simple and fully deterministic (workflow code
 * uses it too).
 */
export interface Token {
  /** The word as written (case kept, for proper nouns). */
  text: string;
  lower: string;
  stem: string;
  /** Position among the goal's tokens. */
  pos: number;
}

// 'ings' before 's': "bookings" meets "book" and "booking", as "inspections" meets "inspected".
const SUFFIXES = [
  'ations',
  'ation',
  'ities',
  'ings',
  'ions',
  'ants',
  'ated',
  'ates',
  'ity',
  'ion',
  'ant',
  'ate',
  'ies',
  'ing',
  'ed',
  'es',
  's',
];

export function stem(word: string): string {
  return stemOfLower(word.toLowerCase());
}

function stemOfLower(w: string): string {
  // Indexed, not for-of: until V8 optimizes it, each for-of step allocates its iterator result, and this runs for
  // every suffix of every word a planning activity reads.
  for (let i = 0; i < SUFFIXES.length; i++) {
    const suffix = SUFFIXES[i]!;
    if (w.endsWith(suffix) && w.length - suffix.length >= 4) return w.slice(0, -suffix.length);
  }
  return w;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

export function tokenize(text: string): Token[] {
  // `match` gives the words as strings: a planning activity tokenizes every step's title and description, and
  // matchAll's match objects were most of what that allocated.
  return (text.match(WORD) ?? []).map((word, pos) => {
    const raw = withoutPossessive(word);
    const lower = raw.toLowerCase();
    return { text: raw, lower, stem: stemOfLower(lower), pos };
  });
}

function withoutPossessive(word: string): string {
  return word.replace(/['’]s$/i, '');
}

/**
 * The stems of the text's content words, in order: what tokenize, contentTokens and `.stem` give together, without
 * making a token per word (the critics ask this of every step's title and description).
 */
export function contentStems(text: string): string[] {
  const stems: string[] = [];
  const words = text.match(WORD) ?? [];
  for (let i = 0; i < words.length; i++) {
    const lower = withoutPossessive(words[i]!).toLowerCase();
    if (isContentWord(lower)) stems.push(stemOfLower(lower));
  }
  return stems;
}

/** Words that only join others ("the", "of", "with"): never a tag of a tool name nor a word a search looks for. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set('a an the of to and or in for with by on'.split(' '));

/** Words of a request that carry no meaning for matching it to tools: function words, pronouns, request verbs. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  ...FUNCTION_WORDS,
  ...(
    'from at me my our we us i you your it its them their this that these those is are was were be been do did ' +
    'does any all some please show give get fetch find list tell what which who how when where have has had can ' +
    'could would should will also then there than about into over under up out details detail info information data'
  ).split(' '),
]);

/** Words of a coding goal that name no file ("add", "fix", "implement"): what workspace-context ranking skips. */
export const CODE_GOAL_STOP_WORDS: ReadonlySet<string> = new Set([
  ...FUNCTION_WORDS,
  ...(
    'at from into onto but not no is are be been it its this that these those as so if then than when while we ' +
    'our you your my i me us add adds added adding make makes use using new fix fixes update updates implement ' +
    'create support should must can could would will need needs do does all any some each via per please also just ' +
    'there here which what how'
  ).split(' '),
]);

const DIGITS = /^\d+$/;

/** Whether the token carries meaning for matching: not a stop word, not a bare number. */
export function isContentToken(token: Token): boolean {
  return isContentWord(token.lower);
}

function isContentWord(lower: string): boolean {
  return !STOP_WORDS.has(lower) && !DIGITS.test(lower);
}

/** Words that carry meaning for matching (stop words removed). */
export function contentTokens(tokens: readonly Token[]): Token[] {
  return tokens.filter(isContentToken);
}

/**
 * Lower-case words of an identifier or text, camelCase and snake_case split: "signUpForm" → sign, up, form; `apiKey`,
 * `api_key` and `x-api-key` all end in ["api", "key"].
 */
export function identifierWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Distinct lower-case words of a tool name, function words left out: `list_directory` → list, directory. */
export function nameTags(name: string): string[] {
  return [...new Set(identifierWords(name).filter((word) => !FUNCTION_WORDS.has(word)))];
}

/** Stems of an identifier or phrase such as "contaminants-detected" or "has_contaminants". */
export function identifierStems(identifier: string): string[] {
  return identifierWords(identifier)
    .filter((word) => !STOP_WORDS.has(word))
    .map(stem);
}

/** A location named in the text: "in Hannover", "at Bremen", "near Köln". */
export function findLocations(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 1; i < tokens.length; i++) {
    const prev = tokens[i - 1]!.lower;
    const word = tokens[i]!;
    if ((prev === 'in' || prev === 'at' || prev === 'near') && /^\p{Lu}/u.test(word.text)) out.push(word);
  }
  return out;
}

/**
 * Splits a goal into clauses at "and", "then", commas and semicolons ("A and then B" → [A, B]); not at the comma of a
 * number ("2,500 tokens").
 */
export function splitClauses(goal: string): string[] {
  return goal
    .split(/\s*(?:;|(?<!\d),|,(?!\d{3}(?!\d))|\.\s|\band then\b|\bthen\b|\band\b)\s*/i)
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidates closest to `name`, best first (at most `limit`): those containing it or contained in it (an
 * invented "search_shipments" → "shipments"), sharing a word stem with it, or within a few edits of it.
 */
export function closestNames(name: string, candidates: readonly string[], limit = 3): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[\s_.:/]+/g, '-');
  const target = norm(name);
  const stems = new Set(target.split('-').filter(Boolean).map(stem));
  const scored = candidates.map((candidate) => {
    const c = norm(candidate);
    const distance = editDistance(target, c);
    const contains = c.length > 2 && (target.includes(c) || c.includes(target));
    const sharesStem = c.split('-').some((w) => stems.has(stem(w)));
    const score = distance - (contains ? 100 : 0) - (sharesStem ? 50 : 0);
    return { candidate, score, close: contains || sharesStem || distance <= Math.max(2, Math.floor(c.length / 3)) };
  });
  return scored
    .filter((s) => s.close)
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((s) => s.candidate);
}

/** UTF-8 bytes of `text`, counted without Buffer or TextEncoder (workflow code has neither guaranteed). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one code point of 4 bytes
      i++;
    } else bytes += 3;
  }
  return bytes;
}
