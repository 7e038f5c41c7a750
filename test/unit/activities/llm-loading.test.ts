/**
 * A worker planning without an LLM does not load the openai client (about 3 MB of its heap, with undici): the LLM
 * dependencies are required only when the config names a provider (src/activities/llm-dependencies.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

/** The packages loaded by a fresh process that creates the planner's activities from `env` (tsx, like the CLI in development). */
function packagesLoadedWith(env: Record<string, string>): string[] {
  const script = `
    const { loadConfig } = require('./src/config');
    const { createActivities, createPlanningDependencies } = require('./src/activities');
    const activities = createActivities(createPlanningDependencies({ config: loadConfig(${JSON.stringify(env)}) }));
    if (typeof activities.generatePlan !== 'function') throw new Error('no planning activities');
    const loaded = new Set(Object.keys(require.cache).flatMap((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1] ?? []));
    console.log(JSON.stringify([...loaded]));`;
  const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as string[];
}

const storeDir = () => mkdtempSync(path.join(os.tmpdir(), 'llm-loading-'));

test('without an LLM configured, the activities load neither openai nor undici', () => {
  const loaded = packagesLoadedWith({ PLANNER_STORE_DIR: storeDir() });
  expect(loaded).toContain('zod');
  expect(loaded).not.toContain('openai');
  expect(loaded).not.toContain('undici');
}, 30_000);

test('with an LLM configured, they load the openai client', () => {
  const loaded = packagesLoadedWith({
    PLANNER_STORE_DIR: storeDir(),
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    OPENAI_MODEL: 'local-model',
  });
  expect(loaded).toEqual(expect.arrayContaining(['openai', 'undici']));
}, 30_000);
