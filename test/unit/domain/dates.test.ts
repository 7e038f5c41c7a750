import { resolveTemporalReferences } from '../../../src/domain/dates';
import { InvalidInputError } from '../../../src/domain/errors';
import { NOW } from '../../support/planning';

const one = (text: string, now = NOW) => {
  const refs = resolveTemporalReferences(text, now);
  expect(refs).toHaveLength(1);
  return [refs[0]!.start, refs[0]!.end];
};

describe('resolveTemporalReferences (UTC, weeks start Monday, inclusive dates)', () => {
  it.each([
    ['shipments from today', ['2026-11-23', '2026-11-23']],
    ['what came in yesterday?', ['2026-11-22', '2026-11-22']],
    ['inspections this week', ['2026-11-23', '2026-11-23']],
    ["Get me last week's contaminated shipments", ['2026-11-16', '2026-11-22']],
    ['this month so far', ['2026-11-01', '2026-11-23']],
    ['rejections last month', ['2026-10-01', '2026-10-31']],
    ['detections from the last 7 days', ['2026-11-17', '2026-11-23']],
    ['loads of the past 2 weeks', ['2026-11-10', '2026-11-23']],
    ['everything this year', ['2026-01-01', '2026-11-23']],
    ['the whole of last year', ['2025-01-01', '2025-12-31']],
  ])('%s (now = Monday 2026-11-23)', (text, range) => {
    expect(one(text)).toEqual(range);
  });

  it('this week runs from Monday to today on a Sunday', () => {
    expect(one('this week', '2026-11-29T23:59:59Z')).toEqual(['2026-11-23', '2026-11-29']);
    expect(one('last week', '2026-11-29T23:59:59Z')).toEqual(['2026-11-16', '2026-11-22']);
  });

  it('last month crosses a year and handles February', () => {
    expect(one('last month', '2027-01-15T00:00:00Z')).toEqual(['2026-12-01', '2026-12-31']);
    expect(one('last month', '2028-03-01T00:00:00Z')).toEqual(['2028-02-01', '2028-02-29']);
  });

  it('uses the UTC day of an offset timestamp', () => {
    expect(one('today', '2026-11-23T00:30:00+02:00')).toEqual(['2026-11-22', '2026-11-22']);
  });

  it('returns every distinct phrase in order, case-insensitively', () => {
    const refs = resolveTemporalReferences('Compare LAST  WEEK with this week, and last week again', NOW);
    expect(refs.map((r) => r.phrase)).toEqual(['last week', 'this week']);
  });

  it('ignores text without phrases and partial words', () => {
    expect(resolveTemporalReferences('todays weekly report', NOW)).toEqual([]);
  });

  it('rejects a now that is not an ISO date-time', () => {
    expect(() => resolveTemporalReferences('today', 'yesterday')).toThrow(InvalidInputError);
    expect(() => resolveTemporalReferences('today', '2026-11-23')).toThrow(InvalidInputError);
  });
});

describe('calendar dates and months (now = Monday 2026-11-23; no year: the latest not after today)', () => {
  it.each([
    ['detections since 1 June', ['2026-06-01', '2026-11-23']],
    ['shipments between June 3 and June 5', ['2026-06-03', '2026-06-05']],
    ['loans from 2026-05-28 to 2026-06-02', ['2026-05-28', '2026-06-02']],
    ['shipments of June 3-5', ['2026-06-03', '2026-06-05']],
    ['the rejected inspections from May', ['2026-05-01', '2026-05-31']],
    ['what happened on the 3rd of June?', ['2026-06-03', '2026-06-03']],
    ['the ops sync on 28 May', ['2026-05-28', '2026-05-28']],
    ['everything in December', ['2025-12-01', '2025-12-31']],
    ['loans in March 2025', ['2025-03-01', '2025-03-31']],
    ['shipments in November', ['2026-11-01', '2026-11-23']],
    ['after 20 November', ['2026-11-21', '2026-11-23']],
    ['between December 20 and January 5', ['2025-12-20', '2026-01-05']],
  ])('%s', (text, range) => {
    expect(one(text)).toEqual(range);
  });

  it('"and" makes a range only after "between": two dates are two periods', () => {
    const refs = resolveTemporalReferences('shipments on June 3 and June 5', NOW);
    expect(refs.map((r) => [r.phrase, r.start, r.end])).toEqual([
      ['june 3', '2026-06-03', '2026-06-03'],
      ['june 5', '2026-06-05', '2026-06-05'],
    ]);
  });

  it('a month alone needs a word that makes it a period; a date with no start, or no such day, is none', () => {
    expect(resolveTemporalReferences('May I see the shipments?', NOW)).toEqual([]);
    expect(resolveTemporalReferences('inspections for Jan Becker', NOW)).toEqual([]); // an abbreviation needs a day
    expect(one('loads of Jan 5')).toEqual(['2026-01-05', '2026-01-05']);
    expect(resolveTemporalReferences('shipments before 5 June', NOW)).toEqual([]);
    expect(resolveTemporalReferences('inspections on 31 June', NOW)).toEqual([]);
    expect(resolveTemporalReferences('carried by EcoTrans AG in 2026 and 300 tons', NOW)).toEqual([]);
  });
});

describe('quarters, rolling periods in words or months, weekdays (now = Monday 2026-11-23)', () => {
  it.each([
    ['loads of the past two weeks', ['2026-11-10', '2026-11-23']],
    ['loans refused over the past fortnight', ['2026-11-10', '2026-11-23']],
    ['last fortnight', ['2026-11-10', '2026-11-23']],
    ['the last seven days', ['2026-11-17', '2026-11-23']],
    ['the last 3 months', ['2026-08-24', '2026-11-23']],
    ['this quarter', ['2026-10-01', '2026-11-23']],
    ['last quarter', ['2026-07-01', '2026-09-30']],
    ['the Q2 figures', ['2026-04-01', '2026-06-30']],
    ['in Q3 2025', ['2025-07-01', '2025-09-30']],
    ['since Monday', ['2026-11-23', '2026-11-23']],
    ['what arrived on Friday', ['2026-11-20', '2026-11-20']],
    ['last Monday', ['2026-11-16', '2026-11-16']],
  ])('%s', (text, range) => {
    expect(one(text)).toEqual(range);
  });

  it('a weekday without a word that dates it ("to Friday") is none, nor is "last 0 days"', () => {
    expect(resolveTemporalReferences('Move the meeting to Friday', NOW)).toEqual([]);
    expect(resolveTemporalReferences('the last 0 days', NOW)).toEqual([]);
  });
});
