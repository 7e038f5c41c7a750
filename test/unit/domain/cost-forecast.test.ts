/**
 * The cost forecast a person sees before approving: from recorded costs where a tool has enough of them, from the
 * plan's estimate where not; dollars, tokens and calls summed over steps, seconds along the longest dependency path.
 */
import { PlanSchema } from '../../../src/domain/plan';
import {
  ESTIMATE_SECONDS_P90_FACTOR,
  forecastOutcome,
  forecastPlan,
  MIN_SAMPLES,
  quantile,
  type CostSample,
} from '../../../src/domain/cost-forecast';
import type { ToolRoute } from '../../../src/domain/routing';
import { validPlanInput } from '../../support/plans';

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
  expect(f.p90.seconds).toBeCloseTo((900 + 2 * STEP_MS * ESTIMATE_SECONDS_P90_FACTOR) / 1000, 9);
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
  const f = forecastPlan(plan, routes, {}, new Set(['1.1']));
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

test('quantile is nearest-rank', () => {
  expect(quantile([5, 1, 3], 0.5)).toBe(3);
  expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
  expect(quantile([7], 0.9)).toBe(7);
});
