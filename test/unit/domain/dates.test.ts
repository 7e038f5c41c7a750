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
