/**
 * MCP tools end to end: @modelcontextprotocol/server-filesystem (spawned over stdio with this Node) on a temporary
 * folder becomes the "files" tool pack; the LLM planner (a scripted chat-completions server) plans over its real
 * catalog, and planningWorkflow runs the steps on the pack's worker through the MCP client.
 *
 * server-filesystem answers every tool with structuredContent `{ content: "<text>" }`, so a step's data is that
 * object: list_directory → { content: "[FILE] notes.txt" }, search_files → { content: "<abs path>", paths: [...] }
 * (the pack adds `paths` to a text of absolute paths, one a line: src/tools/mcp/result.ts), read_text_file →
 * { content: "<file text>" }. The path of the file to read flows through `${step[1].data.content}` (search_files'
 * single match) or `${step[1].data.paths.*}` (every match); list_directory's "[FILE] name" lines are not a path a
 * template can address.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { StepFailedError } from '../../src/domain/errors';
import {
  createMcpPack,
  McpServerUnavailableError,
  McpToolError,
  mcpTaskQueue,
  type McpPack,
} from '../../src/tools/mcp';
import { getStateQuery } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import {
  scriptedPlans,
  startScriptedLlmServer,
  toolStep,
  type ScriptedLlmServer,
} from '../support/scripted-llm-server';
import { connectClient } from '../support/temporal';

const NOTES = 'Buy milk.\nCall the lab about batch 42.\n';
const SERVER_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

let folder: string;
let pack: McpPack;
let client: Client;
let llm: ScriptedLlmServer;
const spare: McpPack[] = [];
const plans = scriptedPlans({
  steps: ['List the files in the folder', 'Find notes.txt', 'Read notes.txt'],
  capabilities: ['list_directory', 'read_text_file'],
  intent: 'query',
  task: 'Read the notes',
  complexity: 3,
});

function filesServer(dir: string) {
  // `roots`: the folder the operator lets runs name (outside the worker's PLANNER_WORKSPACE_ROOTS, its folder).
  return { command: process.execPath, args: [SERVER_BIN, dir], env: {}, roots: [dir] };
}

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'mcp-files-')));
  writeFileSync(path.join(folder, 'notes.txt'), NOTES);
  pack = await createMcpPack('files', filesServer(folder));
  llm = await startScriptedLlmServer({ reply: plans.reply });
  client = await connectClient();
});

afterAll(async () => {
  await pack?.close();
  await Promise.allSettled(spare.map((p) => p.close()));
  await llm?.close();
  await client?.connection.close();
});

async function withPlanner<T>(fn: (planner: TestPlanner) => Promise<T>): Promise<T> {
  const planner = await startTestPlanner(pack, {
    prefix: 'mcp',
    env: llm.env,
  });
  try {
    return await fn(planner);
  } finally {
    await planner.stop();
  }
}

function start(planner: TestPlanner, id: string) {
  return client.workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId: `${id}-${planner.taskQueue}`,
    args: [
      { request: { goal: 'list the files in the folder and read notes.txt', tool_catalog: 'files', planner: 'llm' } },
    ],
  });
}

const GOOD_PLAN = () => [
  toolStep('1.1', 'list_directory', { path: folder }),
  toolStep('1.2', 'search_files', { path: folder, pattern: 'notes.txt' }),
  toolStep('1.3', 'read_text_file', { path: '${step[1].data.content}' }, [1]),
];

test("the pack lists the server's tools as catalog entries with JSON Schema params", () => {
  const byName = new Map(pack.tools.map((t) => [t.spec.name, t.spec]));
  expect([...byName.keys()]).toEqual(
    expect.arrayContaining(['list_directory', 'read_text_file', 'search_files', 'write_file', 'edit_file']),
  );
  expect(byName.get('read_text_file')).toMatchObject({
    task_queue: mcpTaskQueue('files'),
    idempotent: true, // readOnlyHint
    tags: ['read', 'text', 'file'],
    required: ['path'],
  });
  expect(byName.get('read_text_file')!.parameters.properties).toHaveProperty(
    'path',
    expect.objectContaining({ type: 'string' }),
  );
  expect(byName.get('edit_file')!.idempotent).toBe(false);
  expect(pack.catalog).toBe('files');
});

test('plans and executes "list the files in the folder and read notes.txt" through the workflow', async () => {
  plans.set(GOOD_PLAN());
  await withPlanner(async (planner) => {
    const handle = await start(planner, 'mcp-read');
    const outcome = await handle.result();
    expect(outcome.failure).toBeNull();
    expect(outcome.stage).toBe('COMPLETED');
    expect(outcome.steps.map((s) => [s.tool, s.status])).toEqual([
      ['list_directory', 'COMPLETED'],
      ['search_files', 'COMPLETED'],
      ['read_text_file', 'COMPLETED'],
    ]);
    const state = await handle.query(getStateQuery);
    expect(state.routing.map((r) => r.queue)).toEqual([planner.toolQueue, planner.toolQueue, planner.toolQueue]);
    expect(state.plan!.tasks[0]!.steps[2]!.params).toEqual({ path: '${step[1].data.content}' });
    expect(state.steps[0]!.result!.data).toEqual({ content: '[FILE] notes.txt' });
    expect(state.steps[1]!.result!.data).toEqual({
      content: path.join(folder, 'notes.txt'),
      paths: [path.join(folder, 'notes.txt')],
    });
    expect(state.steps[2]!.result!.data).toEqual({ content: NOTES });
  });
});

test("a param that violates the tool's schema after template resolution fails the step typed; the workflow re-plans", async () => {
  // `${step[0].data}` resolves to the object { content: ... }, but read_text_file.path must be a string.
  plans.set(
    [
      toolStep('1.1', 'search_files', { path: folder, pattern: 'notes.txt' }),
      toolStep('1.2', 'read_text_file', { path: '${step[0].data}' }, [0]),
    ],
    [
      toolStep('1.1', 'search_files', { path: folder, pattern: 'notes.txt' }),
      toolStep('1.2', 'read_text_file', { path: '${step[0].data.content}' }, [0]),
    ],
  );
  await withPlanner(async (planner) => {
    const handle = await start(planner, 'mcp-bad-param');
    const outcome = await handle.result();
    const state = await handle.query(getStateQuery);
    expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
    expect(state.versions[1]!.explanation).toMatch(/read_text_file.*params of tool "read_text_file" are invalid/s);
    expect(state.versions[1]!.explanation).toMatch(/path: expected string, got object/);
    expect(outcome.stage).toBe('COMPLETED');
    expect(state.steps.at(-1)!.result!.data).toEqual({ content: NOTES });
  });
});

test('a tool error (missing file) is a typed, permanent McpToolError, not a worker crash', async () => {
  const read = pack.tools.find((t) => t.spec.name === 'read_text_file')!;
  const ctx = { idempotencyKey: 'k', heartbeat: () => undefined, signal: new AbortController().signal };
  const err = await read.run({ path: path.join(folder, 'missing.txt') }, ctx).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(McpToolError);
  expect(err).toBeInstanceOf(StepFailedError);
  expect(err).toMatchObject({ code: 'PLAN-008', retryable: false, message: expect.stringMatching(/ENOENT/) });
});

test('a server process that dies is restarted on the next call', async () => {
  const own = await createMcpPack('files-restart', filesServer(folder));
  spare.push(own);
  const pid = own.connection.pid!;
  expect(pid).toBeGreaterThan(0);
  process.kill(pid, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 200));
  expect(
    await own.connection.callTool('read_text_file', { path: path.join(folder, 'notes.txt') }, { idempotent: true }),
  ).toEqual({ content: NOTES });
  expect(own.connection.starts).toBe(2);
  expect(own.connection.pid).not.toBe(pid);
  await own.close();
  expect(own.connection.pid).toBeNull();
});

test('an MCP server that is not there gives a clear typed error', async () => {
  const missingCommand = await createMcpPack('ghost', {
    command: path.join(folder, 'no-such-server'),
    args: [],
    env: {},
  }).catch((e: unknown) => e);
  expect(missingCommand).toBeInstanceOf(McpServerUnavailableError);
  expect(missingCommand).toMatchObject({
    code: 'PLAN-008',
    retryable: false,
    message: expect.stringMatching(/MCP server "ghost" is unavailable \(cannot start\).*ENOENT/s),
  });

  const missingScript = await createMcpPack('ghost2', {
    command: process.execPath,
    args: [path.join(folder, 'no-such-server.js')],
    env: {},
  }).catch((e: unknown) => e);
  expect(missingScript).toBeInstanceOf(McpServerUnavailableError);
  expect((missingScript as Error).message).toMatch(/Cannot find module/);
  expect((missingScript as McpServerUnavailableError).details).toMatchObject({ command: process.execPath });
});
