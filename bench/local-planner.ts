/**
 * What the single-process bench scripts (concurrent, oversized, watch-latency) run on: their own dev server (a SQLite
 * file in a temporary folder, free ports), the planner and the waste pack's tool workers in this process on
 * `taskQueue`, the content store in the same folder, and a client. `withLocalPlanner` stops all of it and removes the
 * folder however the script ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../src/dev/temporal-server';
import { loadConfig } from '../src/config';
import { LocalContentStore } from '../src/store/content-store';
import { createWastePack } from '../src/tools/waste';
import { createLocalWorkers, type LocalWorkers } from '../src/worker';

export interface LocalPlanner {
  server: DevServer;
  workers: LocalWorkers;
  client: Client;
}

export async function withLocalPlanner<T>(taskQueue: string, use: (planner: LocalPlanner) => Promise<T>): Promise<T> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = mkdtempSync(path.join(os.tmpdir(), `${taskQueue}-`));
  const server = await startDevServer({
    binaries: loadConfig(),
    dbFile: path.join(dir, 'temporal.db'),
    headless: true,
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
  const workers = await createLocalWorkers({
    connection,
    namespace: 'default',
    packs: [pack],
    taskQueue,
    store: new LocalContentStore(path.join(dir, 'store')),
  });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  try {
    return await use({ server, workers, client });
  } finally {
    await client.connection.close();
    await workers.close();
    await connection.close();
    await pack.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
