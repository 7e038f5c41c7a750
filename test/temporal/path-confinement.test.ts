/**
 * Issue 33, items 5–7 on the dev server, through planningWorkflow and real workers (stdio MCP servers where the item
 * is about them):
 *   5. a file swapped for a symlink to a file outside the workspace between the walk and the read never reaches the
 *      LLM's prompt or a step's result: the workspace context opens each file once and checks what it opened;
 *   6. a run without constraints.workspace_root is confined all the same: an MCP filesystem server that may read a
 *      whole folder cannot be asked for a file outside the worker's roots and the server's configured `roots`;
 *   7. an MCP tool whose schema marks no path (`read_doc {"location": ...}`) still has its path-valued params
 *      checked: a string that names an existing entry is followed to its real path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getStateQuery } from '../../src/api';
import { projectRoot } from '../../src/project-root';
import { createMcpPack, type McpPack, type McpServerConfig } from '../../src/tools/mcp';
import type { ToolPack } from '../../src/tools/tool';
import { createWorkspacePack, WORKSPACE_CONTEXT_TOOL } from '../../src/tools/workspace';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, storeTexts, type TestPlanner } from '../support/planner-workers';
import {
  scriptedPlans,
  startScriptedLlmServer,
  toolStep,
  type ScriptedLlmServer,
} from '../support/scripted-llm-server';
import { connectClient } from '../support/temporal';

const INSIDE = 'inside-passwords-7d21';
const SECRET = 'outside-secret-b94e0c';
const FILES_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const EFFECT_SERVER = path.join(projectRoot(), 'test/fixtures/effect-mcp-server.ts');
const SWAPPED_FILES = 20;

let top: string;
let ws: string;
let outside: string;
let client: Client;
let llm: ScriptedLlmServer;
const plans = scriptedPlans({
  steps: ['Read the files about passwords'],
  capabilities: ['read', 'files'],
  task: 'Read',
});

beforeAll(async () => {
  top = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'planner-confine-')));
  ws = path.join(top, 'ws');
  outside = path.join(top, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`);
  writeFileSync(path.join(ws, 'notes.md'), `Notes about passwords: ${INSIDE}\n`);
  symlinkSync(outside, path.join(ws, 'outlink'));
  llm = await startScriptedLlmServer({ reply: plans.reply });
  client = await connectClient();
});

afterAll(async () => {
  await llm?.close();
  await client?.connection.close();
  await fs.rm(top, { recursive: true, force: true });
});

async function withPlanner<T>(
  pack: ToolPack,
  env: NodeJS.ProcessEnv,
  fn: (planner: TestPlanner) => Promise<T>,
): Promise<T> {
  const planner = await startTestPlanner(pack, { prefix: 'confine', env: { ...llm.env, ...env } });
  try {
    return await fn(planner);
  } finally {
    await planner.stop();
  }
}

function start(
  planner: TestPlanner,
  id: string,
  catalog: string,
  constraints: Record<string, unknown>,
  goal = 'gather the files about passwords',
) {
  return client.workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId: `${id}-${planner.taskQueue}`,
    args: [{ request: { goal, tool_catalog: catalog, planner: 'llm', constraints } }],
  });
}

/** Every file the content store holds, as text. */
const sentSince = (seen: number) => llm.requests.slice(seen).map((r) => JSON.stringify(r.body));

/**
 * A process that swaps each of `files` (in the workspace) between a regular file and a symlink to the secret outside,
 * over and over, each swap one atomic rename (the staged entries live outside the workspace).
 */
function startSwapping(files: string[]): ChildProcess {
  const stage = mkdtempSync(path.join(top, 'stage-'));
  const script = `
    const fs = require('node:fs');
    const [stage, secret, inside, ...files] = process.argv.slice(1);
    for (let n = 0; ; n++) {
      files.forEach((file, i) => {
        const staged = stage + '/' + i;
        if (n % 2 === 0) fs.symlinkSync(secret, staged);
        else fs.writeFileSync(staged, inside);
        fs.renameSync(staged, file);
      });
    }`;
  return spawn(
    process.execPath,
    ['-e', script, stage, path.join(outside, 'secret.txt'), `Passwords file: ${INSIDE}\n`, ...files],
    { stdio: 'ignore' },
  );
}

describe('item 5: a file swapped for a symlink after the walk is never read through', () => {
  test('over several runs, neither the planning prompt nor the workspace-context step ever carries the outside file', async () => {
    const files = Array.from({ length: SWAPPED_FILES }, (_, i) =>
      path.join(ws, `passwords-${String(i).padStart(2, '0')}.md`),
    );
    for (const file of files) writeFileSync(file, `Passwords file: ${INSIDE}\n`);
    const swapper = startSwapping(files);
    const seen = llm.requests.length;
    try {
      await withPlanner(
        createWorkspacePack(ws, { allowedRoots: [ws] }),
        { PLANNER_WORKSPACE_ROOTS: ws },
        async (planner) => {
          for (let trial = 0; trial < 5; trial++) {
            plans.set([toolStep('1.1', WORKSPACE_CONTEXT_TOOL, { goal: 'passwords', max_context_tokens: 8000 })]);
            const outcome = await (
              await start(planner, `race-${trial}`, 'workspace', { workspace_root: ws, max_context_tokens: 8000 })
            ).result();
            expect(outcome.failure).toBeNull();
            expect(outcome.steps.map((s) => [s.tool, s.status])).toEqual([[WORKSPACE_CONTEXT_TOOL, 'COMPLETED']]);
          }
          const stored = storeTexts(planner.storeDir);
          // the detectors work: what was inside reached both the prompt and the step's stored result
          expect(sentSince(seen).some((text) => text.includes(INSIDE))).toBe(true);
          expect(stored.some((text) => text.includes(INSIDE))).toBe(true);
          expect(sentSince(seen).filter((text) => text.includes(SECRET)).length).toBe(0);
          expect(stored.filter((text) => text.includes(SECRET)).length).toBe(0);
        },
      );
    } finally {
      swapper.kill('SIGKILL');
      await Promise.all(files.map((file) => fs.rm(file, { force: true })));
    }
  });
});

describe('item 6: a run without workspace_root is confined to the allowed roots', () => {
  let pack: McpPack;
  afterAll(async () => pack?.close());

  test('an MCP filesystem server that may read the whole folder is refused a file outside its configured roots', async () => {
    // The operator lets the server read `top`, but declares only the workspace as the folder its tools may name.
    pack = await createMcpPack('files', {
      command: process.execPath,
      args: [FILES_SERVER, top],
      env: {},
      roots: [ws],
    } satisfies McpServerConfig);
    plans.set(
      [toolStep('1.1', 'read_text_file', { path: path.join(outside, 'secret.txt') })],
      [toolStep('1.1', 'read_text_file', { path: path.join(ws, 'notes.md') })],
    );
    const seen = llm.requests.length;
    // PLANNER_WORKSPACE_ROOTS left unset: the worker's default root (its folder) plus the server's roots.
    await withPlanner(pack, {}, async (planner) => {
      const handle = await start(planner, 'no-root', 'files', {});
      const outcome = await handle.result();
      const state = await handle.query(getStateQuery);
      expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
      expect(state.versions[1]!.explanation).toContain(
        `param "path" of tool "read_text_file" is outside the workspace`,
      );
      expect(state.versions[1]!.explanation).toContain(path.join(outside, 'secret.txt'));
      expect(outcome.stage).toBe('COMPLETED');
      expect(state.steps.at(-1)!.result!.data).toEqual({ content: `Notes about passwords: ${INSIDE}\n` });
      expect(sentSince(seen).filter((text) => text.includes(SECRET)).length).toBe(0);
      expect(storeTexts(planner.storeDir).filter((text) => text.includes(SECRET)).length).toBe(0);
    });
  });
});

describe('item 7: a path param under a name no heuristic knows', () => {
  let pack: McpPack;
  afterAll(async () => pack?.close());

  test('read_doc {"location": "outlink/secret.txt"} is followed through the symlink and refused before the server reads it', async () => {
    const server = {
      command: process.execPath,
      args: ['--require', require.resolve('tsx/cjs'), EFFECT_SERVER],
      env: {},
      cwd: ws,
    } satisfies McpServerConfig;
    pack = await createMcpPack('docs', server);
    plans.set(
      [toolStep('1.1', 'read_doc', { location: 'outlink/secret.txt' })],
      [toolStep('1.1', 'read_doc', { location: 'notes.md' })],
    );
    const seen = llm.requests.length;
    await withPlanner(pack, { PLANNER_WORKSPACE_ROOTS: ws }, async (planner) => {
      const handle = await start(planner, 'location', 'docs', { workspace_root: ws }, 'read the doc about passwords');
      const outcome = await handle.result();
      const state = await handle.query(getStateQuery);
      expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
      expect(state.versions[1]!.explanation).toContain(
        `param "location" of tool "read_doc" is outside the workspace ${ws}: outlink/secret.txt (resolves to ${outside}/secret.txt)`,
      );
      expect(outcome.stage).toBe('COMPLETED');
      expect(JSON.stringify(state.steps.at(-1)!.result!.data)).toContain(INSIDE);
      expect(sentSince(seen).filter((text) => text.includes(SECRET)).length).toBe(0);
      expect(storeTexts(planner.storeDir).filter((text) => text.includes(SECRET)).length).toBe(0);
    });
  });
});
