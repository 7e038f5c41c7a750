/**
 * Issue 34, item 4: the configuration is built once, at an entry point, and handed down. Only the entry points call
 * loadConfig() (src/config.ts alone reads the environment); everything below them takes the config, or the
 * dependencies built from it, as a parameter, so a value given to an entry point is the value its components use.
 */
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { plannerPlugin } from '../../src/planner-plugin';
import { MemoryContentStore } from '../../src/store/content-store';
import type { PlannerActivities } from '../../src/activities';
import { createWorkspacePack } from '../../src/tools/workspace';
import { failureOf } from '../support/failures';
import { request } from '../support/planning';

const SRC = path.join(__dirname, '..', '..', 'src');

/** Each entry point, with the one place it builds the config when its caller gives none. */
const ENTRY_POINTS = {
  'cli/context.ts': 'cliConfig: every CLI command',
  'worker.ts': 'createLocalWorkers: `planner worker` and `planner dev`',
  'planner-plugin.ts': "plannerPlugin: a team's own worker",
  'client.ts': 'PlannerClient.connect: the client factory',
  'temporal-connection.ts': "loadTemporalTarget: where users' own code connects",
};

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** `loadConfig(` calls in code (comments stripped), per file relative to src/. */
function loadConfigCalls(): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const file of sourceFiles()) {
    const rel = path.relative(SRC, file);
    if (rel === 'config.ts') continue;
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    const n = code.match(/\bloadConfig\(/g)?.length ?? 0;
    if (n > 0) calls[rel] = n;
  }
  return calls;
}

test('loadConfig() is called by the entry points only, once each', () => {
  expect(loadConfigCalls()).toEqual(Object.fromEntries(Object.keys(ENTRY_POINTS).map((file) => [file, 1])));
});

describe('a config given to an entry point reaches the components that use it', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'planner-config-'));
    await fs.mkdir(path.join(dir, 'allowed', 'sub'), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  test("plannerPlugin: the config's workspace roots are the ones its planning activities enforce", async () => {
    const allowed = path.join(dir, 'allowed');
    const config = loadConfig({ PLANNER_WORKSPACE_ROOTS: allowed, PLANNER_STORE_DIR: path.join(dir, 'store') });
    const plugin = plannerPlugin({
      packs: [createWorkspacePack(allowed, { allowedRoots: config.workspaceRoots })],
      store: new MemoryContentStore(),
      config,
    });
    const worker = await plugin.configureWorker!({ taskQueue: 'config-entry-points' } as WorkerOptions);
    const activities = worker.activities as unknown as PlannerActivities;
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const goal = 'Summarise the notes in this folder';

    const outside = await failureOf(
      env.run(activities.analyzeRequirements, {
        request: request(goal, { tool_catalog: 'workspace', constraints: { workspace_root: os.tmpdir() } }),
      }),
    );
    expect(outside.type).toBe('WorkspaceRootNotAllowedError');
    await env.run(activities.analyzeRequirements, {
      request: request(goal, { tool_catalog: 'workspace', constraints: { workspace_root: path.join(allowed, 'sub') } }),
    });
  });
});
