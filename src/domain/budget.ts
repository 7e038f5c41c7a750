/**
 * ToolBudget: ceilings and spend for cost, tokens and calls. Values are immutable (frozen); every update returns a
 * new budget, so a workflow can keep the history of its budget and replays stay deterministic.
 *
 * What counts as a call: every LLM call and every tool call counts 1 (see callUsage); nothing else does.
 * Policy "block" refuses work that does not fit (the run pauses for a raise); "fail" refuses it and the run ends with
 * PLAN-004 (BudgetExceededError); "warn" lets it run and reports it.
 */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import {
  BudgetExceededError,
  InvalidInputError,
  formatZodIssues,
  type BudgetDimension,
  type Shortfall,
} from './errors';
import type { ActionType } from './plan';
import type { ToolSpec } from './tool-spec';

export const UsageSchema = sharedSchema('domain/budget#UsageSchema', () =>
  z.object({
    cost_usd: z.number().nonnegative().finite(),
    tokens: z.number().int().nonnegative(),
    calls: z.number().int().nonnegative(),
  }),
);
export type Usage = z.output<typeof UsageSchema>;

export const BudgetPolicySchema = sharedSchema('domain/budget#BudgetPolicySchema', () =>
  z.enum(['warn', 'block', 'fail']),
);
export type BudgetPolicy = z.output<typeof BudgetPolicySchema>;

/** Budget ceilings as a request carries them. */
export const BudgetLimitsSchema = sharedSchema('domain/budget#BudgetLimitsSchema', () =>
  UsageSchema.extend({ policy: BudgetPolicySchema.default('block') }),
);
export type BudgetLimits = z.output<typeof BudgetLimitsSchema>;

/** A ToolBudget as it crosses a boundary (workflow → activity, query results). */
export const ToolBudgetSchema = sharedSchema('domain/budget#ToolBudgetSchema', () =>
  z.object({ limit: UsageSchema, spent: UsageSchema, policy: BudgetPolicySchema }),
);

export interface ToolBudget {
  readonly limit: Readonly<Usage>;
  readonly spent: Readonly<Usage>;
  readonly policy: BudgetPolicy;
}

const DIMENSIONS: readonly BudgetDimension[] = ['cost_usd', 'tokens', 'calls'];

/**
 * The largest limits a run's budget may have, at start and after raises: finite, and far inside the range where sums
 * stay exact (tokens and calls are safe integers, dollars keep their nano-dollar rounding).
 */
export const BUDGET_MAXIMA: Readonly<Usage> = Object.freeze({ cost_usd: 1e6, tokens: 1e12, calls: 1e9 });

/** The dimensions in which `limit` is past BUDGET_MAXIMA. */
export function limitsPastMaxima(limit: Usage): BudgetDimension[] {
  return DIMENSIONS.filter((d) => limit[d] > BUDGET_MAXIMA[d]);
}

export const ZERO_USAGE: Readonly<Usage> = Object.freeze({ cost_usd: 0, tokens: 0, calls: 0 });

/** Sums of dollar amounts are kept to nano-dollars so 0.1 + 0.2 fits a 0.3 ceiling. */
function usd(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

function checkedUsage(usage: Usage, what: string): Usage {
  const parsed = UsageSchema.safeParse(usage);
  if (!parsed.success) {
    throw new InvalidInputError(
      `invalid ${what}: ${formatZodIssues(parsed.error).join('; ')}`,
      'Amounts must be finite and >= 0; tokens and calls are integers.',
    );
  }
  return parsed.data;
}

function freezeBudget(limit: Usage, spent: Usage, policy: BudgetPolicy): ToolBudget {
  return Object.freeze({ limit: Object.freeze({ ...limit }), spent: Object.freeze({ ...spent }), policy });
}

export function createBudget(limits: {
  cost_usd: number;
  tokens: number;
  calls: number;
  policy?: BudgetPolicy;
}): ToolBudget {
  const { policy = 'block', ...limit } = limits;
  return freezeBudget(checkedUsage(limit, 'budget limit'), ZERO_USAGE, policy);
}

/** Usage of one LLM or tool call: the only place that says a call counts 1. */
export function callUsage(cost_usd: number, tokens: number): Usage {
  return { cost_usd, tokens, calls: 1 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { cost_usd: usd(a.cost_usd + b.cost_usd), tokens: a.tokens + b.tokens, calls: a.calls + b.calls };
}

/** Records spend that happened; never refuses (the work is done), so it may leave the budget over its limits. */
export function charge(budget: ToolBudget, usage: Usage): ToolBudget {
  return freezeBudget(budget.limit, addUsage(budget.spent, checkedUsage(usage, 'usage')), budget.policy);
}

export function remaining(budget: ToolBudget): Usage {
  const { limit, spent } = budget;
  return {
    cost_usd: Math.max(0, usd(limit.cost_usd - spent.cost_usd)),
    tokens: Math.max(0, limit.tokens - spent.tokens),
    calls: Math.max(0, limit.calls - spent.calls),
  };
}

export function withinLimits(budget: ToolBudget): boolean {
  return DIMENSIONS.every((d) => budget.spent[d] <= budget.limit[d]);
}

/** The dimensions in which `estimate` does not fit what is left, with required vs available amounts. */
export function shortfalls(budget: ToolBudget, estimate: Usage): Shortfall[] {
  const left = remaining(budget);
  const need = checkedUsage(estimate, 'estimate');
  return DIMENSIONS.filter((d) => need[d] > left[d]).map((d) => ({
    dimension: d,
    required: need[d],
    available: left[d],
  }));
}

export function canAfford(budget: ToolBudget, estimate: Usage): boolean {
  return shortfalls(budget, estimate).length === 0;
}

/** Unless the policy is "warn", throws BudgetExceededError when `estimate` does not fit; under "warn" returns the shortfalls to report. */
export function requireAffordable(budget: ToolBudget, estimate: Usage): Shortfall[] {
  const missing = shortfalls(budget, estimate);
  if (missing.length > 0 && budget.policy !== 'warn') throw new BudgetExceededError(missing);
  return missing;
}

/**
 * What one LLM call is expected to use before it is made: a call of 2,000 tokens (prompt and reply); its price is
 * the provider's, known only when it answers. The budget checks before an analysis, a plan generation and an llm step.
 */
export const LLM_CALL_ESTIMATE: Usage = callUsage(0, 2_000);

/**
 * Usage one step is expected to need, the same at validation, in a plan's estimate and before execution: a tool_call
 * step its tool's per-call figures (an unknown tool one free call: validation reports it), an llm step one LLM call
 * (LLM_CALL_ESTIMATE), human and noop steps nothing.
 */
export function stepUsageEstimate(
  action: ActionType,
  tool: Pick<ToolSpec, 'cost_per_call_usd' | 'tokens_per_call'> | undefined,
): Usage {
  if (action === 'llm') return LLM_CALL_ESTIMATE;
  if (action !== 'tool_call') return ZERO_USAGE;
  return callUsage(tool?.cost_per_call_usd ?? 0, tool?.tokens_per_call ?? 0);
}

/** Usage a list of steps will need: the sum of their stepUsageEstimate. */
export function estimateStepsUsage(
  steps: readonly { action: ActionType; tool: string | null }[],
  tools: ReadonlyMap<string, ToolSpec>,
): Usage {
  return steps.reduce<Usage>(
    (total, step) =>
      addUsage(total, stepUsageEstimate(step.action, step.tool === null ? undefined : tools.get(step.tool))),
    ZERO_USAGE,
  );
}
