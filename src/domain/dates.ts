/**
 * Relative date phrases → calendar date ranges, against a `now` passed in (planning must be deterministic).
 *
 * Conventions: UTC; weeks start on Monday; `start` and `end` are ISO dates (YYYY-MM-DD) and BOTH are inclusive,
 * matching tool params such as date_from / date_to. Ranges of the current period end today (no future days).
 */
import { z } from 'zod';
import { InvalidInputError } from './errors';

export const TemporalReferenceSchema = z.object({
  phrase: z.string(),
  start: z.iso.date(),
  end: z.iso.date(),
});
export type TemporalReference = z.output<typeof TemporalReferenceSchema>;

/** Built once: a zod schema is costly to build (the bench promoted 9 MB of them, built at every call, per 220 plans). */
const NOW_SCHEMA = z.iso.datetime({ offset: true });
const DAY_MS = 86_400_000;
const PHRASES =
  /\b(today|yesterday|(?:this|last)\s+(?:week|month|year)|(?:the\s+)?(?:last|past)\s+\d{1,3}\s+(?:days?|weeks?))\b/gi;
/** "the last 7 days", "past 2 weeks": that many days (or weeks of days) up to and including today. */
const ROLLING = /^(?:the )?(?:last|past) (\d{1,3}) (day|week)s?$/;

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
  const phrases = text.match(PHRASES);
  if (!phrases) return [];
  const now = new Date(nowMs);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const monday = today - ((now.getUTCDay() + 6) % 7) * DAY_MS; // getUTCDay: Sunday = 0
  const firstOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);

  const ranges: Record<string, [number, number]> = {
    today: [today, today],
    yesterday: [today - DAY_MS, today - DAY_MS],
    'this week': [monday, today],
    'last week': [monday - 7 * DAY_MS, monday - DAY_MS],
    'this month': [firstOfMonth, today],
    'last month': [Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1), firstOfMonth - DAY_MS],
    'this year': [Date.UTC(now.getUTCFullYear(), 0, 1), today],
    'last year': [Date.UTC(now.getUTCFullYear() - 1, 0, 1), Date.UTC(now.getUTCFullYear(), 0, 1) - DAY_MS],
  };
  const rangeOf = (phrase: string): [number, number] | undefined => {
    const rolling = ROLLING.exec(phrase);
    if (!rolling) return ranges[phrase];
    const days = Number(rolling[1]) * (rolling[2] === 'week' ? 7 : 1);
    return days === 0 ? undefined : [today - (days - 1) * DAY_MS, today];
  };

  const seen = new Set<string>();
  const out: TemporalReference[] = [];
  for (const match of phrases) {
    const phrase = match.toLowerCase().replace(/\s+/g, ' ');
    if (seen.has(phrase)) continue;
    seen.add(phrase);
    const range = rangeOf(phrase);
    if (!range) continue;
    const [start, end] = range;
    out.push({ phrase, start: isoDate(start), end: isoDate(end) });
  }
  return out;
}
