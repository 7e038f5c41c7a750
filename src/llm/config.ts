/**
 * LLM settings from the environment. Any chat-completions provider works (OpenAI, OpenRouter, Ollama, vLLM):
 * OPENAI_BASE_URL picks it, OPENAI_API_KEY authenticates (local servers need none), PLANNER_MODEL names the model.
 * With neither a key nor a base URL no LLM is configured and the product uses its deterministic planner.
 *
 * The config holds the API key: never log it or put it in workflow history.
 */
import { z } from 'zod';
import { InvalidInputError, formatZodIssues } from '../domain/errors';

export const DEFAULT_MODEL = 'gpt-4o-mini';
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface LlmConfig {
  baseURL: string;
  /** Absent for providers that need none (a local Ollama or vLLM). */
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

const EnvSchema = z.object({
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_API_KEY: z.string().optional(),
  PLANNER_MODEL: z.string().regex(/^\S+$/, 'must not contain spaces').default(DEFAULT_MODEL),
  PLANNER_LLM_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(DEFAULT_TIMEOUT_MS),
});
type EnvName = keyof typeof EnvSchema.shape;

const HINTS: Record<EnvName, string> = {
  OPENAI_BASE_URL: 'Set OPENAI_BASE_URL to the API root, e.g. https://api.openai.com/v1, https://openrouter.ai/api/v1 or http://localhost:11434/v1 (Ollama).',
  OPENAI_API_KEY: 'Set OPENAI_API_KEY to the provider key, or unset it for a local server.',
  PLANNER_MODEL: 'Set PLANNER_MODEL to a model id such as gpt-4o-mini, or unset it.',
  PLANNER_LLM_TIMEOUT_MS: 'Set PLANNER_LLM_TIMEOUT_MS to whole milliseconds from 1000 to 600000, or unset it (default 60000).',
};

/** The LLM config, or undefined when no LLM is configured. Throws InvalidInputError (PLAN-006) on bad values. */
export function loadLlmConfig(env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  const names = Object.keys(EnvSchema.shape) as EnvName[];
  // Blank values count as unset, the way shells and .env files leave them.
  const raw = Object.fromEntries(names.map((name) => [name, env[name]?.trim() || undefined]));
  if (raw.OPENAI_API_KEY === undefined && raw.OPENAI_BASE_URL === undefined) return undefined;

  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = formatZodIssues(parsed.error);
    const bad = [...new Set(parsed.error.issues.map((i) => i.path[0] as EnvName))];
    throw new InvalidInputError(`invalid LLM settings:\n${issues.join('\n')}`, bad.map((name) => HINTS[name]).join(' '), { issues });
  }
  const values = parsed.data;
  return {
    baseURL: (values.OPENAI_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    ...(values.OPENAI_API_KEY === undefined ? {} : { apiKey: values.OPENAI_API_KEY }),
    model: values.PLANNER_MODEL,
    timeoutMs: values.PLANNER_LLM_TIMEOUT_MS,
  };
}
