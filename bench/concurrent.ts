/**
 * 100 planning workflows at once on one worker process: all must complete, none lost.
 *   npm run bench:concurrent [-- <runs>]
 * Starts its own dev server (temporary database, free ports) and the planner + waste tool workers in-process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startDevServer } from '../src/dev/temporal-server';
import { LocalContentStore } from '../src/store/content-store';
import { createWastePack } from '../src/tools/waste';
import { createLocalWorkers } from '../src/worker';
import { planningWorkflow } from '../src/workflows';

const GOALS = [
  'Get contaminated shipments from last week and show me the contaminant details',
  'Contaminants detected in Hannover today',
  'From the inspections accepted this week, did we detect any high-risk contaminants?',
  'Get me shipments from last week',
];

async function main() {
  const runs = Number(process.argv[2] ?? 100);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-concurrent-'));
  const server = await startDevServer({ dbFile: path.join(dir, 'temporal.db'), headless: true });
  const connection = await NativeConnection.connect({ address: server.address });
  const workers = await createLocalWorkers({
    connection,
    namespace: 'default',
    packs: [await createWastePack({ today: new Date() })],
    taskQueue: 'bench-concurrent',
    store: new LocalContentStore(path.join(dir, 'store')),
  });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  try {
    const started = performance.now();
    const outcomes = await workers.runUntil(
      Promise.allSettled(
        Array.from({ length: runs }, (_, i) =>
          client.workflow.execute(planningWorkflow, {
            taskQueue: 'bench-concurrent',
            workflowId: `concurrent-${i}`,
            args: [{ request: { goal: GOALS[i % GOALS.length]! } }],
          }),
        ),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const completed = outcomes.filter((o) => o.status === 'fulfilled' && o.value.stage === 'COMPLETED').length;
    console.log(`concurrent_workflows runs=${runs} completed=${completed} lost=${runs - completed} seconds=${seconds.toFixed(1)} plans_per_s=${(runs / seconds).toFixed(1)} rss_mb=${(process.memoryUsage().rss / 2 ** 20).toFixed(0)}`);
    if (completed !== runs) process.exitCode = 1;
  } finally {
    await client.connection.close();
    await workers.close();
    await connection.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
