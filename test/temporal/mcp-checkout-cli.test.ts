/**
 * The MCP route of docs/tools-and-mcp.md from a clone of the repository: a folder whose planner.config.json names an MCP server
 * (@modelcontextprotocol/server-filesystem over stdio, run by this Node), and `planner worker` started there from the
 * checkout's bin/planner.js, which runs the TypeScript sources through tsx. The worker must start and serve the
 * server's catalog: a run over catalog "files" (ranking planner) calls the server's `list_allowed_directories` and
 * gets the folder back, and `planner tools` there lists the server's tools. (`planner dev` builds its packs the same
 * way, defaultToolPacks, but always on the local dev server at localhost:7233, which a test does not start.)
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getStateQuery } from '../../src/api';
import { mcpTaskQueue } from '../../src/tools/mcp';
import { planningWorkflow } from '../../src/workflows';
import { runPlannerCli, spawnPlannerCli, type LiveCli } from '../support/cli';
import { connectClient, uniqueTaskQueue } from '../support/temporal';

const SERVER_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

let folder: string;
let shared: string;
let client: Client;

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'mcp-checkout-')));
  shared = path.join(folder, 'shared');
  mkdirSync(shared);
  writeFileSync(path.join(shared, 'notes.txt'), 'Buy milk.\n');
  writeFileSync(
    path.join(folder, 'planner.config.json'),
    JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [SERVER_BIN, shared] } } }),
  );
  client = await connectClient();
});

afterAll(async () => {
  await client?.connection.close();
  rmSync(folder, { recursive: true, force: true });
});

test('`planner worker` from the checkout, in a folder whose planner.config.json names an MCP server, serves its catalog', async () => {
  const taskQueue = uniqueTaskQueue('mcp-cli');
  // The config is the one in the working folder (no PLANNER_CONFIG); the store is the folder's own.
  const env = { PLANNER_CONFIG: undefined, PLANNER_STORE_DIR: path.join(folder, 'store') };
  let cli: LiveCli | undefined;
  try {
    cli = spawnPlannerCli(['worker', '--task-queue', taskQueue], env, { cwd: folder });
    await cli.waitFor(/Workers polling/);
    expect(cli.output()).toContain(mcpTaskQueue('files'));

    const handle = await client.workflow.start(planningWorkflow, {
      taskQueue,
      workflowId: `mcp-cli-${taskQueue}`,
      args: [
        {
          request: {
            goal: 'List the allowed directories',
            tool_catalog: 'files',
            planner: 'ranking',
            constraints: { allowed_tools: ['list_allowed_directories'] },
          },
        },
      ],
    });
    const outcome = await handle.result();
    expect(outcome.failure).toBeNull();
    expect(outcome.stage).toBe('COMPLETED');
    expect(outcome.steps.map((s) => [s.tool, s.status])).toEqual([['list_allowed_directories', 'COMPLETED']]);
    const state = await handle.query(getStateQuery);
    expect(state.routing.map((r) => r.queue)).toEqual([mcpTaskQueue('files')]);
    expect(state.steps[0]!.result!.data).toEqual({ content: `Allowed directories:\n${shared}` });
  } finally {
    cli?.kill();
  }
  expect(await cli.exited).toBe(0);
  expect(cli.output()).not.toMatch(/not supported resolving ES modules|error:/i);
});

test("`planner tools` from the checkout, in that folder, lists the MCP server's tools under its catalog", async () => {
  // The same loading of planner.config.json's servers as `planner dev` and `planner worker` (defaultToolPacks).
  const listed = await runPlannerCli(
    ['tools', '--catalog', 'files', '--json'],
    { PLANNER_CONFIG: undefined },
    { cwd: folder },
  );
  expect(listed.stderr).not.toMatch(/not supported resolving ES modules|Directory import/i);
  expect(listed.code).toBe(0);
  const catalog = JSON.parse(listed.stdout) as {
    catalog: string;
    unavailable: string | null;
    tools: { name: string; taskQueue: string }[];
  };
  expect(catalog).toMatchObject({ catalog: 'files', unavailable: null });
  expect(catalog.tools.map((t) => t.name)).toEqual(
    expect.arrayContaining(['list_allowed_directories', 'list_directory', 'read_text_file']),
  );
});
