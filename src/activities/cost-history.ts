/**
 * The recorded costs of past runs, by subject (`tool:<name>`, `llm-step`), kept in the ledger beside the other
 * ledgers so they live where a run's store lives (files, or PostgreSQL shared by every worker): the latest
 * MAX_SAMPLES per subject under `cost-history:<subject>`, and the latest MAX_SAMPLES duration residuals of any subject
 * under `cost-residuals` (how much this machine's step durations vary). A finished run adds what each of its steps
 * cost (`recordCosts`); a run about to wait for approval reads them to forecast its plan (`forecastCost`), with its
 * catalog's schemas telling which steps fan out (one call per row of another step, src/domain/fan-out.ts). Without a
 * ledger (a worker given activities without these, see createPlannerWorker) there is no history: the forecast comes
 * from the plan's estimate, and a record is refused, saying why.
 */
import { z } from 'zod';
import { withPlannerFailures } from '../api/failures';
import {
  CostSampleSchema,
  costSubject,
  durationResidual,
  forecastPlan,
  MAX_SAMPLES,
  type CostForecast,
  type CostSample,
} from '../domain/cost-forecast';
import { WorkerFailureError } from '../domain/errors';
import { fannedParams } from '../domain/fan-out';
import { flattenSteps, PlanSchema, type Plan } from '../domain/plan';
import type { ToolSpec } from '../domain/tool-spec';
import type { IdempotencyLedger } from '../store/idempotency';
import type { ToolCatalogs } from '../tools/registry';
import { parseInput } from './parse-input';

const keyOf = (subject: string) => `cost-history:${subject}`;
/** The machine's latest duration residuals, any subject (src/domain/cost-forecast.ts `durationResidual`). */
const RESIDUALS_KEY = 'cost-residuals';
const ResidualsSchema = z.object({ residuals: z.array(z.number().finite()) });

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
  /** The run's catalog, whose tools' schemas say which steps fan out; without it no step is taken to fan out. */
  tool_catalog: z.string().min(1).max(300).optional(),
});

const RecordInputSchema = z.object({
  samples: z.record(z.string().max(300), z.array(CostSampleSchema).max(MAX_SAMPLES)),
});

async function samplesOf(ledger: IdempotencyLedger | undefined, subject: string): Promise<CostSample[]> {
  if (!ledger) return [];
  const stored = z.object({ samples: z.array(CostSampleSchema) }).safeParse(await ledger.get(keyOf(subject)));
  return stored.success ? stored.data.samples.slice(-MAX_SAMPLES) : []; // an unreadable entry is no history
}

async function residualsOf(ledger: IdempotencyLedger | undefined): Promise<number[]> {
  if (!ledger) return [];
  const stored = ResidualsSchema.safeParse(await ledger.get(RESIDUALS_KEY));
  return stored.success ? stored.data.residuals.slice(-MAX_SAMPLES) : [];
}

/** Replaces what is recorded under `key`: the ledger keeps the first record of a key, so it is removed first. */
async function replace(ledger: IdempotencyLedger, key: string, value: unknown): Promise<void> {
  await ledger.remove(key);
  await ledger.record(key, value);
}

/** For each fan-out step of `plan` (by id), the indexes of the steps whose rows it runs once per. */
function fanOutSources(plan: Plan, catalog: readonly ToolSpec[]): Record<string, number[]> {
  const specs = new Map(catalog.map((t) => [t.name, t]));
  const sources: Record<string, number[]> = {};
  for (const step of flattenSteps(plan)) {
    const spec = step.tool ? specs.get(step.tool) : undefined;
    const fanned = spec ? fannedParams(step.params, spec.parameters) : [];
    if (fanned.length > 0) sources[step.id] = fanned.map((p) => p.from_step);
  }
  return sources;
}

export function createCostHistoryActivities(ledger: IdempotencyLedger | undefined, catalogs?: ToolCatalogs) {
  return {
    /** The forecast of a plan's cost from the recorded costs of its tools (src/domain/cost-forecast.ts). */
    forecastCost: withPlannerFailures(async (input: z.input<typeof ForecastInputSchema>): Promise<CostForecast> => {
      const { plan, routes, done_step_ids, tool_catalog } = parseInput(ForecastInputSchema, input, 'forecastCost');
      const subjects = new Set(flattenSteps(plan).flatMap((s) => costSubject(s) ?? []));
      const history: Record<string, CostSample[]> = {};
      for (const subject of subjects) history[subject] = await samplesOf(ledger, subject);
      return forecastPlan(plan, routes, history, {
        done: new Set(done_step_ids),
        fanned: tool_catalog && catalogs ? fanOutSources(plan, catalogs.get(tool_catalog)) : {},
        residuals: await residualsOf(ledger),
      });
    }),

    /**
     * Adds a finished run's step costs to the history, and how far each duration fell from its subject's earlier ones
     * to the machine's residuals. Entries are replaced (see replace): two runs finishing at once may lose one's
     * samples, which a forecast survives.
     */
    recordCosts: withPlannerFailures(
      async (input: z.input<typeof RecordInputSchema>): Promise<{ subjects: number }> => {
        const { samples } = parseInput(RecordInputSchema, input, 'recordCosts');
        if (!ledger)
          throw new WorkerFailureError(
            'this worker keeps no cost history: its activities were given without recordCosts',
          );
        const residuals = await residualsOf(ledger);
        for (const [subject, added] of Object.entries(samples)) {
          const kept = await samplesOf(ledger, subject);
          for (const sample of added) {
            const residual = durationResidual(kept.slice(-MAX_SAMPLES), sample);
            if (residual !== null) residuals.push(residual);
            kept.push(sample);
          }
          await replace(ledger, keyOf(subject), { samples: kept.slice(-MAX_SAMPLES) });
        }
        await replace(ledger, RESIDUALS_KEY, { residuals: residuals.slice(-MAX_SAMPLES) });
        return { subjects: Object.keys(samples).length };
      },
    ),
  };
}

export type CostHistoryActivities = ReturnType<typeof createCostHistoryActivities>;
