/** Shared plumbing for tests on the real dev server that test/setup/global-setup.ts started. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { readFailure, type PlanFailure } from '../../src/api/failures';
import { getStateQuery } from '../../src/api/messages';
import type { PlanningState } from '../../src/api/state';
import { ensureTimeSkippingServer } from '../../src/dev/temporal-binaries';
import { startDevServer, type DevServer } from '../../src/dev/temporal-server';
import { projectRoot } from '../../src/project-root';
import { createActivities, createPlanningDependencies } from '../../src/activities';
import { loadConfig } from '../../src/config';
import { createPlannerWorker } from '../../src/worker';
import { probeActivities } from '../fixtures/probe-activities';

const ROOT = projectRoot();

let runtimeInstalled = false;
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  runtimeInstalled = true;
}

export function testAddress(): string {
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address) throw new Error('TEMPORAL_TEST_ADDRESS unset: run these tests through jest (global setup).');
  return address;
}

export function workflowBundle(): { code: string } {
  return { code: readFileSync(process.env.PLANNER_TEST_BUNDLE!, 'utf8') };
}

/** A worker of the planner's workflows (the tests' bundle) that serves `activities` on `taskQueue`. */
export async function workflowWorker(
  connection: NativeConnection,
  taskQueue: string,
  activities: object,
  namespace = 'default',
): Promise<Worker> {
  return await Worker.create({ connection, namespace, taskQueue, workflowBundle: workflowBundle(), activities });
}

/**
 * A dev server of its own whose database is the file temporal.db in `dir` (its log beside it), on `port` (a free one
 * when omitted). Started again on the same `dir` and port once stopped, it holds the runs the stopped one stored.
 */
export function startDevServerIn(dir: string, port?: number): Promise<DevServer> {
  return startDevServer({
    binaries: loadConfig(),
    dbFile: path.join(dir, 'temporal.db'),
    port,
    headless: true,
    logFile: path.join(dir, 'server.log'),
  });
}

/** A task queue of its own per test, so tests sharing the server never steal each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function connectClient(address = testAddress()): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address }), namespace: 'default' });
}

/** A client and a worker connection to the tests' dev server for the calling test file: opened before its tests, closed after. */
export function useDevServer(): () => { client: Client; connection: NativeConnection } {
  let client: Client | undefined;
  let connection: NativeConnection | undefined;
  beforeAll(async () => {
    quietRuntime();
    client = await connectClient();
    connection = await NativeConnection.connect({ address: testAddress() });
  });
  afterAll(async () => {
    await client?.connection.close();
    await connection?.close();
  });
  return () => ({ client: client!, connection: connection! });
}

export interface TestWorker {
  worker: Worker;
  connection: NativeConnection;
  /** Runs the worker in the background; resolves when it has stopped. */
  running: Promise<void>;
  stop(): Promise<void>;
}

export async function startTestWorker(
  taskQueue: string,
  options: { address?: string; activities?: WorkerOptions['activities'] } = {},
): Promise<TestWorker> {
  quietRuntime();
  const connection = await NativeConnection.connect({ address: options.address ?? testAddress() });
  const worker = await createPlannerWorker({
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: workflowBundle(),
    activities: options.activities ?? {
      ...createActivities(createPlanningDependencies({ config: loadConfig() })),
      ...probeActivities,
    },
  });
  const running = worker.run();
  return {
    worker,
    connection,
    running,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/**
 * A worker fixture (a file under test/fixtures) in a child process, resolved once it prints "ready". `cwd` (default:
 * the project) stands for the folder of another machine.
 */
export async function spawnFixtureWorker(
  fixture: string,
  env: NodeJS.ProcessEnv,
  options: { cwd?: string } = {},
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--require', require.resolve('tsx/cjs'), path.join(ROOT, 'test/fixtures', fixture)],
    {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Its last words, should it exit before it is ready (a chaos drill's workers run for minutes: a tail only).
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`worker process exited (${code ?? signal}) before ready: ${stderr}`)),
    );
  });
  return child;
}

/** The probe worker (test/fixtures/probe-worker.ts) in a child process. */
export function spawnWorkerProcess(taskQueue: string, address = testAddress()): Promise<ChildProcess> {
  return spawnFixtureWorker('probe-worker.ts', { TEMPORAL_ADDRESS: address, PLANNER_TASK_QUEUE: taskQueue });
}

export function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** Alive and not a zombie (a zombie's /proc stat state is Z). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** The living (not zombie) processes of process group `pgid`, from /proc (a dead parent's zombies may never be reaped). */
export function livingInGroup(pgid: number): number[] {
  const living: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z') living.push(Number(entry));
  }
  return living;
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Temporal's time-skipping test server for the calling test file: started before its tests, torn down after. */
export function useTimeSkippingServer(): () => TestWorkflowEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    quietRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: ensureTimeSkippingServer(loadConfig()) } },
    });
  });
  afterAll(async () => {
    await env?.teardown();
  });
  return () => env!;
}

/** A run's typed failure (null when it completed); anything but a run failure is thrown. */
export async function failureOfRun(handle: WorkflowHandle): Promise<PlanFailure | null> {
  return await handle.result().then(
    () => null,
    (err: unknown) => (err instanceof WorkflowFailedError ? readFailure(err) : Promise.reject(err)),
  );
}

/** A run's typed failure (null when it completed) and its final state, queried while its worker still runs. */
export async function settle(handle: WorkflowHandle): Promise<{ state: PlanningState; failure: PlanFailure | null }> {
  const failure = await failureOfRun(handle);
  return { state: await handle.query(getStateQuery), failure };
}

/** The state once step `id` of the run waits for a person. */
export async function stepWaiting(handle: WorkflowHandle, id: string): Promise<PlanningState> {
  let state!: PlanningState;
  await waitFor(
    async () => (state = await handle.query(getStateQuery)).steps.some((s) => s.id === id && s.status === 'WAITING'),
    30_000,
    `step ${id} WAITING`,
  );
  return state;
}

/** The build id of the worker version that completed each workflow task of `history` ('' for an unversioned worker). */
export function buildIdsOf(history: temporal.api.history.v1.IHistory): string[] {
  return history.events!.flatMap((e) =>
    e.workflowTaskCompletedEventAttributes
      ? [e.workflowTaskCompletedEventAttributes.deploymentVersion?.buildId ?? '']
      : [],
  );
}
