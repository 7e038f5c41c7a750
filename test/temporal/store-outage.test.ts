/**
 * A PostgreSQL outage (DATABASE_URL's server stopped for 15 s, then started again) during a run costs it nothing:
 * the store call waits it out, retryable, and the run completes without a re-plan. A worker that cannot reach its
 * database says so at start and exits non-zero. A real throw-away cluster (test/support/postgres.ts).
 */
import { getStateQuery } from '../../src/api';
import { freePort } from '../../src/dev/temporal-server';
import { PostgresStorage } from '../../src/store/postgres';
import type { ToolImplementation } from '../../src/tools/tool';
import { planningWorkflow } from '../../src/workflows';
import { spawnPlannerCli } from '../support/cli';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';
import { usePostgres } from '../support/postgres';

const postgres = usePostgres();
const fixtures = useWastePackAndClient();
const OUTAGE_MS = 15_000;

test('PostgreSQL down for 15 s as a step stores its result: the run completes on plan v1, no step failed, no re-plan', async () => {
  const storage = new PostgresStorage(await postgres().freshDatabase());
  let outage: Promise<void> | undefined;
  // The shipments tool answers, then the database goes down before its result is stored.
  const outageAfterShipments = (tool: ToolImplementation): ToolImplementation => ({
    ...tool,
    async run(params, ctx) {
      const out = await tool.run(params, ctx);
      if (tool.spec.name === 'shipments' && !outage) {
        postgres().halt();
        outage = new Promise((resolve) => setTimeout(resolve, OUTAGE_MS)).then(() => postgres().resume());
      }
      return out;
    },
  });
  const planner = await startTestPlanner(fixtures.pack(), { wrap: outageAfterShipments, storage });
  try {
    const handle = await fixtures.client().workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `store-outage-${planner.taskQueue}`,
      args: [{ request: { goal: 'Get shipments from last week and show me the contaminant details' } }],
    });
    const outcome = await handle.result();
    expect(outage).toBeDefined();
    expect(outcome.stage).toBe('COMPLETED');
    expect(outcome.plan_version).toBe(1);
    const state = await handle.query(getStateQuery);
    expect(state.versions.map((v) => v.reason)).toEqual(['initial']);
    expect(state.steps.map((s) => [s.tool, s.status, s.completed_in_version])).toEqual([
      ['shipments', 'COMPLETED', 1],
      ['contaminants-detected', 'COMPLETED', 1],
    ]);
    expect(await storage.store.get(state.steps[0]!.result!.ref)).toEqual(expect.any(Array));
  } finally {
    await outage;
    await planner.stop();
    await storage.close();
  }
}, 120_000);

test('a worker whose DATABASE_URL cannot be reached says so at start and exits non-zero', async () => {
  const nobody = await freePort();
  const worker = spawnPlannerCli(['worker', '--task-queue', `no-database-${nobody}`], {
    DATABASE_URL: `postgres://planner:secret@127.0.0.1:${nobody}/planner`,
  });
  const code = await Promise.race([
    worker.exited,
    new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 30_000)),
  ]);
  if (code === 'running') worker.kill();
  expect(code).toBe(1);
  expect(worker.output()).toMatch(
    new RegExp(
      `cannot reach the planner's database at DATABASE_URL \\(127\\.0\\.0\\.1:${nobody}/planner\\): .*ECONNREFUSED`,
    ),
  );
  expect(worker.output()).not.toContain('secret');
});
