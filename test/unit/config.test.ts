/**
 * The one configuration module: nothing else in src/ reads the environment, docs/configuration.md's table lists
 * every variable it reads, and its parsing (defaults, blank as unset, PLAN-006 errors that name the variable).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CONFIG_VARIABLES,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_TASK_QUEUE,
  DEFAULT_TIMEOUT_MS,
  loadConfig,
  osStateDir,
} from '../../src/config';
import { applicationRoot, insideNodeModules } from '../../src/project-root';
import { InvalidInputError } from '../../src/domain/errors';

const ROOT = path.resolve(__dirname, '..', '..');
const CONFIG_MODULE = path.join('src', 'config.ts');

function tsFilesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFilesUnder(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** The variables named in the first column of the "Environment variables" table of docs/configuration.md. */
function documentedConfigurationVariables(): Set<string> {
  const doc = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Environment variables\n'));
  if (!section) throw new Error('docs/configuration.md has no "## Environment variables" section');
  const firstCells = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1]!);
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!)));
}

function loadError(env: NodeJS.ProcessEnv): InvalidInputError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof InvalidInputError) return err;
    throw err;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

test('no file under src/ but src/config.ts reads process.env', () => {
  const readers = tsFilesUnder('src')
    .filter((file) => file !== CONFIG_MODULE)
    .flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.includes('process.env') ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
  expect(readers).toEqual([]);
});

test("docs/configuration.md's table lists every variable the config module reads", () => {
  const documented = documentedConfigurationVariables();
  expect(CONFIG_VARIABLES.filter((name) => !documented.has(name))).toEqual([]);
});

describe('loadConfig', () => {
  test('defaults from an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      taskQueue: DEFAULT_TASK_QUEUE,
      llm: undefined,
      temporal: { address: undefined, uiUrl: undefined, env: {} },
      storeDir: path.join(ROOT, '.planner', 'store'),
      cacheDir: path.join(ROOT, '.planner', 'cache'),
      workspaceRoot: process.cwd(),
      workspaceRoots: [process.cwd()],
      configFile: undefined,
      databaseUrl: undefined,
      connectTimeout: '5s',
      queryTimeoutMs: 10_000,
      temporalCliPath: undefined,
      temporalTestServerPath: undefined,
      pathDirs: [],
      telemetry: { otlpEndpoint: undefined, metricsPort: undefined },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.temporal)).toBe(true);
  });

  test('blank values count as unset', () => {
    const blank = Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, '  ']));
    expect(loadConfig(blank)).toEqual({ ...loadConfig({}), temporal: { ...loadConfig({}).temporal, env: blank } });
  });

  test('reads every setting', () => {
    const env = {
      PLANNER_TASK_QUEUE: 'q',
      PLANNER_STORE_DIR: '/s',
      PLANNER_CACHE_DIR: '/c',
      PLANNER_WORKSPACE_ROOT: '/w',
      PLANNER_WORKSPACE_ROOTS: ['/w', ' /x/y ', '', '/w'].join(path.delimiter),
      PLANNER_CONFIG: 'p.json',
      DATABASE_URL: 'postgres://u@h/db',
      PLANNER_CONNECT_TIMEOUT: '300ms',
      PLANNER_QUERY_TIMEOUT_MS: '2500',
      TEMPORAL_ADDRESS: 'h:7233',
      TEMPORAL_UI_URL: 'http://h:8080/',
      TEMPORAL_CLI_PATH: '/bin/temporal',
      TEMPORAL_TEST_SERVER_PATH: '/bin/ts',
      PATH: ['/a', '', '/b'].join(path.delimiter),
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      PLANNER_METRICS_PORT: '9464',
    };
    expect(loadConfig(env)).toMatchObject({
      taskQueue: 'q',
      storeDir: '/s',
      cacheDir: '/c',
      workspaceRoot: path.resolve('/w'),
      workspaceRoots: [path.resolve('/w'), path.resolve('/x/y')],
      configFile: 'p.json',
      databaseUrl: 'postgres://u@h/db',
      connectTimeout: '300ms',
      queryTimeoutMs: 2500,
      temporal: { address: 'h:7233', uiUrl: 'http://h:8080', env },
      temporalCliPath: '/bin/temporal',
      temporalTestServerPath: '/bin/ts',
      pathDirs: ['/a', '/b'],
      telemetry: { otlpEndpoint: 'http://collector:4318', metricsPort: 9464 },
    });
  });

  test('the allowed workspace roots default to PLANNER_WORKSPACE_ROOT alone', () => {
    expect(loadConfig({ PLANNER_WORKSPACE_ROOT: '/w' }).workspaceRoots).toEqual([path.resolve('/w')]);
    expect(loadConfig({ PLANNER_WORKSPACE_ROOT: '/w', PLANNER_WORKSPACE_ROOTS: '/a' }).workspaceRoots).toEqual([
      path.resolve('/a'),
    ]);
  });

  test.each([
    ['PLANNER_QUERY_TIMEOUT_MS', 'soon', '3600000'],
    ['PLANNER_QUERY_TIMEOUT_MS', '1.5', 'whole milliseconds'],
    ['PLANNER_CONNECT_TIMEOUT', 'fast', '300ms'],
    ['TEMPORAL_UI_URL', 'localhost:8233', 'http://localhost:8233'],
    ['PLANNER_TASK_QUEUE', 'q'.repeat(1001), '1000'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318', 'http://localhost:4318'],
    ['PLANNER_METRICS_PORT', '70000', '65535'],
  ])('rejects a bad %s with a PLAN-006 error whose hint explains it', (name, value, hintPart) => {
    const error = loadError({ [name]: value });
    expect(error.code).toBe('PLAN-006');
    expect(error.message).toContain(name);
    expect(error.hint).toContain(name);
    expect(error.hint).toContain(hintPart);
  });
});

describe('where local state lives (never inside node_modules)', () => {
  test('a checkout keeps it in the checkout', () => {
    expect(applicationRoot(ROOT)).toBe(ROOT);
  });

  test('an installed package keeps it in the folder of the application that installed it, pnpm layout too', () => {
    const app = mkdtempSync(path.join(os.tmpdir(), 'planner-app-'));
    try {
      writeFileSync(path.join(app, 'package.json'), '{}');
      const npm = path.join(app, 'node_modules', 'durable-planner');
      const pnpm = path.join(app, 'node_modules', '.pnpm', 'durable-planner@0.1.0', 'node_modules', 'durable-planner');
      mkdirSync(npm, { recursive: true });
      expect(applicationRoot(npm)).toBe(app);
      expect(applicationRoot(pnpm)).toBe(app);
      expect(insideNodeModules(npm)).toBe(true);
      expect(insideNodeModules(app)).toBe(false);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  test("a global install (no application's package.json above node_modules) has none: the OS's state folder is used", () => {
    const prefix = mkdtempSync(path.join(os.tmpdir(), 'planner-global-'));
    try {
      expect(applicationRoot(path.join(prefix, 'lib', 'node_modules', 'durable-planner'))).toBeUndefined();
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
    expect(osStateDir({}, 'linux', '/home/u')).toBe('/home/u/.local/state/durable-planner');
    expect(osStateDir({ XDG_STATE_HOME: '/var/state' }, 'linux', '/home/u')).toBe('/var/state/durable-planner');
    expect(osStateDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Application Support/durable-planner');
  });

  test('a store folder inside node_modules is refused, naming the variable; with DATABASE_URL it is not used, so not checked', () => {
    const err = loadError({ PLANNER_STORE_DIR: '/srv/app/node_modules/durable-planner/.planner/store' });
    expect(err.message).toContain('inside node_modules');
    expect(err.hint).toContain('PLANNER_STORE_DIR');
    expect(() =>
      loadConfig({ PLANNER_STORE_DIR: '/srv/app/node_modules/x', DATABASE_URL: 'postgres://u@h/db' }),
    ).not.toThrow();
    expect(loadConfig({ PLANNER_STORE_DIR: 'relative/store' }).storeDir).toBe(path.resolve('relative/store'));
  });
});

describe('llm', () => {
  test('is undefined without a key and a base URL (the deterministic planner is used), whatever the other LLM settings', () => {
    expect(loadConfig({}).llm).toBeUndefined();
    expect(
      loadConfig({ OPENAI_API_KEY: '  ', OPENAI_BASE_URL: '', PLANNER_MODEL: 'gpt-4o', PLANNER_LLM_TIMEOUT_MS: 'x' })
        .llm,
    ).toBeUndefined();
  });

  test('defaults the base URL, model and timeout when only a key is set', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-test' }).llm).toEqual({
      baseURL: DEFAULT_BASE_URL,
      apiKey: 'sk-test',
      model: DEFAULT_MODEL,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      responseFormat: 'json_schema',
      defaults: { attempts: 3 },
    });
  });

  test('accepts a keyless local server and all settings', () => {
    const env = {
      OPENAI_BASE_URL: 'http://localhost:11434/v1/',
      PLANNER_MODEL: 'llama3.1:8b',
      PLANNER_LLM_TIMEOUT_MS: '90000',
      PLANNER_LLM_RESPONSE_FORMAT: 'json_object',
      PLANNER_LLM_TEMPERATURE: '0.3',
      PLANNER_LLM_MAX_TOKENS: '800',
      PLANNER_LLM_ATTEMPTS: '2',
    };
    expect(loadConfig(env).llm).toEqual({
      baseURL: 'http://localhost:11434/v1',
      model: 'llama3.1:8b',
      timeoutMs: 90_000,
      responseFormat: 'json_object',
      defaults: { attempts: 2, temperature: 0.3, max_tokens: 800 },
    });
  });

  test.each([
    [{ OPENAI_BASE_URL: 'localhost:11434' }, 'OPENAI_BASE_URL', 'http://localhost:11434/v1'],
    [{ OPENAI_BASE_URL: 'ftp://example.com/v1' }, 'OPENAI_BASE_URL', 'https://openrouter.ai/api/v1'],
    [{ OPENAI_API_KEY: 'k', PLANNER_LLM_TIMEOUT_MS: 'soon' }, 'PLANNER_LLM_TIMEOUT_MS', '600000'],
    [{ OPENAI_API_KEY: 'k', PLANNER_LLM_TIMEOUT_MS: '5' }, 'PLANNER_LLM_TIMEOUT_MS', '1000'],
    [{ OPENAI_API_KEY: 'k', PLANNER_MODEL: 'gpt 4o' }, 'PLANNER_MODEL', 'gpt-4o-mini'],
    [{ OPENAI_API_KEY: 'k', PLANNER_LLM_RESPONSE_FORMAT: 'yaml' }, 'PLANNER_LLM_RESPONSE_FORMAT', 'json_object'],
    [{ OPENAI_API_KEY: 'k', PLANNER_LLM_TEMPERATURE: '3' }, 'PLANNER_LLM_TEMPERATURE', 'from 0 to 2'],
    [{ OPENAI_API_KEY: 'k', PLANNER_LLM_MAX_TOKENS: '1.5' }, 'PLANNER_LLM_MAX_TOKENS', 'whole tokens'],
    [{ OPENAI_API_KEY: 'k', PLANNER_LLM_ATTEMPTS: '0' }, 'PLANNER_LLM_ATTEMPTS', 'from 1 to 10'],
  ])('rejects %j with a PLAN-006 error whose hint explains %s', (env, name, hintPart) => {
    const error = loadError(env);
    expect(error.code).toBe('PLAN-006');
    expect(error.message).toContain(name);
    expect(error.hint).toContain(name);
    expect(error.hint).toContain(hintPart);
    expect(JSON.stringify(error.toFailureDetails())).not.toContain('"k"'); // the key is never echoed
  });
});

describe('llm providers (PLANNER_LLM_PROVIDERS)', () => {
  const local = { name: 'local', base_url: 'http://localhost:8080/v1/', model: 'qwen2.5-coder' };
  const hosted = {
    name: 'openai',
    base_url: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    api_key_env: 'HOSTED_KEY',
    timeout_ms: 20_000,
  };
  /** What every provider gets from the PLANNER_LLM_* defaults. */
  const callSettings = { responseFormat: 'json_schema', defaults: { attempts: 3 } };

  test('the single-provider settings are a one-provider list named "default", its key read from OPENAI_API_KEY', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-test' }).llmProviders).toEqual([
      {
        name: 'default',
        baseURL: DEFAULT_BASE_URL,
        apiKey: 'sk-test',
        apiKeyEnv: 'OPENAI_API_KEY',
        model: DEFAULT_MODEL,
        timeoutMs: DEFAULT_TIMEOUT_MS,
        ...callSettings,
      },
    ]);
    expect(loadConfig({}).llmProviders).toEqual([]);
  });

  test('a list is tried in order; each key comes from the variable it names; llm is the first provider', () => {
    const config = loadConfig({
      PLANNER_LLM_PROVIDERS: JSON.stringify([local, hosted]),
      HOSTED_KEY: 'sk-hosted',
      PLANNER_LLM_TIMEOUT_MS: '90000',
    });
    expect(config.llmProviders).toEqual([
      {
        name: 'local',
        baseURL: 'http://localhost:8080/v1',
        model: 'qwen2.5-coder',
        timeoutMs: 90_000,
        ...callSettings,
      },
      {
        name: 'openai',
        baseURL: 'https://api.openai.com/v1',
        apiKey: 'sk-hosted',
        apiKeyEnv: 'HOSTED_KEY',
        model: 'gpt-4o-mini',
        timeoutMs: 20_000,
        ...callSettings,
      },
    ]);
    expect(config.llm).toEqual({
      baseURL: 'http://localhost:8080/v1',
      model: 'qwen2.5-coder',
      timeoutMs: 90_000,
      ...callSettings,
    });
  });

  test('the reply format and call settings of PLANNER_LLM_* apply to every provider of the list', () => {
    const config = loadConfig({
      PLANNER_LLM_PROVIDERS: JSON.stringify([local, hosted]),
      HOSTED_KEY: 'sk-hosted',
      PLANNER_LLM_RESPONSE_FORMAT: 'json_object',
      PLANNER_LLM_TEMPERATURE: '0.3',
      PLANNER_LLM_ATTEMPTS: '2',
    });
    for (const provider of config.llmProviders) {
      expect(provider).toMatchObject({ responseFormat: 'json_object', defaults: { attempts: 2, temperature: 0.3 } });
    }
  });

  test.each([
    ['not JSON', '[{"name":', 'is not JSON'],
    ['an empty list', '[]', 'PLANNER_LLM_PROVIDERS'],
    ['a key in the list', JSON.stringify([{ ...local, api_key: 'sk-secret' }]), 'api_key'],
    ['twice the same name', JSON.stringify([local, local]), 'unique'],
    ['a bad base URL', JSON.stringify([{ ...local, base_url: 'localhost:8080' }]), 'base_url'],
    [
      'a key variable that is not a variable name',
      JSON.stringify([{ ...local, api_key_env: 'sk-123 456' }]),
      'api_key_env',
    ],
  ])('refuses %s with a PLAN-006 error whose hint shows the format', (_what, value, text) => {
    const error = loadError({ PLANNER_LLM_PROVIDERS: value });
    expect(error.code).toBe('PLAN-006');
    expect(error.message).toContain(text);
    expect(error.message).not.toContain('sk-secret');
    expect(error.hint).toContain('api_key_env');
  });

  test('a provider whose key variable is unset is refused, naming the variable', () => {
    const error = loadError({ PLANNER_LLM_PROVIDERS: JSON.stringify([hosted]) });
    expect(error.message).toContain('HOSTED_KEY');
    expect(error.hint).toContain('Set HOSTED_KEY');
  });
});

describe('plan cache settings', () => {
  test('default to 24 hours and 500 entries; 0 entries turns the cache off', () => {
    expect(loadConfig({}).planCache).toEqual({ ttlMs: 24 * 60 * 60_000, maxEntries: 500 });
    expect(loadConfig({ PLANNER_PLAN_CACHE_TTL: '30m', PLANNER_PLAN_CACHE_MAX_ENTRIES: '0' }).planCache).toEqual({
      ttlMs: 30 * 60_000,
      maxEntries: 0,
    });
  });

  test.each([
    [{ PLANNER_PLAN_CACHE_TTL: 'a day' }, 'PLANNER_PLAN_CACHE_TTL'],
    [{ PLANNER_PLAN_CACHE_MAX_ENTRIES: '-1' }, 'PLANNER_PLAN_CACHE_MAX_ENTRIES'],
  ])('rejects %j naming %s', (env, name) => {
    const error = loadError(env);
    expect(error.code).toBe('PLAN-006');
    expect(error.hint).toContain(name);
  });
});
