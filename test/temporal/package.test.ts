/**
 * The published package, as a team embedding the planner gets it: `npm pack` (prepack builds dist/), install the
 * tarball into an empty folder, run its `planner` bin, and run a worker of the team's own (plain CommonJS,
 * test/fixtures/package-user/greet-worker.js) that serves the planner with one tool through plannerPlugin and
 * plans a goal with it against the test dev server. The compiled workflows are bundled from the installed dist/.
 * Then the installed `planner worker` serves an MCP server that planner.config.json names.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mcpTaskQueue } from '../../src/tools/mcp';
import { planningWorkflow } from '../../src/workflows';
import { connectClient, testAddress, uniqueTaskQueue, waitFor } from '../support/temporal';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);
const FILES_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** The environment of a user's shell: no LLM configured (the ranking planner plans), no planner settings of ours. */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|PLANNER_|TEMPORAL_)/.test(k)));
  return { ...env, TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: 'default' };
}

let dir: string;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the packed package installs, its bin runs, a user-defined tool is planned and run through plannerPlugin, and its planner worker serves an MCP catalog', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'planner-package-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 64 << 20 });
  const tarball = path.join(dir, (JSON.parse(packed.stdout) as [{ filename: string }])[0].filename);

  const user = path.join(dir, 'user');
  mkdirSync(user);
  writeFileSync(path.join(user, 'package.json'), JSON.stringify({ name: 'planner-user', private: true }));
  const pins = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies as Record<string, string>;
  await run(
    'npm',
    ['install', tarball, `zod@${pins.zod}`, `@temporalio/worker@${pins['@temporalio/worker']}`, '--no-audit', '--no-fund', '--prefer-offline'],
    { cwd: user, env: userEnv(), maxBuffer: 64 << 20 },
  );

  const help = await run('npx', ['--no', '--', 'planner', '--help'], { cwd: user, env: userEnv() });
  for (const command of ['demo', 'dev', 'worker', 'temporal', 'start', 'show']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));

  copyFileSync(path.join(ROOT, 'test/fixtures/package-user/greet-worker.js'), path.join(user, 'greet-worker.js'));
  const worker = await run(process.execPath, ['greet-worker.js', uniqueTaskQueue('package')], {
    cwd: user,
    env: userEnv(),
    maxBuffer: 64 << 20,
    timeout: 300_000,
  });
  const line = worker.stdout.split('\n').find((l) => l.startsWith('OUTCOME '));
  expect(line).toBeDefined();
  const outcome = JSON.parse(line!.slice('OUTCOME '.length));
  expect(outcome.stage).toBe('COMPLETED');
  expect(outcome.steps).toEqual([expect.objectContaining({ tool: 'greet_user', status: 'COMPLETED' })]);
  expect(readFileSync(path.join(user, 'greeting.txt'), 'utf8')).toBe('Bonjour !');

  // The MCP route of docs/tools-and-mcp.md as published: the installed `planner worker`, in a folder whose planner.config.json names
  // server-filesystem, serves its catalog (dist/ loads the MCP client only then), folder and all.
  const shared = path.join(user, 'shared');
  mkdirSync(shared);
  writeFileSync(path.join(shared, 'notes.txt'), 'Buy milk.\n');
  writeFileSync(path.join(user, 'planner.config.json'), JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [FILES_SERVER, shared] } } }));
  const taskQueue = uniqueTaskQueue('package-mcp');
  const plannerWorker = spawn(process.execPath, [path.join(user, 'node_modules/durable-planner/bin/planner.js'), 'worker', '--task-queue', taskQueue], {
    cwd: user,
    env: { ...userEnv(), PLANNER_STORE_DIR: path.join(user, 'store') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  plannerWorker.stdout.on('data', (c: Buffer) => (output += c));
  plannerWorker.stderr.on('data', (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) => plannerWorker.once('close', resolve));
  const client = await connectClient();
  try {
    await waitFor(() => output.includes('Workers polling') || plannerWorker.exitCode !== null, 120_000, 'the installed planner worker');
    expect(output).toContain(mcpTaskQueue('files'));
    const listing = await client.workflow.execute(planningWorkflow, {
      taskQueue,
      workflowId: `package-mcp-${taskQueue}`,
      args: [{ request: { goal: 'List the directory', tool_catalog: 'files', planner: 'ranking', constraints: { allowed_tools: ['list_directory'] } } }],
    });
    expect(listing.stage).toBe('COMPLETED');
    expect(listing.steps).toEqual([expect.objectContaining({ tool: 'list_directory', status: 'COMPLETED' })]);
  } finally {
    plannerWorker.kill('SIGTERM');
    await client.connection.close();
  }
  expect(await exited).toBe(0);
  // Generous: packing builds dist/, the install fetches the dependencies, the worker bundles the workflows (webpack);
  // about 2 minutes on an idle machine, 5 on a loaded one.
}, 600_000);
