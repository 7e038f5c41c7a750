/**
 * A plan's cost forecast (src/domain/cost-forecast.ts): made when the plan passed the gatekeeper, before a person is
 * asked, by a local activity that reads the recorded costs of past runs; kept on the version record. When the run
 * completes, what its steps cost is compared with the forecast's p90 (`forecast_outcome`) and added to the recorded
 * costs. Neither may fail a run: without history or a ledger the run goes on, and says so in its audit.
 */
import { isCancellation } from '@temporalio/workflow';
import { readFailure } from '../api/failures';
import {
  costFiguresText,
  costSubject,
  forecastOutcome,
  type CostFigures,
  type CostSample,
} from '../domain/cost-forecast';
import { addUsage, ZERO_USAGE } from '../domain/budget';
import { flattenSteps } from '../domain/plan';
import { adviceActivities } from './activities';
import type { PlanningRun } from './run';
import { stepKey } from './step-key';

export async function forecastCost(run: PlanningRun): Promise<void> {
  const { state } = run;
  const plan = state.plan!;
  const done = flattenSteps(plan).filter((s) => state.completed_steps[stepKey(s)] !== undefined);
  try {
    const forecast = await adviceActivities(`forecast plan v${plan.version}'s cost`).forecastCost({
      plan,
      routes: state.routes,
      done_step_ids: done.map((s) => s.id),
      tool_catalog: state.request.tool_catalog,
    });
    run.recordForecast(
      { forecast },
      `cost forecast of plan v${plan.version}: p50 ${costFiguresText(forecast.p50)}; p90 ${costFiguresText(forecast.p90)} (${forecast.from_history} step(s) from recorded costs, ${forecast.from_estimate} from the estimate)`,
    );
  } catch (err) {
    if (isCancellation(err)) throw err;
    run.audit('plan', `no cost forecast for plan v${plan.version}: ${readFailure(err).message}`);
  }
}

/** At completion: the actual cost against the p90 forecast, then the steps' costs join the recorded history. */
export async function settleForecast(run: PlanningRun): Promise<void> {
  const { state } = run;
  const plan = state.plan!;
  const steps = flattenSteps(plan);
  const ran = state.steps.filter((s) => s.status === 'COMPLETED' && s.completed_in_version === plan.version);
  const forecast = state.versions.find((v) => v.version === plan.version)?.forecast;
  if (forecast) {
    const outcome = forecastOutcome(plan.version, forecast, actualCost(ran));
    run.recordForecast(
      { outcome },
      `actual cost of plan v${plan.version}: ${costFiguresText(outcome.actual)}, ${outcome.within_p90 ? 'within' : `over (${outcome.over.join(', ')})`} the p90 forecast`,
    );
  }
  const samples: Record<string, CostSample[]> = {};
  for (const s of ran) {
    const subject = costSubject(steps[s.index]!);
    if (subject && s.result && !s.result.replayed)
      (samples[subject] ??= []).push({
        ...s.result.usage,
        ms: msOf(s),
        ...(s.result.items === null ? {} : { rows: s.result.items }),
      });
  }
  if (Object.keys(samples).length === 0) return;
  try {
    await adviceActivities('record the steps’ costs').recordCosts({ samples });
  } catch (err) {
    if (isCancellation(err)) throw err;
    run.audit('plan', `step costs not recorded for later forecasts: ${readFailure(err).message}`);
  }
}

type RanStep = PlanningRun['state']['steps'][number];

/** What the steps run in this version charged, and the seconds from the first one's start to the last one's end. */
function actualCost(ran: readonly RanStep[]): CostFigures {
  const usage = ran.reduce((sum, s) => addUsage(sum, s.result?.usage ?? ZERO_USAGE), ZERO_USAGE);
  const starts = ran.flatMap((s) => (s.started_at ? [Date.parse(s.started_at)] : []));
  const ends = ran.flatMap((s) => (s.ended_at ? [Date.parse(s.ended_at)] : []));
  const seconds = starts.length && ends.length ? (Math.max(...ends) - Math.min(...starts)) / 1000 : 0;
  return { ...usage, seconds };
}

const msOf = (s: RanStep): number =>
  s.started_at && s.ended_at ? Math.max(0, Date.parse(s.ended_at) - Date.parse(s.started_at)) : 0;
