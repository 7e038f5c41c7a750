/**
 * 100 planning workflows at once on one worker process: all must complete, none lost.
 *   npm run bench:concurrent [-- <runs>]
 * Runs on bench/local-planner.ts: its own dev server and the planner + waste tool workers in-process.
 */
import { performance } from 'node:perf_hooks';
import { planningWorkflow } from '../src/workflows';
import { withLocalPlanner } from './local-planner';

const GOALS = [
  'Get contaminated shipments from last week and show me the contaminant details',
  'Contaminants detected in Hannover today',
  'From the inspections accepted this week, did we detect any high-risk contaminants?',
  'Get me shipments from last week',
];

async function main() {
  const runs = Number(process.argv[2] ?? 100);
  await withLocalPlanner('bench-concurrent', async ({ workers, client }) => {
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
    console.log(
      `concurrent_workflows runs=${runs} completed=${completed} lost=${runs - completed} seconds=${seconds.toFixed(1)} plans_per_s=${(runs / seconds).toFixed(1)} rss_mb=${(process.memoryUsage().rss / 2 ** 20).toFixed(0)}`,
    );
    if (completed !== runs) process.exitCode = 1;
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
