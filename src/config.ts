/**
 * The planner's one configuration module: every environment variable the planner reads is parsed here, once, into a
 * frozen PlannerConfig that entry points (the worker, the CLI, the demo) hand to the code that needs it. No other
 * file reads process.env. Blank values count as unset, the way shells and .env files leave them; a bad value is an
 * InvalidInputError (PLAN-006) whose hint names the variable. Temporal's own connection settings (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TLS, profiles, …) stay with @temporalio/envconfig, which src/temporal-connection.ts gives the
 * environment loaded here.
 *
 * The config holds the LLM API key: never log it or put it in workflow history.
 */
import path from 'node:path';
import { msToNumber, type Duration } from '@temporalio/common/lib/time';
import { z } from 'zod';
import { InvalidInputError, formatZodIssues } from './domain/errors';
import type { LlmSettings } from './domain/llm-settings';
import { projectRoot } from './project-root';

export const DEFAULT_TASK_QUEUE = 'durable-planner';
export const DEFAULT_MODEL = 'gpt-4o-mini';
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT = '5s';
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
export const DEFAULT_LLM_ATTEMPTS = 3;

/** Any chat-completions provider (OpenAI, OpenRouter, Ollama, vLLM): OPENAI_BASE_URL picks it, OPENAI_API_KEY authenticates. */
export interface LlmConfig {
  baseURL: string;
  /** Absent for providers that need none (a local Ollama or vLLM). */
  apiKey?: string;
  model: string;
  timeoutMs: number;
  /** json_schema (structured outputs, the default) or json_object: how replies are asked to be JSON. */
  responseFormat?: 'json_schema' | 'json_object';
  /** Temperature, max output tokens and attempts for every call unless a run's options say otherwise. */
  defaults?: LlmSettings;
}

export interface TemporalSettings {
  /** TEMPORAL_ADDRESS: set when the user names a server, so the demo and CLI do not start a local one. */
  address?: string;
  /** TEMPORAL_UI_URL: base URL of the Web UI for printed links. */
  uiUrl?: string;
  /** The environment @temporalio/envconfig reads (TEMPORAL_*, and HOME / XDG_CONFIG_HOME / APPDATA for its TOML file). */
  env: Readonly<Record<string, string>>;
}

export interface PlannerConfig {
  taskQueue: string;
  /** Undefined when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set: the deterministic planner is used. */
  llm: LlmConfig | undefined;
  temporal: TemporalSettings;
  /** The content store; workers and the CLI must agree on it. */
  storeDir: string;
  /** PGlite's initdb image cache. */
  cacheDir: string;
  /** The folder the workspace-context tool reads (absolute). */
  workspaceRoot: string;
  /**
   * PLANNER_WORKSPACE_ROOTS: the folders (absolute) a run's constraints.workspace_root may name or lie inside; default
   * [workspaceRoot]. An operator decision: planning and tool activities refuse any other root (PLAN-006). Compared
   * by real path (symlinks followed) when checked, so the folders need not exist when the config is loaded.
   */
  workspaceRoots: readonly string[];
  /** PLANNER_CONFIG: a planner.config.json that must exist; undefined reads ./planner.config.json if present. */
  configFile: string | undefined;
  /** A PostgreSQL server for the waste pack; undefined uses embedded PGlite. */
  databaseUrl: string | undefined;
  /** How long the CLI tries to reach Temporal (a Temporal duration such as '5s'). */
  connectTimeout: Duration;
  /** How long a getState query waits for a worker to answer. */
  queryTimeoutMs: number;
  temporalCliPath: string | undefined;
  temporalTestServerPath: string | undefined;
  /** PATH's folders, searched for the `temporal` CLI. */
  pathDirs: readonly string[];
}

const FilePath = z.string().max(4096);

const DurationString = z
  .string()
  .max(100)
  .refine((value) => {
    try {
      return msToNumber(value as Duration) > 0;
    } catch {
      return false;
    }
  }, 'must be a duration such as 300ms, 5s or 1m');

/** Settings read whatever else is configured. */
const PlannerEnvSchema = z.object({
  PLANNER_TASK_QUEUE: z.string().max(1000).default(DEFAULT_TASK_QUEUE),
  PLANNER_STORE_DIR: FilePath.optional(),
  PLANNER_CACHE_DIR: FilePath.optional(),
  PLANNER_WORKSPACE_ROOT: FilePath.optional(),
  PLANNER_WORKSPACE_ROOTS: z.string().max(65_536).optional(),
  PLANNER_CONFIG: FilePath.optional(),
  DATABASE_URL: z.string().max(4096).optional(),
  PLANNER_CONNECT_TIMEOUT: DurationString.default(DEFAULT_CONNECT_TIMEOUT),
  PLANNER_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_QUERY_TIMEOUT_MS),
  TEMPORAL_ADDRESS: z.string().max(1000).optional(),
  TEMPORAL_UI_URL: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  TEMPORAL_CLI_PATH: FilePath.optional(),
  TEMPORAL_TEST_SERVER_PATH: FilePath.optional(),
  PATH: z.string().max(65_536).optional(),
});

/** Settings read only when an LLM is configured (OPENAI_API_KEY or OPENAI_BASE_URL set). */
const LlmEnvSchema = z.object({
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  OPENAI_API_KEY: z.string().max(4096).optional(),
  PLANNER_MODEL: z.string().max(200).regex(/^\S+$/, 'must not contain spaces').default(DEFAULT_MODEL),
  PLANNER_LLM_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(DEFAULT_TIMEOUT_MS),
  PLANNER_LLM_RESPONSE_FORMAT: z.enum(['json_schema', 'json_object']).default('json_schema'),
  PLANNER_LLM_TEMPERATURE: z.coerce.number().min(0).max(2).optional(),
  PLANNER_LLM_MAX_TOKENS: z.coerce.number().int().min(16).max(200_000).optional(),
  PLANNER_LLM_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(DEFAULT_LLM_ATTEMPTS),
});

type VariableName = keyof typeof PlannerEnvSchema.shape | keyof typeof LlmEnvSchema.shape;

/** Every environment variable this module reads (the README's Configuration table lists each one). */
export const CONFIG_VARIABLES = [...Object.keys(PlannerEnvSchema.shape), ...Object.keys(LlmEnvSchema.shape)] as readonly VariableName[];

const HINTS: Record<VariableName, string> = {
  PLANNER_TASK_QUEUE: 'Set PLANNER_TASK_QUEUE to a task queue name of at most 1000 characters, or unset it (default durable-planner).',
  PLANNER_STORE_DIR: 'Set PLANNER_STORE_DIR to a folder path, or unset it (default .planner/store).',
  PLANNER_CACHE_DIR: 'Set PLANNER_CACHE_DIR to a folder path, or unset it (default .planner/cache).',
  PLANNER_WORKSPACE_ROOT: 'Set PLANNER_WORKSPACE_ROOT to a folder path, or unset it (default: the current folder).',
  PLANNER_WORKSPACE_ROOTS: `Set PLANNER_WORKSPACE_ROOTS to the folders runs may use as workspace_root, separated by "${path.delimiter}", or unset it (default: PLANNER_WORKSPACE_ROOT, else the current folder).`,
  PLANNER_CONFIG: 'Set PLANNER_CONFIG to the path of a planner.config.json, or unset it.',
  DATABASE_URL: 'Set DATABASE_URL to a PostgreSQL connection string, e.g. postgres://user:pass@localhost:5432/db, or unset it for embedded PGlite.',
  PLANNER_CONNECT_TIMEOUT: 'Set PLANNER_CONNECT_TIMEOUT to a duration such as 300ms or 5s, or unset it (default 5s).',
  PLANNER_QUERY_TIMEOUT_MS: 'Set PLANNER_QUERY_TIMEOUT_MS to whole milliseconds from 100 to 3600000, or unset it (default 10000).',
  TEMPORAL_ADDRESS: 'Set TEMPORAL_ADDRESS to the frontend host:port, e.g. localhost:7233, or unset it.',
  TEMPORAL_UI_URL: 'Set TEMPORAL_UI_URL to the Web UI base URL, e.g. http://localhost:8233, or unset it.',
  TEMPORAL_CLI_PATH: 'Set TEMPORAL_CLI_PATH to the temporal binary, or unset it.',
  TEMPORAL_TEST_SERVER_PATH: 'Set TEMPORAL_TEST_SERVER_PATH to the temporal-test-server binary, or unset it.',
  PATH: 'PATH is too long to search.',
  OPENAI_BASE_URL: 'Set OPENAI_BASE_URL to the API root, e.g. https://api.openai.com/v1, https://openrouter.ai/api/v1 or http://localhost:11434/v1 (Ollama).',
  OPENAI_API_KEY: 'Set OPENAI_API_KEY to the provider key, or unset it for a local server.',
  PLANNER_MODEL: 'Set PLANNER_MODEL to a model id such as gpt-4o-mini, or unset it.',
  PLANNER_LLM_TIMEOUT_MS: 'Set PLANNER_LLM_TIMEOUT_MS to whole milliseconds from 1000 to 600000, or unset it (default 60000).',
  PLANNER_LLM_RESPONSE_FORMAT: 'Set PLANNER_LLM_RESPONSE_FORMAT to json_schema (structured outputs) or json_object, or unset it (default json_schema).',
  PLANNER_LLM_TEMPERATURE: 'Set PLANNER_LLM_TEMPERATURE to a number from 0 to 2, or unset it (each prompt keeps its own temperature).',
  PLANNER_LLM_MAX_TOKENS: 'Set PLANNER_LLM_MAX_TOKENS to whole tokens from 16 to 200000, or unset it (the provider decides).',
  PLANNER_LLM_ATTEMPTS: 'Set PLANNER_LLM_ATTEMPTS to a whole number from 1 to 10, or unset it (default 3).',
};

/** Parses the variables of `schema` from `env`, blank as unset; throws PLAN-006 with the hints of the bad ones. */
function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv, what: string): z.output<S> {
  const raw = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, env[name]?.trim() || undefined]));
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = formatZodIssues(parsed.error);
  const bad = [...new Set(parsed.error.issues.map((i) => i.path[0] as VariableName))];
  throw new InvalidInputError(`invalid ${what}:\n${issues.join('\n')}`, bad.map((name) => HINTS[name]).join(' '), { issues });
}

function loadLlmConfig(env: NodeJS.ProcessEnv): LlmConfig | undefined {
  if (!env.OPENAI_API_KEY?.trim() && !env.OPENAI_BASE_URL?.trim()) return undefined;
  const values = parseEnv(LlmEnvSchema, env, 'LLM settings');
  return Object.freeze({
    baseURL: (values.OPENAI_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    ...(values.OPENAI_API_KEY === undefined ? {} : { apiKey: values.OPENAI_API_KEY }),
    model: values.PLANNER_MODEL,
    timeoutMs: values.PLANNER_LLM_TIMEOUT_MS,
    responseFormat: values.PLANNER_LLM_RESPONSE_FORMAT,
    defaults: Object.freeze({
      attempts: values.PLANNER_LLM_ATTEMPTS,
      ...(values.PLANNER_LLM_TEMPERATURE === undefined ? {} : { temperature: values.PLANNER_LLM_TEMPERATURE }),
      ...(values.PLANNER_LLM_MAX_TOKENS === undefined ? {} : { max_tokens: values.PLANNER_LLM_MAX_TOKENS }),
    }),
  });
}

/** `<project>/.planner`: local state of the demo (content store, idempotency ledger, database caches). */
function plannerHome(): string {
  return path.join(projectRoot(), '.planner');
}

/** The planner's settings from `env`. Throws InvalidInputError (PLAN-006) naming the variable on a bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlannerConfig {
  const values = parseEnv(PlannerEnvSchema, env, 'settings');
  const workspaceRoot = path.resolve(values.PLANNER_WORKSPACE_ROOT ?? process.cwd());
  const listedRoots = (values.PLANNER_WORKSPACE_ROOTS ?? '').split(path.delimiter).map((r) => r.trim()).filter(Boolean);
  const definedEnv = Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return Object.freeze({
    taskQueue: values.PLANNER_TASK_QUEUE,
    llm: loadLlmConfig(env),
    temporal: Object.freeze({
      address: values.TEMPORAL_ADDRESS,
      uiUrl: values.TEMPORAL_UI_URL?.replace(/\/+$/, ''),
      env: Object.freeze(Object.fromEntries(definedEnv)),
    }),
    storeDir: values.PLANNER_STORE_DIR ?? path.join(plannerHome(), 'store'),
    cacheDir: values.PLANNER_CACHE_DIR ?? path.join(plannerHome(), 'cache'),
    workspaceRoot,
    workspaceRoots: Object.freeze(listedRoots.length > 0 ? [...new Set(listedRoots.map((r) => path.resolve(r)))] : [workspaceRoot]),
    configFile: values.PLANNER_CONFIG,
    databaseUrl: values.DATABASE_URL,
    connectTimeout: values.PLANNER_CONNECT_TIMEOUT as Duration,
    queryTimeoutMs: values.PLANNER_QUERY_TIMEOUT_MS,
    temporalCliPath: values.TEMPORAL_CLI_PATH,
    temporalTestServerPath: values.TEMPORAL_TEST_SERVER_PATH,
    pathDirs: Object.freeze((values.PATH ?? '').split(path.delimiter).filter(Boolean)),
  });
}
