/**
 * One worker, normal plans, with and without clients flooding it with oversized requests (600 KB context, refused):
 * the refused requests must not slow the normal ones down.
 *   npm run bench:oversized [-- <runs>]
 * Runs on bench/local-planner.ts (its own dev server, the planner + waste tool workers in-process); runs
 * N normal plans (ranking planner) one after another: alone; while two PlannerClients keep calling `start` with
 * oversized requests (refused client-side, by the contract's own check, one attempt every 10 ms each, far more often than a
 * client waiting for server refusals manages); and while
 * two raw Temporal clients keep starting them (refused by the workflow's first task, each waiting for its refusal).
 * Prints p50/p95 of the normal plans each way and writes bench/oversized-results.json.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PlannerClient } from '../src/client';
import { InvalidInputError } from '../src/domain/errors';
import { projectRoot } from '../src/project-root';
import { planningWorkflow } from '../src/workflows';
import { percentile, round } from './figures';
import { withLocalPlanner } from './local-planner';

const GOAL = 'Get contaminated shipments from last week and show me the contaminant details';
const TASK_QUEUE = 'bench-oversized';
const OVERSIZED_CONTEXT = 'shipments in Hannover, '.repeat(26_100); // ≈ 600 KB

async function main() {
  const runs = Number(process.argv[2] ?? 30);
  await withLocalPlanner(TASK_QUEUE, async ({ server, workers, client }) => {
    const planner = await PlannerClient.connect({
      address: server.address,
      namespace: 'default',
      connectionOptions: { address: server.address },
    });
    const oversizedInput = {
      request: {
        goal: GOAL,
        planner: 'ranking' as const,
        context: [{ role: 'user' as const, content: OVERSIZED_CONTEXT }],
      },
    };
    let id = 0;

    const normalPlans = async (): Promise<number[]> => {
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const began = performance.now();
        const outcome = await client.workflow.execute(planningWorkflow, {
          taskQueue: TASK_QUEUE,
          workflowId: `normal-${id++}`,
          args: [{ request: { goal: GOAL, planner: 'ranking' } }],
        });
        if (outcome.stage !== 'COMPLETED') throw new Error(`normal plan ended ${outcome.stage}`);
        ms.push(performance.now() - began);
      }
      return ms.sort((a, b) => a - b);
    };

    const loadBefore = os.loadavg()[0]!;
    try {
      /** Normal plans while `flooders` run, each until told to stop; how many they refused and the slowest refusal. */
      const withFlood = async (flood: (stop: () => boolean) => Promise<number[]>) => {
        let flooding = true;
        const flooders = [flood(() => !flooding), flood(() => !flooding)];
        const ms = await normalPlans();
        flooding = false;
        const refusals = (await Promise.all(flooders)).flat();
        return { ms, refused: refusals.length, refusedMsMax: Math.max(0, ...refusals) };
      };
      /** PlannerClient.start: refused by the client's own check, before anything is sent. */
      const clientSide = async (stop: () => boolean): Promise<number[]> => {
        const refusals: number[] = [];
        while (!stop()) {
          const began = performance.now();
          const err = await planner
            .start(oversizedInput, { taskQueue: TASK_QUEUE, workflowId: `oversized-${id++}` })
            .then(
              () => null,
              (e: unknown) => e,
            );
          if (!(err instanceof InvalidInputError))
            throw new Error(`an oversized request was not refused client-side: ${String(err)}`);
          refusals.push(performance.now() - began);
          await new Promise((r) => setTimeout(r, 10));
        }
        return refusals;
      };
      /** A raw Temporal client: the request reaches the server and the worker, whose first workflow task refuses it. */
      const serverSide = async (stop: () => boolean): Promise<number[]> => {
        const refusals: number[] = [];
        while (!stop()) {
          const began = performance.now();
          const handle = await client.workflow.start(planningWorkflow, {
            taskQueue: TASK_QUEUE,
            workflowId: `oversized-${id++}`,
            args: [oversizedInput],
          });
          if (
            await handle.result().then(
              () => true,
              () => false,
            )
          )
            throw new Error('an oversized request was not refused');
          refusals.push(performance.now() - began);
        }
        return refusals;
      };
      const result = await workers.runUntil(
        (async () => {
          await normalPlans(); // warm-up: JIT, caches, the server's first workflows
          const alone = await normalPlans();
          const client_checked = await withFlood(clientSide);
          const unchecked = await withFlood(serverSide);
          return { alone, client_checked, unchecked };
        })(),
      );
      const summary = {
        runs,
        oversized_context_bytes: OVERSIZED_CONTEXT.length,
        p50_ms_without_oversized: Math.round(percentile(result.alone, 50)),
        p95_ms_without_oversized: Math.round(percentile(result.alone, 95)),
        /** Oversized requests through PlannerClient.start (the CLI's path too): refused client-side. */
        p50_ms_with_oversized: Math.round(percentile(result.client_checked.ms, 50)),
        p95_ms_with_oversized: Math.round(percentile(result.client_checked.ms, 95)),
        oversized_refused: result.client_checked.refused,
        oversized_refused_max_ms: round(result.client_checked.refusedMsMax),
        /** The same flood from raw Temporal clients that skip the check: refused by the workflow's first task. */
        p50_ms_with_unchecked_oversized: Math.round(percentile(result.unchecked.ms, 50)),
        p95_ms_with_unchecked_oversized: Math.round(percentile(result.unchecked.ms, 95)),
        unchecked_oversized_refused: result.unchecked.refused,
        unchecked_oversized_refused_max_ms: Math.round(result.unchecked.refusedMsMax),
        flood_interval_ms_client_checked: 10,
        cpus: os.cpus().length,
        /** The machine is shared: its 1-minute load average before and after the measurements. */
        loadavg_1m: [round(loadBefore), round(os.loadavg()[0]!)],
        node: process.version,
        at: new Date().toISOString(),
      };
      console.log(
        `oversized runs=${runs} p50_without=${summary.p50_ms_without_oversized}ms p50_with=${summary.p50_ms_with_oversized}ms ` +
          `p95_without=${summary.p95_ms_without_oversized}ms p95_with=${summary.p95_ms_with_oversized}ms refused=${summary.oversized_refused} (slowest refusal ${summary.oversized_refused_max_ms}ms)\n` +
          `unchecked (raw clients, refused by the workflow): p50_with=${summary.p50_ms_with_unchecked_oversized}ms p95_with=${summary.p95_ms_with_unchecked_oversized}ms ` +
          `refused=${summary.unchecked_oversized_refused} (slowest refusal ${summary.unchecked_oversized_refused_max_ms}ms)`,
      );
      writeFileSync(
        path.join(projectRoot(), 'bench', 'oversized-results.json'),
        `${JSON.stringify(summary, null, 2)}\n`,
      );
    } finally {
      await planner.close();
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
