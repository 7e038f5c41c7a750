/**
 * The recorded costs and the forecast made from them: a finished run's samples (with the rows each step returned)
 * forecast the next plan, whose catalog's schemas say which steps fan out.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createCostHistoryActivities } from '../../../src/activities/cost-history';
import { MIN_SAMPLES, type CostSample } from '../../../src/domain/cost-forecast';
import { PlanSchema } from '../../../src/domain/plan';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';
import { builtInCatalogs, DEFAULT_CATALOG } from '../../../src/tools/registry';
import { fanOutPlan, validPlanInput } from '../../support/plans';

const mock = new MockActivityEnvironment();
const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A) => mock.run(fn, ...args) as Promise<R>;
const route = { queues: ['q'], cost_per_call_usd: 0.001, tokens_per_call: 100, idempotent: true };
const routes = { facilities: route, shipments: route, inspections: route };

/** Facilities, then shipments by facility (one call per facility found), then the inspections of those shipments by id. */
const plan = fanOutPlan({
  id: '1.3',
  title: 'Inspections of those shipments',
  tool: 'inspections',
  params: { shipment_ids: '${step[1].data.*.id}' },
  depends_on: [1],
});

test('a step that takes one facility id per call is forecast at the rows its source returned; a list param is one call', async () => {
  const activities = createCostHistoryActivities(new MemoryIdempotencyLedger(), builtInCatalogs());
  const found = (rows: number): CostSample => ({ calls: 1, tokens: 100, cost_usd: 0.001, ms: 50, rows });
  // Facilities found 2 rows once, then 3 every time.
  const facilities = Array.from({ length: MIN_SAMPLES }, (_, i) => found(i === 0 ? 2 : 3));
  await run(activities.recordCosts, { samples: { 'tool:facilities': facilities } });
  const forecast = await run(activities.forecastCost, { plan, routes, tool_catalog: DEFAULT_CATALOG });
  // facilities 1 call; shipments once per facility (p50 and p90: 3); inspections 1 call.
  expect(forecast.p50.calls).toBe(1 + 3 + 1);
  expect(forecast.p90.calls).toBe(1 + 3 + 1);
  // Without the catalog no step is known to fan out.
  const blind = await run(activities.forecastCost, { plan, routes });
  expect(blind.p90.calls).toBe(3);
});

test("recorded durations tell how much the machine varies: a steady tool's forecast is widened by the others' spread", async () => {
  const activities = createCostHistoryActivities(new MemoryIdempotencyLedger(), builtInCatalogs());
  const took = (ms: number): CostSample => ({ calls: 1, tokens: 100, cost_usd: 0.001, ms });
  const one = PlanSchema.parse({
    ...validPlanInput(),
    tasks: [{ id: '1', title: 'One', steps: [{ id: '1.1', title: 'Facilities', tool: 'facilities', params: {} }] }],
  });
  await run(activities.recordCosts, { samples: { 'tool:facilities': [100, 100, 100].map(took) } });
  const steady = await run(activities.forecastCost, { plan: one, routes });
  expect(steady.p90.seconds).toBe(0.1);
  // Another tool's durations swing by a factor of 4 on this machine.
  await run(activities.recordCosts, { samples: { 'tool:shipments': [50, 200, 50, 200, 50].map(took) } });
  const widened = await run(activities.forecastCost, { plan: one, routes });
  expect(widened.p50.seconds).toBe(0.1);
  expect(widened.p90.seconds).toBeGreaterThan(0.2);
});
