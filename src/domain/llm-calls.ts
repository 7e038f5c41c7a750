/**
 * What one LLM call consumed, as activities report it and the workflow charges it: every entry counts as one call.
 * A planning activity's result lists its calls; a failed one carries them in its failure details (src/api/failures.ts),
 * so no answered call goes uncharged either way.
 */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { addUsage, callUsage, ZERO_USAGE, type Usage } from './budget';
import { LlmCallError } from './errors';

/** What one LLM call is expected to use before it is made (tokens; cost is charged as reported). */
export const LLM_CALL_ESTIMATE: Usage = { calls: 1, tokens: 2_000, cost_usd: 0 };

/** Most providers a chain may hold (PLANNER_LLM_PROVIDERS); bounds the attempts recorded per call. */
export const MAX_PROVIDER_ATTEMPTS = 8;

/** One try of one provider for one call: who, which model, how it ended ('ok', 'HTTP 500', 'timeout', …) and how long it took. */
export const ProviderAttemptSchema = sharedSchema('domain/llm-calls#ProviderAttemptSchema', () =>
  z.object({
    provider: z.string().max(64),
    model: z.string().max(200),
    outcome: z.string().max(100),
    ms: z.number().int().nonnegative(),
  }),
);
export type ProviderAttempt = z.output<typeof ProviderAttemptSchema>;

export const LlmCallUsageSchema = sharedSchema('domain/llm-calls#LlmCallUsageSchema', () =>
  z.object({
    model: z.string(),
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
    /** Prompt tokens the provider served from its prompt cache (part of prompt_tokens). */
    cached_tokens: z.number().int().nonnegative(),
    cost_usd: z.number().nonnegative(),
    /** The provider that answered (absent on calls recorded before provider chains). */
    provider: z.string().max(64).optional(),
    /** Every provider tried for this call, in order, the answering one last. */
    attempts: z.array(ProviderAttemptSchema).max(MAX_PROVIDER_ATTEMPTS).optional(),
  }),
);
export type LlmCallUsage = z.output<typeof LlmCallUsageSchema>;

/** The budget usage of a list of LLM calls. */
export function usageOfLlmCalls(calls: readonly LlmCallUsage[]): Usage {
  return calls.reduce<Usage>(
    (sum, c) => addUsage(sum, callUsage(c.cost_usd, c.prompt_tokens + c.completion_tokens)),
    ZERO_USAGE,
  );
}

/** "primary (gpt-4o-mini) HTTP 500 in 12 ms" for each attempt, joined; what the audit says of a provider fallback. */
export function describeAttempts(attempts: readonly ProviderAttempt[]): string {
  return attempts.map((a) => `${a.provider} (${a.model}) ${a.outcome} in ${a.ms} ms`).join(' → ');
}

/** The audit line of the calls that needed a fallback provider, or null when the first provider answered every one. */
export function providerFallbackNote(calls: readonly LlmCallUsage[]): string | null {
  const fellBack = calls.filter((c) => (c.attempts?.length ?? 0) > 1);
  if (fellBack.length === 0) return null;
  return `LLM provider fallback: ${fellBack.map((c) => describeAttempts(c.attempts!)).join('; ')}`;
}

/** Whether a failure's details say a whole provider chain failed on retryable faults (an outage, not a refused request). */
export function isProviderOutage(details: Record<string, unknown>): boolean {
  return details.every_provider_failed === true;
}

/** Whether `error` says a whole provider chain failed on retryable faults (an outage, not a refused request). */
export function everyProviderFailed(error: unknown): boolean {
  return error instanceof LlmCallError && isProviderOutage(error.details);
}
