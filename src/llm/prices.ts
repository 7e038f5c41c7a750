/**
 * What LLM calls cost, in USD per 1M tokens (list prices, mid-2025). Cached input is what providers charge for
 * prompt tokens served from their prompt cache. Models not in the table cost 0: `priceOf` returns undefined for
 * them so callers can say the cost is unknown rather than free.
 *
 * OpenAI models are keyed by their bare id and also match OpenRouter's `openai/` prefix and dated snapshots
 * (`gpt-4o-mini-2024-07-18`); Anthropic models are keyed by their OpenRouter ids.
 */
import type { LlmCallUsage } from '../domain/llm-calls';

export interface ModelPrice {
  input: number;
  cached_input: number;
  output: number;
}

export const PRICES: Readonly<Record<string, Readonly<ModelPrice>>> = Object.freeze({
  'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
  'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cached_input: 0.025, output: 0.4 },
  'o3-mini': { input: 1.1, cached_input: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cached_input: 0.275, output: 4.4 },
  'anthropic/claude-3.5-haiku': { input: 0.8, cached_input: 0.08, output: 4 },
  'anthropic/claude-3.7-sonnet': { input: 3, cached_input: 0.3, output: 15 },
  'anthropic/claude-sonnet-4': { input: 3, cached_input: 0.3, output: 15 },
  'anthropic/claude-opus-4': { input: 15, cached_input: 1.5, output: 75 },
});

/** A dated or aliased snapshot of a listed model: `-2024-07-18`, `-20250514`, `-latest`. */
const SNAPSHOT_SUFFIX = /^-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The price of `model`, or undefined when the table does not know it (its calls are then counted as free). */
export function priceOf(model: string): Readonly<ModelPrice> | undefined {
  const id = model
    .trim()
    .toLowerCase()
    .replace(/^openai\//, '');
  const exact = PRICES[id];
  if (exact) return exact;
  const base = Object.keys(PRICES).find((key) => id.startsWith(key) && SNAPSHOT_SUFFIX.test(id.slice(key.length)));
  return base === undefined ? undefined : PRICES[base];
}

/** USD for one call; cached prompt tokens are billed at the cached rate, the rest of the prompt at the input rate. */
export function costOf(
  model: string,
  usage: Pick<LlmCallUsage, 'prompt_tokens' | 'completion_tokens' | 'cached_tokens'>,
): number {
  const price = priceOf(model);
  if (!price) return 0;
  const cached = Math.min(usage.cached_tokens, usage.prompt_tokens);
  const usd =
    ((usage.prompt_tokens - cached) * price.input +
      cached * price.cached_input +
      usage.completion_tokens * price.output) /
    1e6;
  return Math.round(usd * 1e9) / 1e9;
}
