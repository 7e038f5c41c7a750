/**
 * What an MCP server says about itself reaches the catalog the planners read (src/tools/mcp/self-description.ts):
 *   - @modelcontextprotocol/server-filesystem on a temporary folder: its `list_allowed_directories` is called once when
 *     the pack connects, and the folder appears in each tool's description and as the example of every path param;
 *     the LLM planner's prompt shows both, and the ranking planner plans "List the directory" on that folder;
 *   - test/fixtures/effect-mcp-server.ts, a server with no such tool: its specs are the ones its tools/list gives,
 *     and none of its tools is called; with ABOUT=1 its instructions and resources are on every tool.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getStateQuery } from '../../src/api';
import { systemPrompt } from '../../src/llm/prompts';
import { projectRoot } from '../../src/project-root';
import { createMcpPack, mcpToolSpec, type McpPack } from '../../src/tools/mcp';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner } from '../support/planner-workers';
import { connectClient } from '../support/temporal';

const FILES_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const EFFECT_SERVER = path.join(projectRoot(), 'test/fixtures/effect-mcp-server.ts');

let folder: string;
let files: McpPack;
let client: Client;
const packs: McpPack[] = [];

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'mcp-about-')));
  writeFileSync(path.join(folder, 'notes.txt'), 'Buy milk.\n');
  files = await createMcpPack('files', {
    command: process.execPath,
    args: [FILES_SERVER, folder],
    env: {},
    roots: [folder],
  });
  packs.push(files);
  client = await connectClient();
});

afterAll(async () => {
  await Promise.allSettled(packs.map((p) => p.close()));
  await client?.connection.close();
  rmSync(folder, { recursive: true, force: true });
});

function specOf(pack: McpPack, name: string) {
  return pack.tools.find((t) => t.spec.name === name)!.spec;
}

test("server-filesystem's allowed directory is in its tools' descriptions and is the example of every path param", () => {
  const note = `Allowed directories (give absolute paths inside one): ${folder}.`;
  const listing = specOf(files, 'list_directory').description;
  expect(listing.startsWith('Get a detailed listing')).toBe(true);
  expect(listing.endsWith(` ${note}`)).toBe(true);
  expect(specOf(files, 'list_directory').parameters.properties!.path).toEqual({ type: 'string', examples: [folder] });
  expect(specOf(files, 'read_text_file').parameters.properties!.path).toEqual({ type: 'string', examples: [folder] });
  expect(specOf(files, 'read_multiple_files').parameters.properties!.paths).toMatchObject({
    type: 'array',
    items: { type: 'string', examples: [folder] },
  });
  // move_file's source and destination are not named like paths: no examples, but the note is there.
  expect(specOf(files, 'move_file').parameters.properties!.source).toEqual({ type: 'string' });
  expect(specOf(files, 'move_file').description).toContain(note);
  // The listing tool itself takes nothing: it says nothing more.
  expect(specOf(files, 'list_allowed_directories').description).not.toContain(note);

  const prompt = systemPrompt(files.tools.map((t) => t.spec));
  expect(prompt).toContain(note);
  expect(prompt).toContain(`"path":{"type":"string","examples":[${JSON.stringify(folder)}]}`);
});

test('the ranking planner lists the server\'s folder for "List the directory"', async () => {
  const planner = await startTestPlanner(files, { prefix: 'mcp-about' });
  try {
    const handle = await client.workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `mcp-about-${planner.taskQueue}`,
      args: [
        {
          request: {
            goal: 'List the directory',
            tool_catalog: 'files',
            planner: 'ranking',
            constraints: { allowed_tools: ['list_directory'] },
          },
        },
      ],
    });
    const outcome = await handle.result();
    expect(outcome.failure).toBeNull();
    expect(outcome.stage).toBe('COMPLETED');
    const state = await handle.query(getStateQuery);
    expect(state.plan!.tasks[0]!.steps.map((s) => [s.tool, s.params])).toEqual([['list_directory', { path: folder }]]);
    expect(state.plan!.assumptions).toContain(
      `list_directory.path is ${JSON.stringify(folder)}, the first example its schema gives: the goal names no path`,
    );
    expect(state.steps[0]!.result!.data).toEqual({ content: '[FILE] notes.txt' });
  } finally {
    await planner.stop();
  }
});

async function effectPack(name: string, env: Record<string, string>): Promise<McpPack> {
  const pack = await createMcpPack(name, {
    command: process.execPath,
    args: ['--require', 'tsx/cjs', EFFECT_SERVER],
    env,
    cwd: projectRoot(),
  });
  packs.push(pack);
  return pack;
}

test('a server with no directory-listing tool, instructions or resources keeps the specs its tools/list gives, and no tool is called', async () => {
  const effectsFile = path.join(folder, 'effects.jsonl');
  const pack = await effectPack('effects', { EFFECTS_FILE: effectsFile });
  const listed = await pack.connection.listTools();
  expect(pack.tools.map((t) => t.spec)).toEqual(listed.map((info) => mcpToolSpec('effects', info)));
  // Its read-only `crash` takes no arguments either, but its name lists no directories: it was not called.
  expect(pack.connection.pid).not.toBeNull();
  expect(existsSync(effectsFile)).toBe(false);
  expect(pack.connection.starts).toBe(1);
});

test("a server's instructions and resources are on every tool", async () => {
  const pack = await effectPack('effects-about', { ABOUT: '1' });
  expect(specOf(pack, 'apply_effect').description).toBe(
    'Apply an effect: appends one line to the effects file Server instructions: Each effect is one line of the effects file. Call big only when asked. Server resources: effects-log, limits.',
  );
  expect(pack.tools.every((t) => t.spec.description.endsWith('Server resources: effects-log, limits.'))).toBe(true);
});
