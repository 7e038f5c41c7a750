/** Numbers as a goal writes them: digits ("2,500", "1.5k") or English words ("two hundred and fifty"). */

/** Numbers in words, to the millions: each word's value. */
const NUMBER_WORDS: Readonly<Record<string, number>> = Object.fromEntries([
  ...'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'
    .split(' ')
    .map((w, i) => [w, i]),
  ...'twenty thirty forty fifty sixty seventy eighty ninety'.split(' ').map((w, i) => [w, 20 + 10 * i]),
  ['hundred', 100],
  ['thousand', 1_000],
  ['million', 1_000_000],
]);

/** A regular-expression source for one number word (to build patterns of several: "two hundred"). */
export const NUMBER_WORD = `(?:${Object.keys(NUMBER_WORDS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;

/** The value of a number as written: digits ("2,500", "1.5k") or words ("two hundred and fifty"); else undefined. */
export function numberValue(text: string): number | undefined {
  const digits = /^(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(k)?$/i.exec(text.trim());
  if (digits) return Number(`${digits[1]!.replace(/,/g, '')}${digits[2] ?? ''}`) * (digits[3] ? 1_000 : 1);
  let total = 0;
  let group = 0;
  for (const word of text
    .trim()
    .toLowerCase()
    .split(/[\s-]+/)) {
    if (word === 'and') continue;
    const value = NUMBER_WORDS[word];
    if (value === undefined) return undefined;
    if (value === 100) group = (group || 1) * 100;
    else if (value >= 1_000) {
      total += (group || 1) * value;
      group = 0;
    } else group += value;
  }
  return total + group;
}
