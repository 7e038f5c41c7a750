/**
 * The plumbing is durable: a workflow outlives the worker process that ran its activity, and the dev server
 * that stored it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  connectClient,
  killProcess,
  spawnWorkerProcess,
  startDevServerIn,
  startTestWorker,
  uniqueTaskQueue,
  waitFor,
} from '../support/temporal';

describe('durability of the Temporal plumbing', () => {
  test('a worker SIGKILLed mid-activity is replaced and the workflow completes with the activity result', async () => {
    const taskQueue = uniqueTaskQueue('sigkill');
    const markerDir = mkdtempSync(path.join(os.tmpdir(), 'sigkill-'));
    const client = await connectClient();
    const first = await spawnWorkerProcess(taskQueue);
    try {
      const handle = await client.workflow.start('slowEchoWorkflow', {
        taskQueue,
        workflowId: `sigkill-${taskQueue}`,
        args: [{ text: 'survive', durationMs: 1_500, markerDir }],
      });
      await waitFor(() => existsSync(path.join(markerDir, 'attempt-1')), 30_000, 'first attempt to start');
      await killProcess(first, 'SIGKILL');
      expect(first.signalCode).toBe('SIGKILL');

      const second = await spawnWorkerProcess(taskQueue);
      try {
        const result = await handle.result();
        expect(result).toEqual({ echoed: 'SURVIVE', attempt: 2 });
      } finally {
        await killProcess(second, 'SIGTERM');
      }
    } finally {
      await killProcess(first);
      await client.connection.close();
    }
  });

  test('the dev server restarted on the same database mid-workflow still completes the workflow', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'restart-'));
    let server = await startDevServerIn(dir);
    const taskQueue = uniqueTaskQueue('restart');
    const markerDir = path.join(dir, 'markers');
    const worker = await startTestWorker(taskQueue, { address: server.address });
    const client = await connectClient(server.address);
    try {
      const handle = await client.workflow.start('slowEchoWorkflow', {
        taskQueue,
        workflowId: 'restart-probe',
        args: [{ text: 'restart', durationMs: 1_000, markerDir }],
      });
      await waitFor(() => existsSync(path.join(markerDir, 'attempt-1')), 30_000, 'first attempt to start');
      await server.stop();
      server = await startDevServerIn(dir, server.port); // the same database, on the same port

      const result = await handle.result();
      expect(result.echoed).toBe('RESTART');
      const description = await handle.describe();
      expect(description.status.name).toBe('COMPLETED');
    } finally {
      await worker.stop();
      await client.connection.close();
      await server.stop();
    }
  });

  test('a dev server that cannot bind its port says why, after trying again', async () => {
    // It hangs up at once: a client's connection attempts must not keep it open.
    const blocker = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'port-taken-'));
    try {
      await expect(startDevServerIn(dir, port)).rejects.toThrow(/exited before it was ready.*address already in use/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
