/**
 * Relative date phrases → calendar date ranges, against a `now` passed in (planning must be deterministic).
 *
 * Conventions: UTC; weeks start on Monday; `start` and `end` are ISO dates (YYYY-MM-DD) and BOTH are inclusive,
 * matching tool params such as date_from / date_to. Ranges of the current period end today (no future days).
 *
 * Calendar dates too: a day ("3 June", "June 3rd", "2026-06-03") or a month ("in May", "June 2026"); "since" one of
 * them runs to today, "between … and …" and "from … to …" join two into one range. A date without a year is the
 * latest such day not after today (a range's end: the first one not before its start), as a question about data
 * looks back.
 */
import { z } from 'zod';
import { InvalidInputError } from './errors';
import { NUMBER_WORD, numberValue } from './numbers';

export const TemporalReferenceSchema = z.object({
  phrase: z.string(),
  start: z.iso.date(),
  end: z.iso.date(),
});
export type TemporalReference = z.output<typeof TemporalReferenceSchema>;

/** Built once: a zod schema is costly to build (the bench promoted 9 MB of them, built at every call, per 220 plans). */
const NOW_SCHEMA = z.iso.datetime({ offset: true });
const DAY_MS = 86_400_000;
const PHRASES = new RegExp(
  `\\b(today|yesterday|(?:this|last)\\s+(?:week|month|quarter|year)|(?:the\\s+)?(?:last|past)\\s+(?:\\d{1,3}|${NUMBER_WORD}(?:[\\s-]+${NUMBER_WORD})?)\\s+(?:days?|weeks?|months?)|(?:the\\s+)?(?:last|past)\\s+fortnight` +
    `|q[1-4](?:\\s+\\d{4})?|(?:(?:on|since|from|after|last)\\s+)(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\\b`,
  'gi',
);
/** A digit or a month's first letters: without one, a text names no period (most clauses of a goal). */
const PERIOD_HINT =
  /\d|today|yesterday|week|month|quarter|year|day|fortnight|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec/i;
/** "the last 7 days", "past two weeks", "last 3 months": that many days (weeks, months) up to and including today. */
const ROLLING = /^(?:the )?(?:last|past) (.+) (day|week|month)s?$/;
/** "the past fortnight", "last fortnight": the last two weeks, as "the past two weeks" (14 days up to today). */
const FORTNIGHT = /^(?:the )?(?:last|past) fortnight$/;
/** "Q3", "Q3 2026": a quarter, of the year given or the latest that has begun. */
const QUARTER = /^q([1-4])(?: (\d{4}))?$/;
/** "on Monday", "since Monday": the latest such day, today included; "last Monday" the one before today. */
const WEEKDAY = /^(on|since|from|after|last) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)$/;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A phrase found in a text, where it stands. */
interface Found {
  index: number;
  length: number;
  ref: TemporalReference;
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Ranges for every phrase in `text`, in order of first appearance, one per distinct phrase. */
export function resolveTemporalReferences(text: string, nowIso: string): TemporalReference[] {
  const nowMs = NOW_SCHEMA.safeParse(nowIso).success ? Date.parse(nowIso) : NaN;
  if (Number.isNaN(nowMs)) {
    throw new InvalidInputError(
      `now must be an ISO 8601 date-time, got "${nowIso}"`,
      'Pass now like 2026-11-23T10:00:00Z.',
    );
  }
  // Most texts (every clause of a goal is asked) name no period: nothing more to compute for them.
  if (!PERIOD_HINT.test(text)) return [];
  const now = new Date(nowMs);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const monday = today - ((now.getUTCDay() + 6) % 7) * DAY_MS; // getUTCDay: Sunday = 0
  const firstOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const quarterStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (now.getUTCMonth() % 3), 1);

  const ranges: Record<string, [number, number]> = {
    today: [today, today],
    yesterday: [today - DAY_MS, today - DAY_MS],
    'this week': [monday, today],
    'last week': [monday - 7 * DAY_MS, monday - DAY_MS],
    'this month': [firstOfMonth, today],
    'last month': [Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1), firstOfMonth - DAY_MS],
    'this quarter': [quarterStart, today],
    'last quarter': [
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (now.getUTCMonth() % 3) - 3, 1),
      quarterStart - DAY_MS,
    ],
    'this year': [Date.UTC(now.getUTCFullYear(), 0, 1), today],
    'last year': [Date.UTC(now.getUTCFullYear() - 1, 0, 1), Date.UTC(now.getUTCFullYear(), 0, 1) - DAY_MS],
  };
  const rangeOf = (phrase: string): [number, number] | undefined => {
    if (FORTNIGHT.test(phrase)) return [today - 13 * DAY_MS, today];
    const rolling = ROLLING.exec(phrase);
    if (rolling) {
      const count = numberValue(rolling[1]!);
      if (!count) return undefined;
      if (rolling[2] === 'month')
        return [Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - count, now.getUTCDate()) + DAY_MS, today];
      return [today - (count * (rolling[2] === 'week' ? 7 : 1) - 1) * DAY_MS, today];
    }
    const quarter = QUARTER.exec(phrase);
    if (quarter) {
      const month = (Number(quarter[1]) - 1) * 3;
      let year = quarter[2] ? Number(quarter[2]) : now.getUTCFullYear();
      if (!quarter[2] && Date.UTC(year, month, 1) > today) year -= 1;
      const [start, end] = [Date.UTC(year, month, 1), Date.UTC(year, month + 3, 1) - DAY_MS];
      // The current quarter ends today, as "this quarter" does.
      return [start, start <= today && end > today ? today : end];
    }
    const weekday = WEEKDAY.exec(phrase);
    if (weekday) {
      const [, cue, name] = weekday;
      // Days back to the latest such day: today itself, but for "last", the one before.
      const back = (now.getUTCDay() - WEEKDAYS.indexOf(name!) + 7) % 7 || (cue === 'last' ? 7 : 0);
      const day = today - back * DAY_MS;
      return cue === 'since' || cue === 'from' ? [day, today] : cue === 'after' ? [day + DAY_MS, today] : [day, day];
    }
    return ranges[phrase];
  };

  const seen = new Set<string>();
  const found: Found[] = [];
  for (const match of text.matchAll(PHRASES)) {
    const phrase = match[0].toLowerCase().replace(/\s+/g, ' ');
    const range = rangeOf(phrase);
    if (range)
      found.push({
        index: match.index,
        length: match[0].length,
        ref: { phrase, start: isoDate(range[0]), end: isoDate(range[1]) },
      });
  }
  for (const date of calendarRanges(text, today)) {
    if (!found.some((f) => date.index < f.index + f.length && f.index < date.index + date.length)) found.push(date);
  }
  const out: TemporalReference[] = [];
  for (const { ref } of found.sort((a, b) => a.index - b.index)) {
    if (seen.has(ref.phrase)) continue;
    seen.add(ref.phrase);
    out.push(ref);
  }
  return out;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
/** A month's name, or its first three letters ("Sept" too). */
const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
/** A month alone is written out ("for Jan Becker" names no January). */
const FULL_MONTH = `(?:${MONTHS.join('|')})`;
const ORDINAL = '(?:st|nd|rd|th)?';
/** One calendar date or month, its groups suffixed `s`: ISO, "3 June [2026]", "3rd of June", "June 3rd[, 2026]", "June [2026]". */
const date = (s: string) =>
  `(?:(?<isoY${s}>\\d{4})-(?<isoM${s}>\\d{2})-(?<isoD${s}>\\d{2})` +
  `|(?<dayA${s}>\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?(?<monthA${s}>${MONTH})(?:,?\\s+(?<yearA${s}>\\d{4}))?` +
  `|(?<monthB${s}>${MONTH})\\s+(?<dayB${s}>\\d{1,2})${ORDINAL}(?![\\d:])(?:,?\\s+(?<yearB${s}>\\d{4}))?` +
  `|(?<monthC${s}>${FULL_MONTH})(?:\\s+(?<yearC${s}>\\d{4}))?)`;
/**
 * A date or month, with the word before it that says how it bounds a range, and a second one (or a day of the same
 * month: "June 3-5") that ends it. "Until 5 June" has no start: it is matched, to be left out.
 */
const CALENDAR = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:(?<bound>since|after|before|until|till|by|between|from)\\s+)?${date('1')}` +
    `(?<tail>\\s*(?<join>and|to|until|till|through|[-–])\\s*(?:${date('2')}|(?<lastDay>\\d{1,2})${ORDINAL}))?(?![\\p{L}\\p{N}])`,
  'giu',
);
/** Words before a month of its own that make it a period ("in May", not "May I …"). */
const MONTH_CUE = /\b(?:in|during|of|for|from|since|through|throughout|between|and|to|after)\s+$/i;

interface CalendarDate {
  month: number;
  /** Absent for a whole month. */
  day?: number;
  /** Absent when the text gives none. */
  year?: number;
}

function calendarDate(g: Record<string, string | undefined>, s: string): CalendarDate | undefined {
  const monthOf = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));
  const year = (y: string | undefined) => (y === undefined ? undefined : Number(y));
  if (g[`isoY${s}`] !== undefined)
    return { month: Number(g[`isoM${s}`]) - 1, day: Number(g[`isoD${s}`]), year: Number(g[`isoY${s}`]) };
  if (g[`monthA${s}`] !== undefined)
    return { month: monthOf(g[`monthA${s}`]!), day: Number(g[`dayA${s}`]), year: year(g[`yearA${s}`]) };
  if (g[`monthB${s}`] !== undefined)
    return { month: monthOf(g[`monthB${s}`]!), day: Number(g[`dayB${s}`]), year: year(g[`yearB${s}`]) };
  if (g[`monthC${s}`] !== undefined) return { month: monthOf(g[`monthC${s}`]!), year: year(g[`yearC${s}`]) };
  return undefined;
}

/**
 * The first and last day of `d`, in its year, else in the latest year that puts it not after today, or (the end of a
 * range) the first that puts it not before `notBefore`. Undefined for no such day ("31 June", month 13).
 */
function daysOf(d: CalendarDate, today: number, notBefore?: number): [number, number] | undefined {
  if (d.month < 0 || d.month > 11) return undefined;
  const span = (year: number): [number, number] =>
    d.day !== undefined
      ? [Date.UTC(year, d.month, d.day), Date.UTC(year, d.month, d.day)]
      : [Date.UTC(year, d.month, 1), Date.UTC(year, d.month + 1, 1) - DAY_MS];
  const thisYear = new Date(today).getUTCFullYear();
  let days = span(d.year ?? thisYear);
  if (d.year === undefined && notBefore !== undefined && days[1] < notBefore) days = span(thisYear + 1);
  if (d.year === undefined && notBefore === undefined && days[0] > today) days = span(thisYear - 1);
  // Date.UTC rolls "31 June" into July.
  if (d.day !== undefined && new Date(days[0]).getUTCDate() !== d.day) return undefined;
  return days;
}

/** The calendar dates and months of `text` (see the module's comment), each with where its phrase stands. */
function calendarRanges(text: string, today: number): Found[] {
  const out: Found[] = [];
  const calendar = new RegExp(CALENDAR);
  for (let m = calendar.exec(text); m !== null; m = calendar.exec(text)) {
    const g = m.groups!;
    // A second date that ends no range is a date of its own: look for it again.
    const rescan = () => (calendar.lastIndex = m!.index + m![0].length - (g.tail?.length ?? 0));
    const bound = g.bound?.toLowerCase();
    const first = calendarDate(g, '1');
    // "and" joins two dates into a range only after "between": "on June 3 and June 5" are two days.
    const ranged = g.tail !== undefined && (g.join!.toLowerCase() !== 'and' || bound === 'between');
    if (g.tail !== undefined && !ranged) rescan();
    if (!first || bound === 'before' || bound === 'until' || bound === 'till' || bound === 'by') continue;
    // A month alone is a period only after a word that makes it one, or with its year ("May I …" is none).
    if (first.day === undefined && first.year === undefined && !bound && !MONTH_CUE.test(text.slice(0, m.index))) {
      rescan();
      continue;
    }
    const firstDays = daysOf(first, today);
    if (!firstDays) continue;
    const second = ranged ? calendarDate(g, '2') : undefined;
    const lastDay = ranged && first.day !== undefined && g.lastDay !== undefined ? Number(g.lastDay) : undefined;
    const endDays = second
      ? daysOf(second, today, firstDays[0])
      : lastDay !== undefined
        ? daysOf({ ...first, day: lastDay, year: new Date(firstDays[0]).getUTCFullYear() }, today)
        : firstDays;
    if (!endDays) continue;
    let [start, end] = [firstDays[0], endDays[1]];
    if (bound === 'since' || bound === 'after')
      [start, end] = [bound === 'after' ? firstDays[1] + DAY_MS : start, today];
    // The current month ends today, as "this month" does.
    else if (first.day === undefined && !second && start <= today && end > today) end = today;
    if (start > end) continue;
    const phrase = (ranged ? m[0] : m[0].slice(0, m[0].length - (g.tail?.length ?? 0))).trim();
    out.push({
      index: m.index,
      length: phrase.length,
      ref: { phrase: phrase.toLowerCase().replace(/\s+/g, ' '), start: isoDate(start), end: isoDate(end) },
    });
  }
  return out;
}
