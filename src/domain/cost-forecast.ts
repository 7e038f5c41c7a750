/**
 * What a plan will cost to execute, forecast before a person approves it: calls, tokens, dollars and seconds, each
 * as p50 and p90. A step's figures come from the recorded costs of its tool (or of `llm` steps) in past runs — the
 * samples a finished run records (src/activities/cost-history.ts) — once there are MIN_SAMPLES of them, else from the
 * plan's estimate (the catalog's per-call figures, and the plan's duration shared along its longest chain).
 *
 * - Seconds from history: p50 is the samples' median; p90 is the upper 90% prediction bound of the next duration,
 *   durations taken as log-normal (a loaded machine stretches a step by a factor, not by a fixed amount): the mean of
 *   the log durations plus Student's t quantile times their spread, widened by √(1 + 1/n), so that a few samples give
 *   a wide bound; never below the samples' own nearest-rank p90. How much durations vary is mostly the machine's
 *   doing (its load), shared by every tool it runs, so the spread is at least the machine's: the root mean square of
 *   the latest steps' residuals (how far each one's log duration fell from its subject's mean before it, any subject).
 * - A fan-out step (a `.*` template given to a param that takes one value runs it once per row of the step named,
 *   ./fan-out) is forecast per call, times the rows that step is expected to return: the p50 or p90 of the row counts
 *   recorded for that step's subject, or one row (the estimate's one call) without MIN_SAMPLES of them; at most
 *   MAX_FAN_OUT calls.
 *
 * The plan's dollars, tokens and calls are the sum over its steps; its seconds are the longest path through the step
 * DAG. Summing step p90s over-covers the p90 of the sum, which is the side a forecast shown before approval should
 * err on.
 */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { addUsage, stepUsageEstimate, ZERO_USAGE } from './budget';
import { topologicalLayers } from './dag';
import { MAX_FAN_OUT } from './fan-out';
import { flattenSteps, type Plan, type Step } from './plan';
import type { ToolRoute } from './routing';

/** Fewer samples than this and a step is forecast from its estimate. */
export const MIN_SAMPLES = 3;
/**
 * A step forecast from the estimate gets this many times its estimated seconds as p90: the plan's duration is a
 * point figure that leaves out scheduling and a loaded machine (on the eval's tuning goals, a step's first runs took
 * up to about its estimate). Not covered: a worker's first call of a pack that opens its database then (the waste
 * pack's PGlite, opened on its first query, src/tools/waste/index.ts: 2.5 to 4 s under load); the recorded samples
 * then carry it. Calls, tokens and dollars keep the catalog's figures: they are what a call is charged.
 */
export const ESTIMATE_SECONDS_P90_FACTOR = 3;
/** Samples kept per subject (the latest). */
export const MAX_SAMPLES = 50;
/** Subjects named in a forecast's basis (a plan has at most this many distinct tools worth listing). */
const MAX_BASIS = 20;

export const CostSampleSchema = sharedSchema('domain/cost-forecast#CostSampleSchema', () =>
  z.object({
    calls: z.number().int().nonnegative(),
    tokens: z.number().int().nonnegative(),
    cost_usd: z.number().nonnegative().finite(),
    ms: z.number().int().nonnegative(),
    /** The rows its result held, when a list (absent from samples recorded before rows were kept). */
    rows: z.number().int().nonnegative().optional(),
  }),
);
/** One step's recorded cost: what it was charged, how long it ran by the workflow's clock, and the rows it returned. */
export type CostSample = z.output<typeof CostSampleSchema>;

export interface CostFigures {
  calls: number;
  tokens: number;
  cost_usd: number;
  seconds: number;
}

export interface CostForecast {
  p50: CostFigures;
  p90: CostFigures;
  /** Steps forecast from recorded costs, and from the plan's estimate (no or too little history). */
  from_history: number;
  from_estimate: number;
  /** The subjects with history and how many samples each had (at most MAX_BASIS). */
  basis: { subject: string; samples: number }[];
}

/** Whether a finished version's actual cost fell within its p90 forecast, in every dimension. */
export interface ForecastOutcome {
  version: number;
  within_p90: boolean;
  actual: CostFigures;
  p90: CostFigures;
  /** The dimensions where actual exceeded p90. */
  over: (keyof CostFigures)[];
}

/** Whose recorded costs forecast `step`: its tool, or `llm-step` for every `llm` step; null for steps that cost nothing. */
export function costSubject(step: Step): string | null {
  if (step.action === 'tool_call' && step.tool) return `tool:${step.tool}`;
  return step.action === 'llm' ? 'llm-step' : null;
}

/** The nearest-rank quantile `q` (0–1) of `values` (not empty). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** What a forecast knows besides the plan and the recorded costs by subject. */
export interface ForecastContext {
  /** Ids of the steps a re-plan keeps: they cost nothing more. */
  done?: ReadonlySet<string>;
  /** For each fan-out step (by id), the indexes of the steps whose rows it runs once per, one per fanned param. */
  fanned?: Readonly<Record<string, readonly number[]>>;
  /** The machine's latest duration residuals (durationResidual), any subject. */
  residuals?: readonly number[];
}

/** The forecast of the steps of `plan` not done, from `history` by subject. */
export function forecastPlan(
  plan: Pick<Plan, 'tasks' | 'estimate'>,
  routes: Readonly<Record<string, ToolRoute>>,
  history: Readonly<Record<string, readonly CostSample[]>>,
  { done = new Set(), fanned = {}, residuals = [] }: ForecastContext = {},
): CostForecast {
  const steps = flattenSteps(plan);
  const basis = new Map<string, number>();
  let fromHistory = 0;
  // The plan estimates its duration as a whole: each step of its longest chain gets an equal share.
  const estimatedMs = Math.round(
    plan.estimate.duration_ms /
      Math.max(
        1,
        longestPathMs(steps, () => 1),
      ),
  );
  const samplesOf = (step: Step | undefined): readonly CostSample[] => {
    const subject = step ? costSubject(step) : null;
    return subject ? (history[subject] ?? []) : [];
  };
  // How many calls a fan-out step makes at quantile q: the product of the rows its sources are expected to return.
  const callsOf = (sources: readonly number[], q: number): number =>
    Math.min(
      MAX_FAN_OUT,
      sources.reduce((product, i) => product * expectedRows(samplesOf(steps[i]), q), 1),
    );
  const perStep = steps.map((step) => {
    if (done.has(step.id) || step.action === 'noop') return { p50: zeroSample(), p90: zeroSample(), counted: false };
    const subject = costSubject(step);
    const samples = samplesOf(step);
    const sources = fanned[step.id];
    const times = sources?.length ? { p50: callsOf(sources, 0.5), p90: callsOf(sources, 0.9) } : { p50: 1, p90: 1 };
    if (subject && samples.length >= MIN_SAMPLES) {
      basis.set(subject, samples.length);
      fromHistory++;
      // A fan-out step's samples count every call it made: it is forecast from what one call cost.
      const perCall = sources?.length ? samples.map(perCallSample) : samples;
      const durations = perCall.map((s) => s.ms);
      const p90 = { ...quantileSample(perCall, 0.9), ms: msP90(durations, residuals) };
      return {
        p50: scaleSample(quantileSample(perCall, 0.5), times.p50),
        p90: scaleSample(p90, times.p90),
        counted: true,
      };
    }
    // A person's wait (a `human` step) is not forecast: it takes what the person takes.
    const estimate = {
      ...stepUsageEstimate(step.action, step.tool ? routes[step.tool] : undefined),
      ms: step.action === 'human' ? 0 : estimatedMs,
    };
    return {
      p50: scaleSample(estimate, times.p50),
      p90: scaleSample({ ...estimate, ms: estimate.ms * ESTIMATE_SECONDS_P90_FACTOR }, times.p90),
      counted: true,
    };
  });
  const counted = perStep.filter((s) => s.counted).length;
  const figures = (q: 'p50' | 'p90'): CostFigures => {
    const usage = perStep.reduce((sum, s) => addUsage(sum, s[q]), ZERO_USAGE);
    return { ...usage, seconds: longestPathMs(steps, (i) => perStep[i]![q].ms) / 1000 };
  };
  return {
    p50: figures('p50'),
    p90: figures('p90'),
    from_history: fromHistory,
    from_estimate: counted - fromHistory,
    basis: [...basis].slice(0, MAX_BASIS).map(([subject, samples]) => ({ subject, samples })),
  };
}

/** Compares what a version cost with its forecast's p90. */
export function forecastOutcome(version: number, forecast: CostForecast, actual: CostFigures): ForecastOutcome {
  const dimensions = ['calls', 'tokens', 'cost_usd', 'seconds'] as const;
  // Dollars are compared to the nano-dollar, as budgets keep them.
  const over = dimensions.filter((d) => Math.round((actual[d] - forecast.p90[d]) * 1e9) > 0);
  return { version, within_p90: over.length === 0, actual, p90: forecast.p90, over };
}

/** "2 call(s), 600 tokens, $0.000200, 1.0 s" */
export function costFiguresText(f: CostFigures): string {
  return `${f.calls} call(s), ${f.tokens} tokens, $${f.cost_usd.toFixed(6)}, ${f.seconds.toFixed(1)} s`;
}

const zeroSample = (): CostSample => ({ ...ZERO_USAGE, ms: 0 });

function quantileSample(samples: readonly CostSample[], q: number): CostSample {
  const at = (figure: (s: CostSample) => number) => quantile(samples.map(figure), q);
  return {
    calls: at((s) => s.calls),
    tokens: at((s) => s.tokens),
    cost_usd: at((s) => s.cost_usd),
    ms: at((s) => s.ms),
  };
}

/** What one of a sample's calls cost (a sample of no call is kept whole). */
function perCallSample(s: CostSample): CostSample {
  const n = Math.max(1, s.calls);
  return { calls: s.calls / n, tokens: s.tokens / n, cost_usd: s.cost_usd / n, ms: s.ms / n };
}

/** `s` for `times` calls, run one after another; whole calls and tokens, rounded up. */
function scaleSample(s: CostSample, times: number): CostSample {
  return {
    calls: Math.ceil(s.calls * times),
    tokens: Math.ceil(s.tokens * times),
    cost_usd: s.cost_usd * times,
    ms: Math.round(s.ms * times),
  };
}

/** The rows a step is expected to return at quantile q: from the row counts recorded for its subject, else one. */
function expectedRows(samples: readonly CostSample[], q: number): number {
  const rows = samples.flatMap((s) => (s.rows === undefined ? [] : [s.rows]));
  return rows.length >= MIN_SAMPLES ? quantile(rows, q) : 1;
}

/**
 * The one-sided 90% quantile of Student's t with `df` degrees of freedom: the Cornish–Fisher expansion around the
 * normal's 1.2816 (within about 2% of the exact value from 2 degrees of freedom up).
 */
export function studentT90(df: number): number {
  const z = 1.2816;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

/**
 * The upper 90% prediction bound of the next duration given `ms` (at least 2 samples), durations taken as log-normal
 * (a millisecond at least), their spread at least the machine's (`residuals`, from 2 of them); never below the
 * samples' nearest-rank p90.
 */
export function msP90(ms: readonly number[], residuals: readonly number[] = []): number {
  const logs = ms.map(logMs);
  const n = logs.length;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const spread = Math.sqrt(logs.reduce((sum, l) => sum + (l - mean) ** 2, 0) / (n - 1));
  const own = studentT90(n - 1) * spread * Math.sqrt(1 + 1 / n);
  // A residual is already a prediction error (it includes the uncertainty of the mean it was measured from).
  const machine =
    residuals.length >= 2
      ? studentT90(residuals.length) * Math.sqrt(residuals.reduce((sum, r) => sum + r * r, 0) / residuals.length)
      : 0;
  return Math.max(quantile(ms, 0.9), Math.round(Math.exp(mean + Math.max(own, machine))));
}

/** How far `sample`'s log duration fell from the mean of its subject's earlier ones; null without any. */
export function durationResidual(earlier: readonly CostSample[], sample: CostSample): number | null {
  if (earlier.length === 0) return null;
  return logMs(sample.ms) - earlier.reduce((sum, s) => sum + logMs(s.ms), 0) / earlier.length;
}

const logMs = (ms: number) => Math.log(Math.max(1, ms));

/** The longest chain of `msOf` through the steps' `depends_on`, layer by layer (a validated plan has no cycle). */
function longestPathMs(steps: readonly Step[], msOf: (index: number) => number): number {
  const finish = new Array<number>(steps.length).fill(0);
  for (const layer of topologicalLayers(steps))
    for (const i of layer) finish[i] = Math.max(0, ...steps[i]!.depends_on.map((d) => finish[d] ?? 0)) + msOf(i);
  return Math.max(0, ...finish);
}
