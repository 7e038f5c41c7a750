/**
 * The recorded costs of past runs, by subject (`tool:<name>`, `llm-step`), kept in the ledger beside the other
 * ledgers so they live where a run's store lives (files, or PostgreSQL shared by every worker): the latest
 * MAX_SAMPLES per subject under `cost-history:<subject>`. A finished run adds what each of its steps cost
 * (`recordCosts`); a run about to wait for approval reads them to forecast its plan (`forecastCost`). Without a
 * ledger (a worker given activities without these, see createPlannerWorker) there is no history: the forecast comes
 * from the plan's estimate, and a record is refused, saying why.
 */
import { z } from 'zod';
import { withPlannerFailures } from '../api/failures';
import {
  CostSampleSchema,
  costSubject,
  forecastPlan,
  MAX_SAMPLES,
  type CostForecast,
  type CostSample,
} from '../domain/cost-forecast';
import { flattenSteps, PlanSchema } from '../domain/plan';
import { WorkerFailureError } from '../domain/errors';
import type { IdempotencyLedger } from '../store/idempotency';
import { parseInput } from './parse-input';

const keyOf = (subject: string) => `cost-history:${subject}`;

const RouteSchema = z.object({
  queues: z.array(z.string()).max(100),
  cost_per_call_usd: z.number().nonnegative().finite(),
  tokens_per_call: z.number().int().nonnegative(),
  idempotent: z.boolean(),
});

const ForecastInputSchema = z.object({
  plan: PlanSchema,
  routes: z.record(z.string().max(300), RouteSchema),
  /** Steps a re-plan keeps (completed before): they cost nothing more. */
  done_step_ids: z.array(z.string().max(64)).max(10_000).default([]),
});

const RecordInputSchema = z.object({
  samples: z.record(z.string().max(300), z.array(CostSampleSchema).max(MAX_SAMPLES)),
});

async function samplesOf(ledger: IdempotencyLedger | undefined, subject: string): Promise<CostSample[]> {
  if (!ledger) return [];
  const stored = z.object({ samples: z.array(CostSampleSchema) }).safeParse(await ledger.get(keyOf(subject)));
  return stored.success ? stored.data.samples.slice(-MAX_SAMPLES) : []; // an unreadable entry is no history
}

export function createCostHistoryActivities(ledger: IdempotencyLedger | undefined) {
  return {
    /** The forecast of a plan's cost from the recorded costs of its tools (src/domain/cost-forecast.ts). */
    forecastCost: withPlannerFailures(async (input: z.input<typeof ForecastInputSchema>): Promise<CostForecast> => {
      const { plan, routes, done_step_ids } = parseInput(ForecastInputSchema, input, 'forecastCost');
      const subjects = new Set(flattenSteps(plan).flatMap((s) => costSubject(s) ?? []));
      const history: Record<string, CostSample[]> = {};
      for (const subject of subjects) history[subject] = await samplesOf(ledger, subject);
      return forecastPlan(plan, routes, history, new Set(done_step_ids));
    }),

    /**
     * Adds a finished run's step costs to the history. The ledger keeps the first record of a key, so an entry is
     * replaced by removing it first: two runs finishing at once may lose one's samples, which a forecast survives.
     */
    recordCosts: withPlannerFailures(
      async (input: z.input<typeof RecordInputSchema>): Promise<{ subjects: number }> => {
        const { samples } = parseInput(RecordInputSchema, input, 'recordCosts');
        if (!ledger)
          throw new WorkerFailureError(
            'this worker keeps no cost history: its activities were given without recordCosts',
          );
        for (const [subject, added] of Object.entries(samples)) {
          const kept = [...(await samplesOf(ledger, subject)), ...added].slice(-MAX_SAMPLES);
          await ledger.remove(keyOf(subject));
          await ledger.record(keyOf(subject), { samples: kept });
        }
        return { subjects: Object.keys(samples).length };
      },
    ),
  };
}

export type CostHistoryActivities = ReturnType<typeof createCostHistoryActivities>;
