/**
 * How the LLM is called: temperature, a cap on the reply's tokens, attempts per answer (the first and the
 * corrections) and the timeout of one call. The configuration sets them for a worker (src/config.ts), a run's
 * options override them (PlanningOptions.llm); unset, each conversation keeps its own default (the planner's
 * temperature 0.1, 3 attempts, a token cap a little above its longest sound reply).
 */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';

export const MAX_LLM_ATTEMPTS = 10;

export const LlmSettingsSchema = sharedSchema('domain/llm-settings#LlmSettingsSchema', () =>
  z
    .object({
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().min(16).max(200_000).optional(),
      attempts: z.number().int().min(1).max(MAX_LLM_ATTEMPTS).optional(),
      timeout_ms: z.number().int().min(1_000).max(600_000).optional(),
    })
    .strict(),
);
export type LlmSettings = z.output<typeof LlmSettingsSchema>;

/** `over` wins field by field; unset fields fall through to `base`. */
export function mergeLlmSettings(base: LlmSettings = {}, over: LlmSettings = {}): LlmSettings {
  const defined = Object.fromEntries(Object.entries(over).filter(([, v]) => v !== undefined));
  return { ...base, ...defined };
}
