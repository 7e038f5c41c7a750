/**
 * Whether a step's title asks for more than one action ("Differentiate then integrate", "Solve and substitute the
 * equation", "First compute x, finally report it"). Judged by the shape of the sentence, not by a list of a catalog's
 * verbs, so it holds for any tool catalog:
 *   - a sequencing adverb or phrase between two non-empty parts ("then", "finally", "afterwards", "after that",
 *     "followed by"), or "before" / "after" followed by a gerund ("before deleting them");
 *   - the title's leading word (in an imperative title, its verb) coordinated at once with another ("Solve and
 *     substitute", "Read, parse and store");
 *   - a conjunct after "and" or a comma that takes an object of its own ("… and email the carriers", "…, report it"):
 *     a word followed by a determiner or pronoun is a verb; a noun phrase is not ("and their contaminants").
 * A single action with "and" inside its object ("List shipments and their contaminants", "Read a.txt and b.txt")
 * is not compound. What it misses: two bare verb-object pairs ("fetch shipments and email carriers") read like two
 * nouns without a lexicon.
 */
/** A step title's words, lower-cased, with commas and semicolons kept as their own tokens. */
function titleTokens(title: string): string[] {
  return (title.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’_.-]*|[,;:]/gu) ?? []).map((t) => t.replace(/[.]+$/, ''));
}

/** Words that only ever start a noun phrase: a conjunct that begins with one is an object, not an action. */
const DETERMINERS = new Set(
  'a an the this that these those each every all any some no its their his her our my your it them him us me one two both either neither other another such'.split(
    ' ',
  ),
);

/** Prepositions, auxiliaries and question words: a conjunct that begins with one is no verb of its own. */
const FUNCTION_WORDS = new Set(
  'of for to from in on at by with into onto over under about than as per via within without between among across through during since until near like is are was were be been has have had do does did not which who whose where when that whether if'.split(
    ' ',
  ),
);

const SEQUENCE_WORDS = new Set(['then', 'finally', 'afterwards', 'afterward', 'subsequently', 'thereafter']);
const SEQUENCE_PHRASES = [
  ['after', 'that'],
  ['after', 'this'],
  ['followed', 'by'],
  ['and', 'finally'],
] as const;
const CONJUNCTIONS = new Set(['and', ',', ';', '&']);
const PUNCTUATION = new Set([',', ';', ':']);

const isWord = (token: string | undefined): token is string => token !== undefined && !PUNCTUATION.has(token);

/** A plural noun ("containers", "files") rather than a verb; "process", "address" end in "ss" and stay verbs. */
const looksPlural = (word: string) => /[^s]s$/.test(word);

/**
 * Why `title` names more than one action (a short phrase quoting the words that show it), or null when it names one.
 */
export function compoundActionReason(title: string): string | null {
  const tokens = titleTokens(title);
  const wordsBefore = (i: number) => tokens.slice(0, i).filter(isWord).length;
  const wordsAfter = (i: number) => tokens.slice(i + 1).filter(isWord).length;

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const next = tokens[i + 1];
    if (SEQUENCE_WORDS.has(token) && wordsBefore(i) > 0 && wordsAfter(i) > 0) return `"${token}" sequences two actions`;
    for (const phrase of SEQUENCE_PHRASES) {
      if (token === phrase[0] && next === phrase[1] && wordsBefore(i) > 0 && wordsAfter(i + 1) > 0)
        return `"${phrase.join(' ')}" sequences two actions`;
    }
    if ((token === 'before' || token === 'after') && wordsBefore(i) > 0 && isWord(next) && /..ing$/.test(next))
      return `"${token} ${next}" adds a second action`;
  }

  // The leading word coordinated at once: "Solve and substitute …", "Read, parse and store …".
  const [head, joint, second] = tokens;
  if (
    isWord(head) &&
    !DETERMINERS.has(head) &&
    !looksPlural(head) &&
    (joint === 'and' || joint === ',' || joint === '&') &&
    isWord(second) &&
    !DETERMINERS.has(second) &&
    !FUNCTION_WORDS.has(second) &&
    !looksPlural(second)
  )
    return `"${head}" and "${second}" are two actions`;

  // A conjunct with an object of its own: "… and email the carriers", "…, report it".
  for (let i = 1; i < tokens.length - 2; i++) {
    if (!CONJUNCTIONS.has(tokens[i]!)) continue;
    const word = tokens[i + 1]!;
    const object = tokens[i + 2]!;
    if (!isWord(word) || DETERMINERS.has(word) || FUNCTION_WORDS.has(word) || looksPlural(word)) continue;
    if (DETERMINERS.has(object)) return `"${word} ${object} …" is a second action`;
  }
  return null;
}
