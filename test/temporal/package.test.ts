/**
 * The published package, as a team embedding the planner gets it: `npm pack` (prepack builds dist/), install the
 * tarball into an empty folder beside the lowest versions of its peer dependencies (@temporalio/* and zod: the
 * tested range's floor; the repository's own devDependencies test its newest), check that the application has one
 * copy of each, run its `durable-planner` bin, and run a worker of the team's own (plain CommonJS,
 * test/fixtures/package-user/greet-worker.js) that serves the planner with one tool through plannerPlugin and
 * plans a goal with it against the test dev server, through the package's PlannerClient up to the handle's result().
 * The compiled workflows are bundled from the installed dist/. Step results land in the application's folder
 * (`<app>/.planner/store`), never in node_modules, and the installed CLI reads them back from there.
 * Then the installed `planner worker` serves an MCP server that planner.config.json names.
 */
import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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

/** The lowest version a peer dependency range of ours allows (`^1.24.0` → 1.24.0). */
function floorOf(range: string): string {
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (!match) throw new Error(`peer dependency range ${range} is not ^x.y.z: teach floorOf the new form`);
  return match[1]!;
}

/** Every installed copy of each package under `nodeModules` (nested node_modules included): name → versions by folder. */
function installedCopies(
  nodeModules: string,
  names: (name: string) => boolean,
  found = new Map<string, string[]>(),
): Map<string, string[]> {
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const folders = entry.name.startsWith('@')
      ? readdirSync(path.join(nodeModules, entry.name)).map(
          (n) => [`${entry.name}/${n}`, path.join(nodeModules, entry.name, n)] as const,
        )
      : [[entry.name, path.join(nodeModules, entry.name)] as const];
    for (const [name, folder] of folders) {
      if (names(name) && existsSync(path.join(folder, 'package.json'))) {
        found.set(name, [
          ...(found.get(name) ?? []),
          `${JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).version} at ${folder}`,
        ]);
      }
      if (existsSync(path.join(folder, 'node_modules')))
        installedCopies(path.join(folder, 'node_modules'), names, found);
    }
  }
  return found;
}

let dir: string;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the packed package installs beside the floor of its peer ranges with one copy of each, its durable-planner bin runs, a user-defined tool is planned and run through plannerPlugin and PlannerClient, its data stays in the app folder, and its planner worker serves an MCP catalog', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'planner-package-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 64 << 20 });
  const tarball = path.join(dir, (JSON.parse(packed.stdout) as [{ filename: string }])[0].filename);

  const user = path.join(dir, 'user');
  mkdirSync(user);
  writeFileSync(path.join(user, 'package.json'), JSON.stringify({ name: 'planner-user', private: true }));
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  // @temporalio/* and zod are peers, never dependencies of ours: the application's copies are the only ones.
  expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith('@temporalio/') || d === 'zod')).toEqual([]);
  expect(Object.keys(manifest.peerDependencies)).toEqual(
    expect.arrayContaining(['@temporalio/worker', '@temporalio/client', '@temporalio/workflow', 'zod']),
  );
  expect(manifest.bin['durable-planner']).toBe('bin/planner.js');
  // The application's own versions: the floor of our ranges (npm installs the peers it does not name itself).
  const own = ['@temporalio/worker', '@temporalio/client', 'zod'].map(
    (name) => `${name}@${floorOf(manifest.peerDependencies[name]!)}`,
  );
  await run('npm', ['install', tarball, ...own, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: user,
    env: userEnv(),
    maxBuffer: 64 << 20,
  });

  // One copy of each framework package in the whole tree: one workflow runtime, one zod.
  const copies = installedCopies(
    path.join(user, 'node_modules'),
    (name) => name.startsWith('@temporalio/') || name === 'zod',
  );
  expect(copies.get('@temporalio/worker')).toHaveLength(1);
  for (const [name, where] of copies) expect({ name, where }).toEqual({ name, where: [expect.any(String)] });
  expect(copies.get('zod')).toEqual([
    expect.stringMatching(new RegExp(`^${floorOf(manifest.peerDependencies.zod!).replace(/\./g, '\\.')} at `)),
  ]);
  // npm's own view agrees: no invalid or missing peer, and every @temporalio/* entry one version.
  const ls = await run('npm', ['ls', '--all', '--json'], { cwd: user, env: userEnv(), maxBuffer: 64 << 20 });
  const versions = new Map<string, Set<string>>();
  const walk = (deps: Record<string, { version?: string; dependencies?: Record<string, unknown> }> | undefined) => {
    for (const [name, dep] of Object.entries(deps ?? {})) {
      if (name.startsWith('@temporalio/') && dep.version)
        versions.set(name, new Set([...(versions.get(name) ?? []), dep.version]));
      walk(dep.dependencies as never);
    }
  };
  walk((JSON.parse(ls.stdout) as { dependencies?: never }).dependencies);
  expect(versions.size).toBeGreaterThan(5);
  for (const [name, set] of versions)
    expect({ name, versions: [...set] }).toEqual({ name, versions: [expect.any(String)] });
  // And as a user would ask it: every place `npm ls @temporalio/workflow` finds it is the application's one copy.
  const workflowLs = await run('npm', ['ls', '@temporalio/workflow', '--all', '--parseable'], {
    cwd: user,
    env: userEnv(),
  });
  expect([...new Set(workflowLs.stdout.split('\n').filter((l) => l.trim() !== ''))]).toEqual([
    path.join(user, 'node_modules', '@temporalio', 'workflow'),
  ]);

  const help = await run('npx', ['--no', '--', 'durable-planner', '--help'], { cwd: user, env: userEnv() });
  for (const command of ['demo', 'dev', 'worker', 'temporal', 'start', 'show'])
    expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  const version = await run('npx', ['--no', '--', 'durable-planner', '--version'], { cwd: user, env: userEnv() });
  expect(version.stdout.trim()).toBe(
    (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  );
  // A store inside node_modules is refused before anything runs.
  const refused = await run(
    process.execPath,
    [path.join(user, 'node_modules/durable-planner/bin/planner.js'), 'worker'],
    {
      cwd: user,
      env: { ...userEnv(), PLANNER_STORE_DIR: path.join(user, 'node_modules', 'store') },
    },
  ).then(
    () => null,
    (err: { code: number; stderr: string }) => err,
  );
  expect(refused).toMatchObject({ code: 2 });
  expect(refused!.stderr).toContain('inside node_modules');

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
  // Its data is in the application's folder, and the worker said so; nothing in the installed package's folder.
  expect(worker.stdout + worker.stderr).toContain(`Store: ${path.join(user, '.planner', 'store')}`);
  expect(readdirSync(path.join(user, '.planner', 'store')).length).toBeGreaterThan(0);
  expect(existsSync(path.join(user, 'node_modules', 'durable-planner', '.planner'))).toBe(false);
  // The installed CLI, from another folder of the application, reads the step's full data back from there (no worker
  // is left to replay the closed run: its result in history names the ref).
  mkdirSync(path.join(user, 'scripts'));
  const result = await run(
    process.execPath,
    [path.join(user, 'node_modules/durable-planner/bin/planner.js'), 'result', outcome.workflowId, '--json'],
    {
      cwd: path.join(user, 'scripts'),
      env: { ...userEnv(), PLANNER_QUERY_TIMEOUT_MS: '1000' },
    },
  );
  expect(JSON.stringify(JSON.parse(result.stdout))).toContain('Bonjour !');

  // The MCP route of docs/tools-and-mcp.md as published: the installed `planner worker`, in a folder whose planner.config.json names
  // server-filesystem, serves its catalog (dist/ loads the MCP client only then), folder and all.
  const shared = path.join(user, 'shared');
  mkdirSync(shared);
  writeFileSync(path.join(shared, 'notes.txt'), 'Buy milk.\n');
  writeFileSync(
    path.join(user, 'planner.config.json'),
    JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [FILES_SERVER, shared] } } }),
  );
  const taskQueue = uniqueTaskQueue('package-mcp');
  const plannerWorker = spawn(
    process.execPath,
    [path.join(user, 'node_modules/durable-planner/bin/planner.js'), 'worker', '--task-queue', taskQueue],
    {
      cwd: user,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  plannerWorker.stdout.on('data', (c: Buffer) => (output += c));
  plannerWorker.stderr.on('data', (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) => plannerWorker.once('close', resolve));
  const client = await connectClient();
  try {
    await waitFor(
      () => output.includes('Workers polling') || plannerWorker.exitCode !== null,
      120_000,
      'the installed planner worker',
    );
    expect(output).toContain(mcpTaskQueue('files'));
    const listing = await client.workflow.execute(planningWorkflow, {
      taskQueue,
      workflowId: `package-mcp-${taskQueue}`,
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
