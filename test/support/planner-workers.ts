/**
 * The planner and its tool workers in the test process, on queues of their own so concurrent tests never take each
 * other's tasks: the waste pack's tools are re-pointed at a unique tool queue (or, with `toolQueues: 'planner'`,
 * served on the planner's unique queue, as the default deployment serves them).
 */
import { mkdtempSync, writeFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createPlanningDependencies } from '../../src/activities';
import { loadConfig, type ToolQueues } from '../../src/config';
import { LocalContentStore } from '../../src/store/content-store';
import type { PlannerStorage } from '../../src/store/storage';
import type { ToolImplementation, ToolPack } from '../../src/tools/tool';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { onQueue } from '../../src/tools/define-tool';
import { catalogsOf, createLocalWorkers, servedPacks, type LocalWorkers } from '../../src/worker';
import { connectClient, quietRuntime, testAddress, uniqueTaskQueue, workflowBundle } from './temporal';

export { onQueue } from '../../src/tools/define-tool';

export interface TestPlanner extends LocalWorkers {
  taskQueue: string;
  toolQueue: string;
  /** The content store's folder (a fresh temporary one). */
  storeDir: string;
  connection: NativeConnection;
  stop(): Promise<void>;
}

export async function startTestPlanner(
  pack: ToolPack,
  options: {
    prefix?: string;
    wrap?: (tool: ToolImplementation) => ToolImplementation;
    env?: NodeJS.ProcessEnv;
    /** Worker plugins (e.g. tracing's); their workflow interceptors need the workflows bundled now, not prebuilt. */
    plugins?: WorkerOptions['plugins'];
    toolQueues?: ToolQueues;
    /** Another planner's queue, for a second worker version beside it (its build id from `env`'s PLANNER_BUILD_ID). */
    taskQueue?: string;
    /** Where results and the ledger live (default: the files under a fresh storeDir). */
    storage?: PlannerStorage;
  } = {},
): Promise<TestPlanner> {
  quietRuntime();
  const taskQueue = options.taskQueue ?? uniqueTaskQueue(options.prefix ?? 'planner');
  const toolQueue = `${taskQueue}-tools`;
  const packs = servedPacks([onQueue(pack, toolQueue, options.wrap)], taskQueue, options.toolQueues ?? 'split');
  const connection = await NativeConnection.connect({ address: testAddress() });
  const storeDir = mkdtempSync(path.join(os.tmpdir(), 'planner-store-'));
  const store = options.storage?.store ?? new LocalContentStore(storeDir);
  const local = await createLocalWorkers({
    connection,
    namespace: 'default',
    packs,
    taskQueue,
    ...(options.plugins ? { plugins: options.plugins } : { workflowBundle: workflowBundle() }),
    store,
    planning: createPlanningDependencies({
      catalogs: catalogsOf(packs),
      config: loadConfig(options.env ?? {}),
      store,
      ...(options.storage ? { ledger: options.storage.ledger } : {}),
    }),
    config: loadConfig(options.env ?? {}),
    makeCurrent: 'always', // its own deployment (named after its unique queue): new runs land on it
  });
  const runs = local.workers.map((w) => w.run());
  await local.current;
  return {
    ...local,
    taskQueue,
    toolQueue,
    storeDir,
    connection,
    async stop() {
      for (const w of local.workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.allSettled(runs);
      await connection.close();
    },
  };
}

/** The text of every file under `dir` (a planner's storeDir), to look for what must never have been stored. */
export function storeTexts(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => readFileSync(file, 'utf8'));
}

/**
 * Saves a finished run's history under test/histories/ for the replay test, when RECORD_HISTORIES=1. Binary
 * protobuf, so replay needs no JSON conversion.
 */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const dir = path.resolve(__dirname, '..', 'histories');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `${name}.binpb`),
    temporal.api.history.v1.History.encode(await handle.fetchHistory()).finish(),
  );
}

/**
 * A waste pack (its data generated around `today`, default the current date) and a client for one test file:
 * opened before its tests, closed after. Read them through the returned getters inside tests (they exist only once
 * beforeAll has run).
 */
export function useWastePackAndClient(today: string | Date = new Date()): {
  pack: () => WastePack;
  client: () => Client;
} {
  let pack: WastePack | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    pack = await createWastePack({ today, cacheDir: loadConfig().cacheDir });
    client = await connectClient();
  });
  afterAll(async () => {
    await pack?.close();
    await client?.connection.close();
  });
  return { pack: () => pack!, client: () => client! };
}
