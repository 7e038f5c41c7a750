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
import os from 'node:os';
import path from 'node:path';
import { msToNumber, type Duration } from '@temporalio/common/lib/time';
import { z } from 'zod';
import { InvalidInputError, formatZodIssues } from './domain/errors';
import type { LlmSettings } from './domain/llm-settings';
import { applicationRoot, insideNodeModules } from './project-root';

export const DEFAULT_TASK_QUEUE = 'durable-planner';
export const DEFAULT_MODEL = 'gpt-4o-mini';
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT = '5s';
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/** The name of the one provider OPENAI_BASE_URL / OPENAI_API_KEY / PLANNER_MODEL describe. */
export const DEFAULT_PROVIDER_NAME = 'default';
export const MAX_LLM_PROVIDERS = 8;
export const DEFAULT_PLAN_CACHE_TTL = '24h';
export const DEFAULT_PLAN_CACHE_MAX_ENTRIES = 500;
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

/**
 * One provider of the fallback chain (PLANNER_LLM_PROVIDERS): its name (in audits and logs), the variable its key
 * was read from (never the key in logs), and the key itself, held only in memory.
 */
export interface LlmProviderConfig extends LlmConfig {
  name: string;
  apiKeyEnv?: string;
}

/** Plans reused for the same goal, catalog, constraints and dates (see src/planners/plan-cache.ts); maxEntries 0 turns it off. */
export interface PlanCacheConfig {
  ttlMs: number;
  maxEntries: number;
}

export interface TemporalSettings {
  /** TEMPORAL_ADDRESS: set when the user names a server, so the demo and CLI do not start a local one. */
  address?: string;
  /** TEMPORAL_UI_URL: base URL of the Web UI for printed links. */
  uiUrl?: string;
  /** The environment @temporalio/envconfig reads (TEMPORAL_*, and HOME / XDG_CONFIG_HOME / APPDATA for its TOML file). */
  env: Readonly<Record<string, string>>;
}

/**
 * Where the worker serves the tools of its packs: `planner` (the default) on the planner's own task queue, so each
 * step is an activity on the workflow's queue and Temporal can hand it straight back to the same worker (eager
 * dispatch), as a plain Temporal worker runs its activities; `split` on each pack's own queue, for pools of tool
 * workers scaled (or placed) apart from the planner.
 */
export type ToolQueues = 'planner' | 'split';
export const TOOL_QUEUES = ['planner', 'split'] as const satisfies readonly ToolQueues[];

/**
 * Worker Versioning (src/versioning.ts): PLANNER_WORKER_VERSIONING `on` (the default) makes each worker one version
 * of a Worker Deployment, its runs pinned to it; `off` polls unversioned, for servers without Worker Deployments.
 */
export interface VersioningConfig {
  enabled: boolean;
  /** PLANNER_DEPLOYMENT_NAME; undefined: the planner's task queue (durable-planner by default). */
  deploymentName: string | undefined;
  /** PLANNER_BUILD_ID; undefined: the package version + a hash of the workflow code (defaultBuildId). */
  buildId: string | undefined;
}

export interface PlannerConfig {
  taskQueue: string;
  versioning: VersioningConfig;
  /** PLANNER_TOOL_QUEUES: the built-in and configured packs' tools on the planner's queue, or split into pools. */
  toolQueues: ToolQueues;
  /** Undefined when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set: the deterministic planner is used. */
  llm: LlmConfig | undefined;
  /** The providers tried in order (the first is `llm`); empty when no LLM is configured. */
  llmProviders: readonly LlmProviderConfig[];
  /** PLANNER_LLM_DRAFT: the LLM planner revises the ranking planner's draft ('rules') or plans from the goal alone. */
  llmDraft: (typeof LLM_DRAFTS)[number];
  /** PLANNER_LLM_ANALYSIS / PLANNER_LLM_PREMORTEM: 'auto' asks the model only where the rules leave something to it. */
  llmAnalysis: LlmCallMode;
  llmPremortem: LlmCallMode;
  /** PLANNER_LLM_PLAN: 'auto' keeps the rules' draft without a model call where it holds every value of the goal. */
  llmPlan: LlmCallMode;
  /** PLANNER_LLM_WARM_UP: a worker with an LLM sends the stable system prompt of its LLM calls once at start. */
  llmWarmUp: boolean;
  planCache: PlanCacheConfig;
  temporal: TemporalSettings;
  /** The content store and ledgers of one machine (used when no databaseUrl is set); workers and the CLI must agree on it. */
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
  /**
   * A PostgreSQL server: the content store and the ledgers (schema `planner`) that workers on several machines share,
   * and the waste pack's data; undefined keeps them in storeDir and embedded PGlite.
   */
  databaseUrl: string | undefined;
  /** How long the CLI tries to reach Temporal (a Temporal duration such as '5s'). */
  connectTimeout: Duration;
  /** How long a getState query waits for a worker to answer. */
  queryTimeoutMs: number;
  temporalCliPath: string | undefined;
  temporalTestServerPath: string | undefined;
  /** PATH's folders, searched for the `temporal` CLI. */
  pathDirs: readonly string[];
  /** VISUAL, else EDITOR: the command `planner edit` opens the plan's JSON with, as `git commit` does. */
  editor: string | undefined;
  telemetry: TelemetrySettings;
}

export interface TelemetrySettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP collector's base URL (traces go to `<it>/v1/traces`); unset: no traces. */
  otlpEndpoint: string | undefined;
  /** PLANNER_METRICS_PORT: the worker's Prometheus endpoint port (`planner worker --metrics-port` overrides); unset: none. */
  metricsPort: number | undefined;
}

/** What the LLM planner starts a first plan from: the ranking planner's draft, or the goal alone. */
export const LLM_DRAFTS = ['rules', 'none'] as const;
/** When the LLM analysis and pre-mortem are called: only where the rules leave something to weigh, or always. */
export const LLM_CALL_MODES = ['auto', 'always'] as const;
export type LlmCallMode = (typeof LLM_CALL_MODES)[number];

export const MetricsPortSchema = z.coerce.number().int().min(1).max(65_535);

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
  PLANNER_TOOL_QUEUES: z.enum(TOOL_QUEUES).default('planner'),
  PLANNER_WORKER_VERSIONING: z.enum(['on', 'off']).default('on'),
  PLANNER_DEPLOYMENT_NAME: z
    .string()
    .max(255)
    .regex(/^[^.\s]+$/, 'must not contain dots or spaces')
    .optional(),
  PLANNER_BUILD_ID: z.string().max(255).regex(/^\S+$/, 'must not contain spaces').optional(),
  PLANNER_STORE_DIR: FilePath.optional(),
  PLANNER_CACHE_DIR: FilePath.optional(),
  XDG_STATE_HOME: FilePath.optional(),
  LOCALAPPDATA: FilePath.optional(),
  PLANNER_WORKSPACE_ROOT: FilePath.optional(),
  PLANNER_WORKSPACE_ROOTS: z.string().max(65_536).optional(),
  PLANNER_CONFIG: FilePath.optional(),
  DATABASE_URL: z.string().max(4096).optional(),
  PLANNER_CONNECT_TIMEOUT: DurationString.default(DEFAULT_CONNECT_TIMEOUT),
  PLANNER_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_QUERY_TIMEOUT_MS),
  TEMPORAL_ADDRESS: z.string().max(1000).optional(),
  TEMPORAL_UI_URL: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  TEMPORAL_CLI_PATH: FilePath.optional(),
  TEMPORAL_TEST_SERVER_PATH: FilePath.optional(),
  PATH: z.string().max(65_536).optional(),
  PLANNER_PLAN_CACHE_TTL: DurationString.default(DEFAULT_PLAN_CACHE_TTL),
  PLANNER_PLAN_CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).max(100_000).default(DEFAULT_PLAN_CACHE_MAX_ENTRIES),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  PLANNER_METRICS_PORT: MetricsPortSchema.optional(),
  PLANNER_LLM_DRAFT: z.enum(LLM_DRAFTS).default('rules'),
  PLANNER_LLM_ANALYSIS: z.enum(LLM_CALL_MODES).default('auto'),
  PLANNER_LLM_PREMORTEM: z.enum(LLM_CALL_MODES).default('auto'),
  PLANNER_LLM_PLAN: z.enum(LLM_CALL_MODES).default('auto'),
  PLANNER_LLM_WARM_UP: z.enum(['on', 'off']).default('on'),
  VISUAL: z.string().max(4096).optional(),
  EDITOR: z.string().max(4096).optional(),
});

/** Settings read only when an LLM is configured (OPENAI_API_KEY or OPENAI_BASE_URL set). */
const LlmEnvSchema = z.object({
  OPENAI_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  OPENAI_API_KEY: z.string().max(4096).optional(),
  PLANNER_MODEL: z.string().max(200).regex(/^\S+$/, 'must not contain spaces').default(DEFAULT_MODEL),
  PLANNER_LLM_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(DEFAULT_TIMEOUT_MS),
  PLANNER_LLM_PROVIDERS: z.string().max(65_536).optional(),
  PLANNER_LLM_RESPONSE_FORMAT: z.enum(['json_schema', 'json_object']).default('json_schema'),
  PLANNER_LLM_TEMPERATURE: z.coerce.number().min(0).max(2).optional(),
  PLANNER_LLM_MAX_TOKENS: z.coerce.number().int().min(16).max(200_000).optional(),
  PLANNER_LLM_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(DEFAULT_LLM_ATTEMPTS),
});

const EnvVariableName = z
  .string()
  .max(200)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable');

/** One entry of PLANNER_LLM_PROVIDERS: strict, so a key pasted in as `api_key` is refused rather than kept. */
const ProviderEntrySchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, ".", "_" or "-"'),
    base_url: z.url({ protocol: /^https?$/ }).max(2048),
    model: z.string().min(1).max(200).regex(/^\S+$/, 'must not contain spaces'),
    api_key_env: EnvVariableName.optional(),
    timeout_ms: z.number().int().min(1_000).max(600_000).optional(),
  })
  .strict();

const ProvidersSchema = z
  .array(ProviderEntrySchema)
  .min(1)
  .max(MAX_LLM_PROVIDERS)
  .refine((list) => new Set(list.map((p) => p.name)).size === list.length, 'provider names must be unique');

type VariableName = keyof typeof PlannerEnvSchema.shape | keyof typeof LlmEnvSchema.shape;

/** Every environment variable this module reads (docs/configuration.md lists each one). */
export const CONFIG_VARIABLES = [
  ...Object.keys(PlannerEnvSchema.shape),
  ...Object.keys(LlmEnvSchema.shape),
] as readonly VariableName[];

const HINTS: Record<VariableName, string> = {
  PLANNER_TASK_QUEUE:
    'Set PLANNER_TASK_QUEUE to a task queue name of at most 1000 characters, or unset it (default durable-planner).',
  PLANNER_TOOL_QUEUES:
    "Set PLANNER_TOOL_QUEUES to planner (tools on the planner's task queue) or split (each pack on its own queue), or unset it (default planner).",
  PLANNER_WORKER_VERSIONING:
    'Set PLANNER_WORKER_VERSIONING to on (workers are versions of a Worker Deployment, runs pinned to theirs) or off (unversioned workers, for servers without Worker Deployments), or unset it (default on).',
  PLANNER_DEPLOYMENT_NAME:
    'Set PLANNER_DEPLOYMENT_NAME to a Worker Deployment name of at most 255 characters without dots or spaces, or unset it (default: the task queue).',
  PLANNER_BUILD_ID:
    'Set PLANNER_BUILD_ID to a build id of at most 255 characters without spaces, or unset it (default: the package version + a hash of the workflow code).',
  PLANNER_STORE_DIR:
    "Set PLANNER_STORE_DIR to a folder path outside node_modules, or unset it (default .planner/store in the application's folder).",
  PLANNER_CACHE_DIR:
    "Set PLANNER_CACHE_DIR to a folder path, or unset it (default .planner/cache in the application's folder).",
  XDG_STATE_HOME: 'Set XDG_STATE_HOME to a folder path, or unset it (default ~/.local/state).',
  LOCALAPPDATA: 'Set LOCALAPPDATA to a folder path, or unset it.',
  PLANNER_WORKSPACE_ROOT: 'Set PLANNER_WORKSPACE_ROOT to a folder path, or unset it (default: the current folder).',
  PLANNER_WORKSPACE_ROOTS: `Set PLANNER_WORKSPACE_ROOTS to the folders runs may use as workspace_root, separated by "${path.delimiter}", or unset it (default: PLANNER_WORKSPACE_ROOT, else the current folder).`,
  PLANNER_CONFIG: 'Set PLANNER_CONFIG to the path of a planner.config.json, or unset it.',
  DATABASE_URL:
    'Set DATABASE_URL to a PostgreSQL connection string, e.g. postgres://user:pass@localhost:5432/db, or unset it for the local store (PLANNER_STORE_DIR) and embedded PGlite.',
  PLANNER_CONNECT_TIMEOUT: 'Set PLANNER_CONNECT_TIMEOUT to a duration such as 300ms or 5s, or unset it (default 5s).',
  PLANNER_QUERY_TIMEOUT_MS:
    'Set PLANNER_QUERY_TIMEOUT_MS to whole milliseconds from 100 to 3600000, or unset it (default 10000).',
  TEMPORAL_ADDRESS: 'Set TEMPORAL_ADDRESS to the frontend host:port, e.g. localhost:7233, or unset it.',
  TEMPORAL_UI_URL: 'Set TEMPORAL_UI_URL to the Web UI base URL, e.g. http://localhost:8233, or unset it.',
  TEMPORAL_CLI_PATH: 'Set TEMPORAL_CLI_PATH to the temporal binary, or unset it.',
  TEMPORAL_TEST_SERVER_PATH: 'Set TEMPORAL_TEST_SERVER_PATH to the temporal-test-server binary, or unset it.',
  PATH: 'PATH is too long to search.',
  VISUAL: 'Set VISUAL to an editor command such as "code --wait", or unset it.',
  EDITOR: 'Set EDITOR to an editor command such as vi or nano, or unset it.',
  OTEL_EXPORTER_OTLP_ENDPOINT:
    'Set OTEL_EXPORTER_OTLP_ENDPOINT to the OTLP/HTTP collector base URL, e.g. http://localhost:4318, or unset it (no traces).',
  PLANNER_METRICS_PORT:
    'Set PLANNER_METRICS_PORT to a TCP port from 1 to 65535 for the Prometheus endpoint, or unset it.',
  OPENAI_BASE_URL:
    'Set OPENAI_BASE_URL to the API root, e.g. https://api.openai.com/v1, https://openrouter.ai/api/v1 or http://localhost:11434/v1 (Ollama).',
  OPENAI_API_KEY: 'Set OPENAI_API_KEY to the provider key, or unset it for a local server.',
  PLANNER_MODEL: 'Set PLANNER_MODEL to a model id such as gpt-4o-mini, or unset it.',
  PLANNER_LLM_TIMEOUT_MS:
    'Set PLANNER_LLM_TIMEOUT_MS to whole milliseconds from 1000 to 600000, or unset it (default 60000).',
  PLANNER_LLM_PROVIDERS: `Set PLANNER_LLM_PROVIDERS to a JSON array of 1 to ${MAX_LLM_PROVIDERS} providers tried in order, e.g. [{"name":"local","base_url":"http://localhost:8080/v1","model":"qwen2.5-coder"},{"name":"openai","base_url":"https://api.openai.com/v1","model":"gpt-4o-mini","api_key_env":"OPENAI_API_KEY"}] (name, base_url, model, optional api_key_env naming the variable that holds the key, never the key itself, and optional timeout_ms), or unset it.`,
  PLANNER_PLAN_CACHE_TTL: `Set PLANNER_PLAN_CACHE_TTL to a duration such as 30m, 24h or 7d, or unset it (default ${DEFAULT_PLAN_CACHE_TTL}).`,
  PLANNER_PLAN_CACHE_MAX_ENTRIES: `Set PLANNER_PLAN_CACHE_MAX_ENTRIES to a whole number from 0 (no plan cache) to 100000, or unset it (default ${DEFAULT_PLAN_CACHE_MAX_ENTRIES}).`,
  PLANNER_LLM_RESPONSE_FORMAT:
    'Set PLANNER_LLM_RESPONSE_FORMAT to json_schema (structured outputs) or json_object, or unset it (default json_schema).',
  PLANNER_LLM_TEMPERATURE:
    'Set PLANNER_LLM_TEMPERATURE to a number from 0 to 2, or unset it (each prompt keeps its own temperature).',
  PLANNER_LLM_MAX_TOKENS:
    'Set PLANNER_LLM_MAX_TOKENS to whole tokens from 16 to 200000, or unset it (the provider decides).',
  PLANNER_LLM_DRAFT:
    "Set PLANNER_LLM_DRAFT to rules (the LLM planner revises the ranking planner's draft) or none (it plans from the goal alone), or unset it (default rules).",
  PLANNER_LLM_ANALYSIS:
    'Set PLANNER_LLM_ANALYSIS to auto (the model analyses only goals the rules are not sure of) or always, or unset it (default auto).',
  PLANNER_LLM_PREMORTEM:
    'Set PLANNER_LLM_PREMORTEM to auto (only plans with side effects or rule findings) or always, or unset it (default auto).',
  PLANNER_LLM_PLAN:
    "Set PLANNER_LLM_PLAN to auto (the model plans only where the rules' draft leaves a value of the goal out) or always, or unset it (default auto).",
  PLANNER_LLM_WARM_UP: 'Set PLANNER_LLM_WARM_UP to on or off, or unset it (default on).',
  PLANNER_LLM_ATTEMPTS: 'Set PLANNER_LLM_ATTEMPTS to a whole number from 1 to 10, or unset it (default 3).',
};

/** Parses the variables of `schema` from `env`, blank as unset; throws PLAN-006 with the hints of the bad ones. */
function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv, what: string): z.output<S> {
  const raw = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, env[name]?.trim() || undefined]));
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = formatZodIssues(parsed.error);
  const bad = [...new Set(parsed.error.issues.map((i) => i.path[0] as VariableName))];
  throw new InvalidInputError(`invalid ${what}:\n${issues.join('\n')}`, bad.map((name) => HINTS[name]).join(' '), {
    issues,
  });
}

/** The provider chain: PLANNER_LLM_PROVIDERS when set, else the one provider of OPENAI_BASE_URL / OPENAI_API_KEY; [] without an LLM. */
function loadLlmProviders(env: NodeJS.ProcessEnv): LlmProviderConfig[] {
  if (!env.OPENAI_API_KEY?.trim() && !env.OPENAI_BASE_URL?.trim() && !env.PLANNER_LLM_PROVIDERS?.trim()) return [];
  const values = parseEnv(LlmEnvSchema, env, 'LLM settings');
  // How every provider of the chain is called: the same reply format and settings, whichever answers.
  const callSettings = {
    responseFormat: values.PLANNER_LLM_RESPONSE_FORMAT,
    defaults: Object.freeze({
      attempts: values.PLANNER_LLM_ATTEMPTS,
      ...(values.PLANNER_LLM_TEMPERATURE === undefined ? {} : { temperature: values.PLANNER_LLM_TEMPERATURE }),
      ...(values.PLANNER_LLM_MAX_TOKENS === undefined ? {} : { max_tokens: values.PLANNER_LLM_MAX_TOKENS }),
    }),
  };
  if (values.PLANNER_LLM_PROVIDERS === undefined) {
    return [
      Object.freeze({
        name: DEFAULT_PROVIDER_NAME,
        baseURL: (values.OPENAI_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
        ...(values.OPENAI_API_KEY === undefined ? {} : { apiKey: values.OPENAI_API_KEY, apiKeyEnv: 'OPENAI_API_KEY' }),
        model: values.PLANNER_MODEL,
        timeoutMs: values.PLANNER_LLM_TIMEOUT_MS,
        ...callSettings,
      }),
    ];
  }
  let json: unknown;
  try {
    json = JSON.parse(values.PLANNER_LLM_PROVIDERS);
  } catch (err) {
    throw new InvalidInputError(
      `invalid LLM settings: PLANNER_LLM_PROVIDERS is not JSON (${(err as Error).message})`,
      HINTS.PLANNER_LLM_PROVIDERS,
    );
  }
  const parsed = ProvidersSchema.safeParse(json);
  if (!parsed.success) {
    const issues = formatZodIssues(parsed.error).map((issue) => `PLANNER_LLM_PROVIDERS ${issue}`);
    throw new InvalidInputError(`invalid LLM settings:\n${issues.join('\n')}`, HINTS.PLANNER_LLM_PROVIDERS, { issues });
  }
  return parsed.data.map((p) => {
    const apiKey = p.api_key_env === undefined ? undefined : env[p.api_key_env]?.trim() || undefined;
    if (p.api_key_env !== undefined && apiKey === undefined) {
      throw new InvalidInputError(
        `invalid LLM settings: provider "${p.name}" reads its key from ${p.api_key_env}, which is not set`,
        `Set ${p.api_key_env} to the key of provider "${p.name}", or drop its api_key_env if it needs none.`,
        { provider: p.name, api_key_env: p.api_key_env },
      );
    }
    return Object.freeze({
      name: p.name,
      baseURL: p.base_url.replace(/\/+$/, ''),
      ...(apiKey === undefined ? {} : { apiKey, apiKeyEnv: p.api_key_env }),
      model: p.model,
      timeoutMs: p.timeout_ms ?? values.PLANNER_LLM_TIMEOUT_MS,
      ...callSettings,
    });
  });
}

/** The first provider as the LlmConfig the single-provider code reads. */
function firstProvider(providers: readonly LlmProviderConfig[]): LlmConfig | undefined {
  const first = providers[0];
  if (!first) return undefined;
  return Object.freeze({
    baseURL: first.baseURL,
    ...(first.apiKey === undefined ? {} : { apiKey: first.apiKey }),
    model: first.model,
    timeoutMs: first.timeoutMs,
    ...(first.responseFormat === undefined ? {} : { responseFormat: first.responseFormat }),
    ...(first.defaults === undefined ? {} : { defaults: first.defaults }),
  });
}

/**
 * The OS's folder for an application's state: `$XDG_STATE_HOME/durable-planner` (default `~/.local/state`) on Linux
 * and other Unixes, `~/Library/Application Support/durable-planner` on macOS, `%LOCALAPPDATA%\\durable-planner` on
 * Windows.
 */
export function osStateDir(
  values: { XDG_STATE_HOME?: string; LOCALAPPDATA?: string },
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (platform === 'win32')
    return path.join(values.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'durable-planner');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'durable-planner');
  return path.join(values.XDG_STATE_HOME ?? path.join(home, '.local', 'state'), 'durable-planner');
}

/**
 * Where local state lives by default (content store, ledgers, database caches): `.planner/` in the application's
 * folder (the checkout, or the app that installed the package: see applicationRoot), else the OS's state folder.
 * Never inside node_modules, which a reinstall wipes, and the exactly-once ledger with it.
 */
function plannerHome(values: { XDG_STATE_HOME?: string; LOCALAPPDATA?: string }): string {
  const app = applicationRoot();
  return app === undefined ? osStateDir(values) : path.join(app, '.planner');
}

/** The planner's settings from `env`. Throws InvalidInputError (PLAN-006) naming the variable on a bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlannerConfig {
  const values = parseEnv(PlannerEnvSchema, env, 'settings');
  const workspaceRoot = path.resolve(values.PLANNER_WORKSPACE_ROOT ?? process.cwd());
  const listedRoots = (values.PLANNER_WORKSPACE_ROOTS ?? '')
    .split(path.delimiter)
    .map((r) => r.trim())
    .filter(Boolean);
  const definedEnv = Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const llmProviders = Object.freeze(loadLlmProviders(env));
  const storeDir = path.resolve(values.PLANNER_STORE_DIR ?? path.join(plannerHome(values), 'store'));
  if (values.DATABASE_URL === undefined && insideNodeModules(storeDir)) {
    throw new InvalidInputError(
      `invalid settings: the store folder ${storeDir} is inside node_modules, which a reinstall wipes, step results and the side-effect ledger with it`,
      HINTS.PLANNER_STORE_DIR,
      { PLANNER_STORE_DIR: storeDir },
    );
  }
  return Object.freeze({
    taskQueue: values.PLANNER_TASK_QUEUE,
    toolQueues: values.PLANNER_TOOL_QUEUES,
    versioning: Object.freeze({
      enabled: values.PLANNER_WORKER_VERSIONING === 'on',
      deploymentName: values.PLANNER_DEPLOYMENT_NAME,
      buildId: values.PLANNER_BUILD_ID,
    }),
    llm: firstProvider(llmProviders),
    llmProviders,
    llmDraft: values.PLANNER_LLM_DRAFT,
    llmAnalysis: values.PLANNER_LLM_ANALYSIS,
    llmPremortem: values.PLANNER_LLM_PREMORTEM,
    llmPlan: values.PLANNER_LLM_PLAN,
    llmWarmUp: values.PLANNER_LLM_WARM_UP === 'on',
    planCache: Object.freeze({
      ttlMs: msToNumber(values.PLANNER_PLAN_CACHE_TTL as Duration),
      maxEntries: values.PLANNER_PLAN_CACHE_MAX_ENTRIES,
    }),
    temporal: Object.freeze({
      address: values.TEMPORAL_ADDRESS,
      uiUrl: values.TEMPORAL_UI_URL?.replace(/\/+$/, ''),
      env: Object.freeze(Object.fromEntries(definedEnv)),
    }),
    storeDir,
    cacheDir: values.PLANNER_CACHE_DIR ?? path.join(plannerHome(values), 'cache'),
    workspaceRoot,
    workspaceRoots: Object.freeze(
      listedRoots.length > 0 ? [...new Set(listedRoots.map((r) => path.resolve(r)))] : [workspaceRoot],
    ),
    configFile: values.PLANNER_CONFIG,
    databaseUrl: values.DATABASE_URL,
    connectTimeout: values.PLANNER_CONNECT_TIMEOUT as Duration,
    queryTimeoutMs: values.PLANNER_QUERY_TIMEOUT_MS,
    temporalCliPath: values.TEMPORAL_CLI_PATH,
    temporalTestServerPath: values.TEMPORAL_TEST_SERVER_PATH,
    pathDirs: Object.freeze((values.PATH ?? '').split(path.delimiter).filter(Boolean)),
    editor: values.VISUAL ?? values.EDITOR,
    telemetry: Object.freeze({
      otlpEndpoint: values.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, ''),
      metricsPort: values.PLANNER_METRICS_PORT,
    }),
  });
}
