/**
 * Issue 13 on the dev server, through planningWorkflow and real workers:
 *   1. a run cannot point the planner at a folder the workers' configuration does not allow: with workspace_root
 *      `/etc` no file from /etc reaches the LLM provider's prompt or the content store, and the run fails with PLAN-006
 *      (WorkspaceRootNotAllowedError); inside an allowed root the same run sees the workspace.
 *   7. path params are found by the tool's schema (pathParam()), and checked by real path: `..` in the middle of a
 *      value is refused by plan validation, a symlink inside the workspace that leads to /etc by executeStep, both
 *      before the tool runs.
 */
import {
  promises as fs,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { getStateQuery } from '../../src/api';
import { pathParam } from '../../src/domain/tool-spec';
import { defineTool, defineToolPack } from '../../src/tools/define-tool';
import type { ToolPack } from '../../src/tools/tool';
import { createWorkspacePack, WORKSPACE_CONTEXT_TOOL } from '../../src/tools/workspace';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, storeTexts, type TestPlanner } from '../support/planner-workers';
import {
  promptKind,
  scriptedPlans,
  startScriptedLlmServer,
  toolStep,
  type ScriptedLlmServer,
} from '../support/scripted-llm-server';
import { connectClient } from '../support/temporal';

const MARKER = 'workspace-marker-5c1e9d';
/** First lines of files in /etc that must never reach the provider or the store. */
const ETC_SECRETS = ['/etc/passwd', '/etc/shadow'].flatMap((file) => {
  try {
    return [readFileSync(file, 'utf8').split('\n')[0]!].filter((line) => line.length > 8);
  } catch {
    return [];
  }
});

let ws: string;
let client: Client;
let llm: ScriptedLlmServer;
const plans = scriptedPlans({
  steps: ['Gather the files about passwords', 'Read them'],
  capabilities: ['workspace', 'files'],
  task: 'Read',
  complexity: 2,
});

beforeAll(async () => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'planner-ws-')));
  mkdirSync(path.join(ws, 'sub'));
  writeFileSync(path.join(ws, 'notes.md'), `Notes for the passwords goal: ${MARKER}\n`);
  symlinkSync('/etc', path.join(ws, 'etc-link'));
  llm = await startScriptedLlmServer({ reply: plans.reply });
  client = await connectClient();
});

afterAll(async () => {
  await llm?.close();
  await client?.connection.close();
  await fs.rm(ws, { recursive: true, force: true });
});

async function withPlanner<T>(pack: ToolPack, fn: (planner: TestPlanner) => Promise<T>): Promise<T> {
  const planner = await startTestPlanner(pack, {
    prefix: 'paths',
    env: { ...llm.env, PLANNER_WORKSPACE_ROOTS: ws },
  });
  try {
    return await fn(planner);
  } finally {
    await planner.stop();
  }
}

function start(planner: TestPlanner, id: string, catalog: string, workspace_root: string) {
  return client.workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId: `${id}-${planner.taskQueue}`,
    args: [
      {
        request: {
          goal: 'gather the files about passwords',
          tool_catalog: catalog,
          planner: 'llm',
          constraints: { workspace_root, max_context_tokens: 4000 },
        },
      },
    ],
  });
}

/** Every file the content store holds, as text. */
function requestTexts(): string[] {
  return llm.requests.map((r) => JSON.stringify(r.body));
}

describe('finding 1: workspace roots are limited to PLANNER_WORKSPACE_ROOTS', () => {
  const pack = () => createWorkspacePack(ws, { allowedRoots: [ws] });
  const contextStep = () => [
    toolStep('1.1', WORKSPACE_CONTEXT_TOOL, { goal: 'passwords shadow', max_context_tokens: 4000 }),
  ];

  test('inside an allowed root the planner and the tool see the workspace (the leak detector works)', async () => {
    plans.set(contextStep());
    const seen = llm.requests.length;
    await withPlanner(pack(), async (planner) => {
      const outcome = await (await start(planner, 'ws-allowed', 'workspace', ws)).result();
      expect(outcome.failure).toBeNull();
      expect(outcome.steps.map((s) => [s.tool, s.status])).toEqual([[WORKSPACE_CONTEXT_TOOL, 'COMPLETED']]);
      expect(
        llm.requests.slice(seen).some((r) => promptKind(r.body) === 'plan' && JSON.stringify(r.body).includes(MARKER)),
      ).toBe(true);
      expect(storeTexts(planner.storeDir).some((text) => text.includes(MARKER))).toBe(true);
    });
  });

  test('workspace_root /etc: the run fails with PLAN-006 and no file from /etc reaches the prompt or the store', async () => {
    expect(ETC_SECRETS.length).toBeGreaterThan(0);
    plans.set(contextStep());
    const seen = llm.requests.length;
    await withPlanner(pack(), async (planner) => {
      const handle = await start(planner, 'ws-etc', 'workspace', '/etc');
      await handle.result().then(
        (outcome) => expect(outcome.failure).toMatchObject({ code: 'PLAN-006' }),
        (err: unknown) => expect(err).toBeInstanceOf(Error),
      );
      const state = await handle.query(getStateQuery);
      expect(state.stage).toBe('FAILED');
      expect(state.failure).toMatchObject({ code: 'PLAN-006', type: 'WorkspaceRootNotAllowedError' });
      expect(state.failure!.hint).toContain('PLANNER_WORKSPACE_ROOTS');
      expect(state.steps).toEqual([]);
      const sent = requestTexts().slice(seen);
      for (const secret of ETC_SECRETS) {
        expect(sent.filter((text) => text.includes(secret))).toEqual([]);
        expect(storeTexts(planner.storeDir).filter((text) => text.includes(secret))).toEqual([]);
      }
      expect(sent.filter((text) => text.includes('gshadow'))).toEqual([]);
    });
  });
});

describe('finding 7: path params by schema, checked by real path before the tool runs', () => {
  let reads: string[] = [];
  const readFile = defineTool({
    name: 'read-file',
    description: 'Read a text file of the workspace',
    // "source" is not a name the old heuristic took for a path: only the schema says it is one.
    params: z.object({ source: pathParam('The file to read, relative to the workspace') }),
    result: z.object({ content: z.string() }),
    idempotent: true,
    run: async ({ source }, ctx) => {
      reads.push(source);
      return { content: await fs.readFile(path.resolve(ctx.workspaceRoot ?? ws, source), 'utf8') };
    },
  });

  test('".." mid-value is refused by validation, a symlink to /etc by executeStep; only the good path is read', async () => {
    reads = [];
    plans.set(
      [toolStep('1.1', 'read-file', { source: 'sub/../../../etc/passwd' })],
      [toolStep('1.1', 'read-file', { source: 'etc-link/passwd' })],
      [toolStep('1.1', 'read-file', { source: 'sub/../notes.md' })],
    );
    const seen = llm.requests.length;
    await withPlanner(defineToolPack('files', [readFile]), async (planner) => {
      const handle = await start(planner, 'ws-files', 'files', ws);
      const outcome = await handle.result();
      const state = await handle.query(getStateQuery);
      expect(outcome.stage).toBe('COMPLETED');
      // plan 1 never left generatePlan: the re-prompt carried the lexical issue
      const planRequests = llm.requests
        .slice(seen)
        .filter((r) => promptKind(r.body) === 'plan')
        .map((r) => JSON.stringify(r.body));
      expect(
        planRequests.some(
          (text) => text.includes('PATH_OUTSIDE_WORKSPACE') || text.includes('points outside the workspace'),
        ),
      ).toBe(true);
      // plan 2 ran: executeStep refused the symlink with a typed error before the tool ran, and the run re-planned
      expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
      expect(state.versions[1]!.explanation).toMatch(/PathOutsideWorkspaceError|outside the workspace/);
      expect(reads).toEqual(['sub/../notes.md']);
      expect(state.steps.at(-1)!.result!.data).toEqual({ content: `Notes for the passwords goal: ${MARKER}\n` });
      for (const secret of ETC_SECRETS)
        expect(storeTexts(planner.storeDir).filter((text) => text.includes(secret))).toEqual([]);
    });
  });
});
