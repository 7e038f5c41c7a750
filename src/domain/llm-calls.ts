/**
 * What one LLM call consumed, as activities report it and the workflow charges it: every entry counts as one call.
 * A planning activity's result lists its calls; a failed one carries them in its failure details (src/api/failures.ts),
 * so no answered call goes uncharged either way.
 */
import { z } from 'zod';
import { addUsage, callUsage, ZERO_USAGE, type Usage } from './budget';

export const LlmCallUsageSchema = z.object({
  model: z.string(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  /** Prompt tokens the provider served from its prompt cache (part of prompt_tokens). */
  cached_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
});
export type LlmCallUsage = z.output<typeof LlmCallUsageSchema>;

/** The budget usage of a list of LLM calls. */
export function usageOfLlmCalls(calls: readonly LlmCallUsage[]): Usage {
  return calls.reduce<Usage>((sum, c) => addUsage(sum, callUsage(c.cost_usd, c.prompt_tokens + c.completion_tokens)), ZERO_USAGE);
}
