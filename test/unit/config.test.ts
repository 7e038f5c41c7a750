/**
 * The one configuration module: nothing else in src/ reads the environment, the README's Configuration table lists
 * every variable it reads, and its parsing (defaults, blank as unset, PLAN-006 errors that name the variable).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONFIG_VARIABLES,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_TASK_QUEUE,
  DEFAULT_TIMEOUT_MS,
  loadConfig,
} from '../../src/config';
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

/** The variables named in the first column of the README's "Configuration" table. */
function readmeConfigurationVariables(): Set<string> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Configuration\n'));
  if (!section) throw new Error('README.md has no "## Configuration" section');
  const firstCells = section.split('\n').filter((line) => line.startsWith('| `')).map((line) => line.split('|')[1]!);
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

test("the README's Configuration table lists every variable the config module reads", () => {
  const documented = readmeConfigurationVariables();
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
    });
  });

  test('the allowed workspace roots default to PLANNER_WORKSPACE_ROOT alone', () => {
    expect(loadConfig({ PLANNER_WORKSPACE_ROOT: '/w' }).workspaceRoots).toEqual([path.resolve('/w')]);
    expect(loadConfig({ PLANNER_WORKSPACE_ROOT: '/w', PLANNER_WORKSPACE_ROOTS: '/a' }).workspaceRoots).toEqual([path.resolve('/a')]);
  });

  test.each([
    ['PLANNER_QUERY_TIMEOUT_MS', 'soon', '3600000'],
    ['PLANNER_QUERY_TIMEOUT_MS', '1.5', 'whole milliseconds'],
    ['PLANNER_CONNECT_TIMEOUT', 'fast', '300ms'],
    ['TEMPORAL_UI_URL', 'localhost:8233', 'http://localhost:8233'],
    ['PLANNER_TASK_QUEUE', 'q'.repeat(1001), '1000'],
  ])('rejects a bad %s with a PLAN-006 error whose hint explains it', (name, value, hintPart) => {
    const error = loadError({ [name]: value });
    expect(error.code).toBe('PLAN-006');
    expect(error.message).toContain(name);
    expect(error.hint).toContain(name);
    expect(error.hint).toContain(hintPart);
  });
});

describe('llm', () => {
  test('is undefined without a key and a base URL (the deterministic planner is used), whatever the other LLM settings', () => {
    expect(loadConfig({}).llm).toBeUndefined();
    expect(loadConfig({ OPENAI_API_KEY: '  ', OPENAI_BASE_URL: '', PLANNER_MODEL: 'gpt-4o', PLANNER_LLM_TIMEOUT_MS: 'x' }).llm).toBeUndefined();
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
