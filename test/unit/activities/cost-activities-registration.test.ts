/**
 * The cost activities the planner's workflow calls as local activities (forecastCost, recordCosts) are registered
 * however the planner runs: plannerPlugin registers its own over a worker's, and a worker without a cost history
 * (createPlannerWorker given activities without them) forecasts from the plan's estimate and refuses a record, saying
 * why.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCostHistoryActivities } from '../../../src/activities/cost-history';
import { readFailure } from '../../../src/api/failures';
import { loadConfig } from '../../../src/config';
import { forecastPlan } from '../../../src/domain/cost-forecast';
import { plannerPlugin } from '../../../src/planner-plugin';
import { LocalContentStore } from '../../../src/store/content-store';
import { rankingPlan } from '../../support/planning';

const plan = rankingPlan('Get me shipments from last week');
const routes = { shipments: { queues: ['q'], cost_per_call_usd: 0.01, tokens_per_call: 0, idempotent: true } };

test("plannerPlugin registers the planner's cost activities over a worker's own of the same name", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'planner-store-'));
  const theirs = async () => 'theirs';
  const configured = await plannerPlugin({
    packs: [],
    store: new LocalContentStore(dir),
    config: loadConfig({ PLANNER_STORE_DIR: dir }),
  }).configureWorker!({ taskQueue: 'q', activities: { forecastCost: theirs, recordCosts: theirs, mine: theirs } });
  const activities = configured.activities as Record<string, unknown>;
  expect(typeof activities.forecastCost).toBe('function');
  expect(activities.forecastCost).not.toBe(theirs);
  expect(activities.recordCosts).not.toBe(theirs);
  expect(activities.mine).toBe(theirs);
});

describe('without a cost history', () => {
  const { forecastCost, recordCosts } = createCostHistoryActivities(undefined);

  test("the forecast is the plan's estimate alone", async () => {
    const forecast = await forecastCost({ plan, routes });
    expect(forecast).toEqual(forecastPlan(plan, routes, {}));
    expect(forecast).toMatchObject({ from_history: 0, basis: [] });
  });

  test('a record is refused, saying the worker keeps no cost history', async () => {
    const refused = await recordCosts({ samples: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(readFailure(refused)).toMatchObject({
      type: 'WorkerFailureError',
      message: 'this worker keeps no cost history: its activities were given without recordCosts',
    });
  });
});
