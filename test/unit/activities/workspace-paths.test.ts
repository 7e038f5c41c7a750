/**
 * Issue 13, findings 1 and 7 on the activities: a workspace_root outside the worker's allowed roots is refused
 * (PLAN-006) before any file is read, and every path param — found by the tool's schema marks, not its name — is
 * followed to its real path ("..", symlinks) and refused (PathOutsideWorkspaceError) before the tool runs.
 * Issue 33, items 5–7: what a tool opens is checked again where it leads (ctx.openFile, openInsideRoot), a run
 * without workspace_root is kept inside the allowed roots, and an MCP param under any name that names an existing
 * entry is a path.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z } from 'zod';
import { createToolActivities } from '../../../src/activities/tools';
import { createPlanningDependencies } from '../../../src/activities';
import { createPlanningActivities } from '../../../src/activities/planning';
import { loadConfig } from '../../../src/config';
import { pathParam, toolSpecFromJsonSchema, toolSpecFromZod } from '../../../src/domain/tool-spec';
import type { StepExecutionInput, StepResult } from '../../../src/domain/step-execution';
import { MemoryContentStore } from '../../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';
import type { ToolImplementation } from '../../../src/tools/tool';
import {
  createWorkspaceContextTool,
  openInsideRoot,
  readDirInsideRoot,
  realPathOf,
} from '../../../src/tools/workspace';
import { OpenedOutsideRootError, WorkspaceRootNotAllowedError } from '../../../src/tools/errors';
import { failureOf } from '../../support/failures';
import { analyze, request, STAMP } from '../../support/planning';

const env = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

let dir: string;
let ws: string;
let ran: unknown[];

/** A zod tool whose path params have names the old heuristic did not know ("source", "targets"). */
function copyTool(): ToolImplementation {
  const params = z.object({
    source: pathParam(),
    targets: z.array(pathParam()).default([]),
    label: z.string().optional(),
  });
  return {
    spec: toolSpecFromZod({ name: 'copy', description: 'Copy a file', params, task_queue: 'q', idempotent: true }),
    paramsSchema: params,
    async run(p) {
      ran.push(p);
      return { data: { ok: true } };
    },
  };
}

/** An MCP-like tool: a JSON Schema without marks, so the name heuristic finds `path`. */
function mcpReadTool(): ToolImplementation {
  const params = z.object({ path: z.string() });
  return {
    spec: toolSpecFromJsonSchema({
      name: 'read_text_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      task_queue: 'q',
      idempotent: true,
    }),
    paramsSchema: params,
    async run(p) {
      ran.push(p);
      return { data: { ok: true } };
    },
  };
}

/** A zod tool that reads the file its path param names through ctx.openFile, as file tools should. */
function catTool(): ToolImplementation {
  const params = z.object({ source: pathParam() });
  return {
    spec: toolSpecFromZod({ name: 'cat', description: 'Print a file', params, task_queue: 'q', idempotent: true }),
    paramsSchema: params,
    async run(p: z.output<typeof params>, ctx) {
      const handle = await ctx.openFile!(p.source);
      try {
        return { data: { content: await handle.readFile('utf8') } };
      } finally {
        await handle.close();
      }
    },
  };
}

/** An MCP-like tool whose file param has a name no heuristic knows. */
function mcpDocTool(): ToolImplementation {
  return {
    spec: toolSpecFromJsonSchema({
      name: 'read_doc',
      description: 'Read a document',
      parameters: {
        type: 'object',
        properties: { location: { type: 'string' }, title: { type: 'string' } },
        required: ['location'],
      },
      task_queue: 'q',
      idempotent: true,
    }),
    paramsSchema: z.object({ location: z.string(), title: z.string().optional() }),
    async run(p) {
      ran.push(p);
      return { data: { ok: true } };
    },
  };
}

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'planner-paths-')));
  ws = path.join(dir, 'ws');
  await fs.mkdir(path.join(ws, 'sub', 'deep'), { recursive: true });
  await fs.writeFile(path.join(ws, 'sub', 'a.txt'), 'a');
  await fs.symlink('/etc', path.join(ws, 'etc-link'));
  await fs.symlink(path.join(ws, 'sub'), path.join(ws, 'sub-link'));
  await fs.symlink('/tmp/planner-paths-nowhere/new-file', path.join(ws, 'dangling'));
  await fs.symlink('/etc', path.join(ws, 'sub', 'deep', 'up'));
  ran = [];
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function activities(workspaceRoots: readonly string[] = [ws]) {
  return createToolActivities({
    tools: [copyTool(), mcpReadTool(), catTool(), mcpDocTool()],
    store: new MemoryContentStore(),
    ledger: new MemoryIdempotencyLedger(),
    workspaceRoots,
  });
}

function input(
  tool: string,
  params: Record<string, unknown>,
  workspace_root: string | undefined = ws,
): StepExecutionInput {
  return {
    workflow_id: 'wf',
    plan_id: 'p',
    plan_version: 1,
    step_index: 0,
    step_id: '1.1',
    tool,
    tool_catalog: 'test',
    params,
    inputs: {},
    idempotency_scope: 'wf/1.1',
    ...(workspace_root !== undefined ? { workspace_root } : {}),
  };
}

describe('realPathOf', () => {
  test('follows symlinks component by component, then ".."; missing parts are appended as written', async () => {
    expect(await realPathOf('sub/a.txt', ws)).toBe(path.join(ws, 'sub', 'a.txt'));
    expect(await realPathOf('etc-link/passwd', ws)).toBe('/etc/passwd');
    expect(await realPathOf('sub-link/../sub/a.txt', ws)).toBe(path.join(ws, 'sub', 'a.txt'));
    expect(await realPathOf('sub/deep/up/..', ws)).toBe('/'); // the parent of /etc, not of sub/deep
    expect(await realPathOf('new/dir/../file', ws)).toBe(path.join(ws, 'new', 'file'));
    expect(await realPathOf('dangling', ws)).toBe('/tmp/planner-paths-nowhere/new-file');
    expect(await realPathOf(path.join(ws, 'sub-link', 'x'), '/')).toBe(path.join(ws, 'sub', 'x'));
  });
});

describe('executeStep path checks', () => {
  test.each([
    ['".." in the middle of a value', { source: 'sub/../../etc/passwd' }, undefined],
    ['a symlink inside the workspace pointing to /etc', { source: 'etc-link/passwd' }, '/etc/passwd'],
    ['a symlink followed by ".."', { source: 'sub/deep/up/../root/.ssh/id_rsa' }, '/root/.ssh/id_rsa'],
    [
      'a dangling symlink a tool would write through',
      { source: 'sub/a.txt', targets: ['dangling'] },
      '/tmp/planner-paths-nowhere/new-file',
    ],
    ['an absolute path elsewhere', { source: '/etc/shadow' }, undefined],
  ])('refuses %s with a typed error before the tool runs', async (_what, params, real) => {
    const failure = await failureOf(env().run(activities().executeStep, input('copy', params)));
    expect(failure.type).toBe('PathOutsideWorkspaceError');
    expect(failure.nonRetryable).toBe(true);
    const details = (failure.details?.[0] as { details: Record<string, unknown> }).details;
    expect(details).toMatchObject({ tool: 'copy', workspace_root: ws });
    if (real !== undefined) expect(details.real_path).toBe(real);
    expect(ran).toEqual([]);
  });

  test('paths inside the workspace pass, symlinks within it included; unmarked params are not paths', async () => {
    await env().run(
      activities().executeStep,
      input('copy', { source: 'sub-link/a.txt', targets: [path.join(ws, 'out', 'b.txt')], label: '../../not-a-path' }),
    );
    expect(ran).toHaveLength(1);
  });

  test('MCP schemas carry no marks: the name heuristic is the fallback, with the same real-path check', async () => {
    const failure = await failureOf(
      env().run(activities().executeStep, input('read_text_file', { path: 'etc-link/shadow' })),
    );
    expect(failure.type).toBe('PathOutsideWorkspaceError');
    expect(ran).toEqual([]);
  });

  test.each([
    ['/etc', '/etc'],
    ['a symlink inside an allowed root that leads out of it', 'etc-link'],
    ['a folder that does not exist', 'nope'],
  ])(
    'a workspace_root outside the allowed roots (%s) is refused with PLAN-006 naming PLANNER_WORKSPACE_ROOTS',
    async (_what, root) => {
      const given = root.startsWith('/') ? root : path.join(ws, root);
      const failure = await failureOf(env().run(activities().executeStep, input('copy', { source: 'passwd' }, given)));
      expect(failure.type).toBe('WorkspaceRootNotAllowedError');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toMatch(/PLAN-006/);
      expect(failure.message).toContain('PLANNER_WORKSPACE_ROOTS');
      expect(ran).toEqual([]);
    },
  );

  test('a workspace_root inside an allowed root (by real path) is accepted', async () => {
    await env().run(activities([dir]).executeStep, input('copy', { source: 'a.txt' }, path.join(ws, 'sub-link')));
    expect(ran).toEqual([{ source: 'a.txt', targets: [] }]);
  });
});

describe('the workspace tool and the planning activities', () => {
  test('workspace-context refuses a run root outside its allowed roots', async () => {
    const tool = createWorkspaceContextTool(ws);
    const ctx = {
      idempotencyKey: 'k',
      heartbeat: () => undefined,
      signal: new AbortController().signal,
      workspaceRoot: '/etc',
    };
    await expect(tool.run({ goal: 'shadow passwords', max_context_tokens: 1000 }, ctx)).rejects.toBeInstanceOf(
      WorkspaceRootNotAllowedError,
    );
    const inside = await tool.run(
      { goal: 'a', max_context_tokens: 1000 },
      { ...ctx, workspaceRoot: path.join(ws, 'sub') },
    );
    const files = (inside.data as { files: { path: string; included: string }[] }).files;
    expect(files.filter((f) => f.included !== 'omitted').map((f) => f.path)).toEqual(['a.txt']); // deep/up → /etc is skipped
  });

  test('analyzeRequirements and generatePlan refuse a workspace_root outside PLANNER_WORKSPACE_ROOTS', async () => {
    const config = loadConfig({ PLANNER_WORKSPACE_ROOTS: ws });
    const planning = createPlanningActivities(
      createPlanningDependencies({ config, store: new MemoryContentStore(), ledger: new MemoryIdempotencyLedger() }),
    );
    const goal = 'Get contaminated shipments from last week';
    const req = request(goal, { constraints: { workspace_root: '/etc' } });
    const analysis = await failureOf(env().run(planning.analyzeRequirements, { request: req }));
    expect(analysis.type).toBe('WorkspaceRootNotAllowedError');
    const generation = await failureOf(
      env().run(planning.generatePlan, { request: req, requirements: analyze(goal), stamp: STAMP }),
    );
    expect(generation.type).toBe('WorkspaceRootNotAllowedError');
    expect(generation.nonRetryable).toBe(true);
    await env().run(planning.analyzeRequirements, {
      request: request(goal, { constraints: { workspace_root: path.join(ws, 'sub') } }),
    });
  });
});

describe('issue 33: what is opened is checked, every run is confined, any MCP param naming an entry is a path', () => {
  test('openInsideRoot and readDirInsideRoot keep what lies inside and close what leads out', async () => {
    const handle = await openInsideRoot('sub-link/a.txt', ws, [ws]);
    expect(await handle.readFile('utf8')).toBe('a');
    await handle.close();
    await expect(openInsideRoot('etc-link/passwd', ws, [ws])).rejects.toBeInstanceOf(OpenedOutsideRootError);
    await expect(openInsideRoot('/etc/passwd', ws, [ws])).rejects.toMatchObject({ code: 'PLAN-008', retryable: false });
    expect((await readDirInsideRoot('sub', ws, [ws])).map((e) => e.name).sort()).toEqual(['a.txt', 'deep']);
    await expect(readDirInsideRoot('sub/deep/up', ws, [ws])).rejects.toBeInstanceOf(OpenedOutsideRootError);
  });

  test('a file swapped for a symlink between the path check and ctx.openFile is never read through', async () => {
    const secret = path.join(dir, 'secret.txt');
    await fs.writeFile(secret, 'outside-secret');
    const target = path.join(ws, 'swapped.txt');
    await fs.writeFile(target, 'inside');
    const stage = path.join(dir, 'staged');
    const script = `const fs = require('node:fs'); const [stage, secret, target] = process.argv.slice(1);
      for (let n = 0; ; n++) { if (n % 2) fs.writeFileSync(stage, 'inside'); else fs.symlinkSync(secret, stage); fs.renameSync(stage, target); }`;
    const swapper = spawn(process.execPath, ['-e', script, stage, secret, target], { stdio: 'ignore' });
    const read: string[] = [];
    const refused: string[] = [];
    try {
      for (let trial = 0; trial < 60; trial++) {
        await (
          env().run(activities().executeStep, input('cat', { source: 'swapped.txt' })) as Promise<StepResult>
        ).then(
          (result: StepResult) => read.push((result.data as { content: string }).content),
          (err: Error) =>
            refused.push(err.name === 'ApplicationFailure' ? String((err as { type?: string }).type) : err.name),
        );
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(read).not.toContain('outside-secret');
    expect(read).toContain('inside');
    expect(
      [...new Set(refused)].every((type) => ['PathOutsideWorkspaceError', 'OpenedOutsideRootError'].includes(type)),
    ).toBe(true);
  });

  test('without a workspace_root, path params stay inside the allowed roots', async () => {
    const failure = await failureOf(
      env().run(activities().executeStep, input('copy', { source: '/etc/shadow' }, undefined)),
    );
    expect(failure.type).toBe('PathOutsideWorkspaceError');
    expect(ran).toEqual([]);
    const outside = await failureOf(
      env().run(activities().executeStep, input('cat', { source: path.join(ws, 'etc-link', 'passwd') }, undefined)),
    );
    expect(outside.type).toBe('PathOutsideWorkspaceError');
    const result: StepResult = await env().run(
      activities().executeStep,
      input('cat', { source: path.join(ws, 'sub', 'a.txt') }, undefined),
    );
    expect(result.data).toEqual({ content: 'a' });
  });

  test('an MCP string param that names an existing entry is checked whatever it is called; other strings are not', async () => {
    const failure = await failureOf(
      env().run(activities().executeStep, input('read_doc', { location: 'etc-link/hostname' })),
    );
    expect(failure.type).toBe('PathOutsideWorkspaceError');
    expect((failure.details?.[0] as { details: Record<string, unknown> }).details).toMatchObject({
      param: 'location',
      real_path: '/etc/hostname',
    });
    await env().run(activities().executeStep, input('read_doc', { location: 'sub/a.txt', title: 'Weekly notes' }));
    expect(ran).toEqual([{ location: 'sub/a.txt', title: 'Weekly notes' }]);
  });
});
