/**
 * The cost forecast a person sees before approving: from recorded costs where a tool has enough of them, from the
 * plan's estimate where not; dollars, tokens and calls summed over steps, seconds along the longest dependency path.
 * A fan-out step costs one call per row of its source; a p90 of seconds from few samples is wide.
 */
import { PlanSchema } from '../../../src/domain/plan';
import {
  durationResidual,
  ESTIMATE_SECONDS_P90_FACTOR,
  forecastOutcome,
  forecastPlan,
  MIN_SAMPLES,
  msP90,
  quantile,
  studentT90,
  type CostSample,
} from '../../../src/domain/cost-forecast';
import { MAX_FAN_OUT } from '../../../src/domain/fan-out';
import type { ToolRoute } from '../../../src/domain/routing';
import { fanOutPlan, validPlanInput } from '../../support/plans';

/** shipments → contaminants-detected → write-report, a chain estimated at 3 s: 1 s a step. */
const plan = PlanSchema.parse(validPlanInput());
const STEP_MS = 1_000;
const route = (cost: number, tokens: number, idempotent = true): ToolRoute => ({
  queues: ['q'],
  cost_per_call_usd: cost,
  tokens_per_call: tokens,
  idempotent,
});
const routes = {
  shipments: route(0.001, 400),
  'contaminants-detected': route(0.002, 100),
  'write-report': route(0, 0, false),
};
const sample = (cost_usd: number, ms: number, calls = 1, tokens = 10): CostSample => ({ calls, tokens, cost_usd, ms });
/** n samples of `ms` each, alike in everything else. */
const steady = (n: number, ms: number, extra: Partial<CostSample> = {}) =>
  Array.from({ length: n }, () => ({ ...sample(0.001, ms), ...extra }));

test("without history every step is forecast from its estimate: the catalog figures, the plan's duration shared along its chain, widened for p90", () => {
  const f = forecastPlan(plan, routes, {});
  expect(f.p50).toEqual({ calls: 3, tokens: 500, cost_usd: 0.003, seconds: 3 });
  expect(f.p90).toEqual({ ...f.p50, seconds: 3 * ESTIMATE_SECONDS_P90_FACTOR });
  expect(f).toMatchObject({ from_history: 0, from_estimate: 3, basis: [] });
});

test('a tool with enough samples is forecast from them (nearest-rank p50 and p90); one with too few keeps its estimate', () => {
  const shipments = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => sample(i / 1000, i * 100));
  const f = forecastPlan(plan, routes, {
    'tool:shipments': shipments,
    'tool:contaminants-detected': shipments.slice(0, MIN_SAMPLES - 1),
  });
  expect(f).toMatchObject({ from_history: 1, from_estimate: 2, basis: [{ subject: 'tool:shipments', samples: 10 }] });
  expect(f.p50.cost_usd).toBeCloseTo(0.005 + 0.002, 9);
  expect(f.p90.cost_usd).toBeCloseTo(0.009 + 0.002, 9);
  expect(f.p50.tokens).toBe(10 + 100);
  expect(f.p50.seconds).toBeCloseTo((500 + 2 * STEP_MS) / 1000, 9);
  // p90 of seconds: the log-normal prediction bound of shipments' next duration, which is above its samples' p90.
  const shipmentsP90 = msP90(shipments.map((s) => s.ms));
  expect(shipmentsP90).toBeGreaterThan(900);
  expect(f.p90.seconds).toBeCloseTo((shipmentsP90 + 2 * STEP_MS * ESTIMATE_SECONDS_P90_FACTOR) / 1000, 9);
});

test('seconds follow the longest path, not the sum: two independent steps take as long as the slower', () => {
  const parallel = PlanSchema.parse({
    ...validPlanInput(),
    tasks: [
      {
        id: '1',
        title: 'Both at once',
        steps: [
          { id: 'a', title: 'A', tool: 'shipments', params: {} },
          { id: 'b', title: 'B', tool: 'contaminants-detected', params: {} },
        ],
      },
    ],
  });
  const slow = Array.from({ length: 5 }, () => sample(0, 4_000));
  const f = forecastPlan(parallel, routes, { 'tool:contaminants-detected': slow });
  expect(f.p50.seconds).toBe(4); // a: 3 s (the plan's 3 s over a chain of one), b: 4 s recorded; not 7
  expect(f.p50.calls).toBe(2);
});

test('steps a re-plan keeps cost nothing more, and a noop costs nothing', () => {
  const f = forecastPlan(plan, routes, {}, { done: new Set(['1.1']) });
  expect(f.p50).toMatchObject({ calls: 2, tokens: 100, cost_usd: 0.002 });
  expect(f.from_estimate).toBe(2);
});

test('the outcome names each dimension over p90; dollars are compared to the nano-dollar', () => {
  const f = forecastPlan(plan, routes, {});
  const exact = forecastOutcome(1, f, { ...f.p90, cost_usd: 0.001 + 0.002 });
  expect(exact).toMatchObject({ within_p90: true, over: [] });
  const slow = forecastOutcome(1, f, { ...f.p90, seconds: f.p90.seconds + 1, calls: 4 });
  expect(slow).toMatchObject({ within_p90: false, over: ['calls', 'seconds'] });
});

describe('a fan-out step (one call per row of its source step)', () => {
  const fanPlan = fanOutPlan(); // facilities → shipments once per facility found
  const fanRoutes = { facilities: route(0.001, 100), shipments: route(0.002, 400) };
  const fanned = { '1.2': [0] };
  // Facilities found 1, 2, 2, 3 and 4 rows: p50 2, p90 4.
  const facilities = [1, 2, 2, 3, 4].map((rows) => ({ ...sample(0.001, 100), rows }));

  test("is forecast at the source's recorded rows (p50 and p90) times one call's cost", () => {
    // Two earlier fan-outs of three calls each: one call costs $0.002, 10 tokens and 50 ms.
    const shipments = steady(MIN_SAMPLES, 150, { calls: 3, tokens: 30, cost_usd: 0.006 });
    const f = forecastPlan(
      fanPlan,
      fanRoutes,
      { 'tool:facilities': facilities, 'tool:shipments': shipments },
      { fanned },
    );
    expect(f.p50).toMatchObject({ calls: 1 + 2, tokens: 10 + 2 * 10 });
    expect(f.p50.cost_usd).toBeCloseTo(0.001 + 2 * 0.002, 9);
    expect(f.p90.calls).toBe(1 + 4);
    expect(f.p90.cost_usd).toBeCloseTo(0.001 + 4 * 0.002, 9);
    expect(f.p50.seconds).toBeCloseTo((100 + 2 * 50) / 1000, 9); // the calls run one after another
  });

  test('without history either, it is forecast from the estimate times the rows', () => {
    const f = forecastPlan(fanPlan, fanRoutes, { 'tool:facilities': facilities }, { fanned });
    expect(f.p90.calls).toBe(1 + 4);
    expect(f.p90.tokens).toBe(10 + 4 * 400);
    expect(f.from_estimate).toBe(1);
  });

  test('without MIN_SAMPLES row counts of its source it is one call, the estimate; the same step not fanned is one call', () => {
    const fewRows = facilities.map((s, i) => (i < MIN_SAMPLES - 1 ? s : { ...s, rows: undefined }));
    const few = forecastPlan(fanPlan, fanRoutes, { 'tool:facilities': fewRows }, { fanned });
    expect(few.p90.calls).toBe(2);
    const notFanned = forecastPlan(fanPlan, fanRoutes, { 'tool:facilities': facilities });
    expect(notFanned.p90.calls).toBe(2);
  });

  test('is at most MAX_FAN_OUT calls, whatever its sources returned', () => {
    const many = steady(MIN_SAMPLES, 100, { rows: 40 });
    const twoSources = { '1.2': [0, 0] }; // two fanned params: one call per combination
    const f = forecastPlan(fanPlan, fanRoutes, { 'tool:facilities': many }, { fanned: twoSources });
    expect(f.p90.calls).toBe(1 + MAX_FAN_OUT);
  });
});

describe('the p90 of seconds from recorded samples', () => {
  test('is wider than the samples reach when there are few of them, and narrows as more agree', () => {
    const spread = [80, 100, 125]; // a loaded machine stretches a step by a factor
    expect(msP90(spread)).toBeGreaterThan(125);
    const more = msP90([...spread, ...spread, ...spread, ...spread, ...spread]);
    expect(more).toBeLessThan(msP90(spread));
    expect(more).toBeGreaterThanOrEqual(quantile([...spread, ...spread], 0.9));
  });

  test('is the samples themselves when they all agree, and the machine does not vary', () => {
    expect(msP90([200, 200, 200])).toBe(200);
    expect(msP90([200, 200, 200], [0, 0, 0])).toBe(200);
  });

  test("is at least as wide as the machine's variation: a tool's few steady samples do not make it tight", () => {
    // Other tools' steps landed a factor e^0.5 above or below their own earlier durations.
    const residuals = [0.5, -0.5, 0.5, -0.5];
    expect(msP90([200, 200, 200], residuals)).toBe(Math.round(200 * Math.exp(studentT90(4) * 0.5)));
    // A tool that varies more than the machine keeps its own, wider bound.
    const wild = [50, 200, 800];
    expect(msP90(wild, residuals)).toBe(msP90(wild));
  });

  test("a residual is how far a step's log duration fell from its subject's earlier mean", () => {
    const at = (ms: number) => sample(0, ms);
    expect(durationResidual([], at(100))).toBeNull();
    expect(durationResidual([at(100), at(100)], at(200))).toBeCloseTo(Math.log(2), 9);
    expect(durationResidual([at(50), at(200)], at(100))).toBeCloseTo(0, 9); // the geometric mean
  });

  test("uses Student's t: wide with 2 degrees of freedom, near the normal's 1.2816 with many", () => {
    expect(studentT90(2)).toBeCloseTo(1.886, 1);
    expect(studentT90(10)).toBeCloseTo(1.372, 2);
    expect(studentT90(1_000)).toBeCloseTo(1.2824, 3);
  });
});

test('quantile is nearest-rank', () => {
  expect(quantile([5, 1, 3], 0.5)).toBe(3);
  expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
  expect(quantile([7], 0.9)).toBe(7);
});
