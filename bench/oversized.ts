/**
 * One worker, normal plans, with and without a client flooding it with oversized requests (600 KB context, refused):
 * the refused requests must not slow the normal ones down.
 *   npm run bench:oversized [-- <runs>]
 * Starts its own dev server (temporary database, free ports) and the planner + waste tool workers in-process; runs
 * N normal plans (ranking planner) one after another, first alone, then while a concurrent client keeps submitting
 * oversized requests. Prints p50/p95 of the normal plans both ways and writes bench/oversized-results.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startDevServer } from '../src/dev/temporal-server';
import { projectRoot } from '../src/project-root';
import { LocalContentStore } from '../src/store/content-store';
import { createWastePack } from '../src/tools/waste';
import { createLocalWorkers } from '../src/worker';
import { planningWorkflow } from '../src/workflows';

const GOAL = 'Get contaminated shipments from last week and show me the contaminant details';
const TASK_QUEUE = 'bench-oversized';
const OVERSIZED_CONTEXT = 'shipments in Hannover, '.repeat(26_100); // ≈ 600 KB

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main() {
  const runs = Number(process.argv[2] ?? 30);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-oversized-'));
  const server = await startDevServer({ dbFile: path.join(dir, 'temporal.db'), headless: true });
  const connection = await NativeConnection.connect({ address: server.address });
  const pack = await createWastePack({ today: new Date() });
  const workers = await createLocalWorkers({ connection, namespace: 'default', packs: [pack], taskQueue: TASK_QUEUE, store: new LocalContentStore(path.join(dir, 'store')) });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  let id = 0;

  const normalPlans = async (): Promise<number[]> => {
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const began = performance.now();
      const outcome = await client.workflow.execute(planningWorkflow, { taskQueue: TASK_QUEUE, workflowId: `normal-${id++}`, args: [{ request: { goal: GOAL, planner: 'ranking' } }] });
      if (outcome.stage !== 'COMPLETED') throw new Error(`normal plan ended ${outcome.stage}`);
      ms.push(performance.now() - began);
    }
    return ms.sort((a, b) => a - b);
  };

  try {
    const result = await workers.runUntil((async () => {
      await normalPlans(); // warm-up: JIT, caches, the server's first workflows
      const alone = await normalPlans();
      let flooding = true;
      let refused = 0;
      let refusedMsMax = 0;
      const flood = async () => {
        while (flooding) {
          const began = performance.now();
          const handle = await client.workflow.start(planningWorkflow, {
            taskQueue: TASK_QUEUE,
            workflowId: `oversized-${id++}`,
            args: [{ request: { goal: GOAL, planner: 'ranking', context: [{ role: 'user', content: OVERSIZED_CONTEXT }] } }],
          });
          const failed = await handle.result().then(() => false, () => true);
          if (!failed) throw new Error('an oversized request was not refused');
          refused++;
          refusedMsMax = Math.max(refusedMsMax, performance.now() - began);
        }
      };
      const flooders = [flood(), flood()];
      const withFlood = await normalPlans();
      flooding = false;
      await Promise.all(flooders);
      return { alone, withFlood, refused, refusedMsMax };
    })());
    const summary = {
      runs,
      oversized_context_bytes: OVERSIZED_CONTEXT.length,
      p50_ms_without_oversized: Math.round(percentile(result.alone, 50)),
      p95_ms_without_oversized: Math.round(percentile(result.alone, 95)),
      p50_ms_with_oversized: Math.round(percentile(result.withFlood, 50)),
      p95_ms_with_oversized: Math.round(percentile(result.withFlood, 95)),
      oversized_refused: result.refused,
      oversized_refused_max_ms: Math.round(result.refusedMsMax),
      cpus: os.cpus().length,
      node: process.version,
      at: new Date().toISOString(),
    };
    console.log(
      `oversized runs=${runs} p50_without=${summary.p50_ms_without_oversized}ms p50_with=${summary.p50_ms_with_oversized}ms ` +
        `p95_without=${summary.p95_ms_without_oversized}ms p95_with=${summary.p95_ms_with_oversized}ms refused=${summary.oversized_refused} (slowest refusal ${summary.oversized_refused_max_ms}ms)`,
    );
    writeFileSync(path.join(projectRoot(), 'bench', 'oversized-results.json'), `${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await client.connection.close();
    await workers.close();
    await connection.close();
    await pack.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
