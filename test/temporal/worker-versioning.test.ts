/**
 * Worker Versioning (src/versioning.ts) on a real dev server: two planner workers of different build ids on one task
 * queue. A run started on v1 is pinned to it: it finishes on v1 while v2, made current, serves the runs started
 * after; a long run moves to the current version when it continues as new.
 */
import { temporal } from '@temporalio/proto';
import { approveUpdate, getStateQuery, rejectUpdate } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import { currentBuildId } from '../../src/versioning';
import { startTestPlanner, useWastePackAndClient, type TestPlanner } from '../support/planner-workers';
import { buildIdsOf, waitFor } from '../support/temporal';

const SCENARIO = 'Get contaminated shipments from last week and show me the contaminant details';
const PINNED = temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED;
const fixtures = useWastePackAndClient();

let v1: TestPlanner | undefined;
let v2: TestPlanner | undefined;
afterEach(async () => {
  await v2?.stop();
  await v1?.stop();
  v1 = v2 = undefined;
});

const versionOf = async (workflowId: string, runId?: string) =>
  (await fixtures.client().workflow.getHandle(workflowId, runId).describe()).raw.workflowExecutionInfo!.versioningInfo;
const historyOf = (workflowId: string, runId?: string) =>
  fixtures.client().workflow.getHandle(workflowId, runId).fetchHistory();
const awaitingApproval = (workflowId: string) => async () =>
  (await fixtures.client().workflow.getHandle(workflowId).query(getStateQuery)).stage === 'AWAITING_APPROVAL';

test('a run started on v1 finishes on v1 while v2, made current, serves the new runs', async () => {
  v1 = await startTestPlanner(fixtures.pack(), { prefix: 'versions', env: { PLANNER_BUILD_ID: 'test+v1' } });
  const { taskQueue } = v1;
  const client = fixtures.client();
  const a = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `a-${taskQueue}`,
    args: [{ request: { goal: SCENARIO }, options: { require_approval: true } }],
  });
  await waitFor(awaitingApproval(a.workflowId), 30_000, 'run A awaiting approval');
  expect(await versionOf(a.workflowId)).toMatchObject({
    behavior: PINNED,
    deploymentVersion: { deploymentName: taskQueue, buildId: 'test+v1' },
  });

  v2 = await startTestPlanner(fixtures.pack(), { taskQueue, env: { PLANNER_BUILD_ID: 'test+v2' } });
  expect(await currentBuildId(client.workflowService, 'default', taskQueue)).toBe('test+v2');
  const b = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `b-${taskQueue}`,
    args: [{ request: { goal: SCENARIO } }],
  });
  expect((await b.result()).stage).toBe('COMPLETED');
  expect(new Set(buildIdsOf(await b.fetchHistory()))).toEqual(new Set(['test+v2']));
  expect(await versionOf(b.workflowId)).toMatchObject({ behavior: PINNED, deploymentVersion: { buildId: 'test+v2' } });

  await a.executeUpdate(approveUpdate, { args: [{}] });
  expect((await a.result()).stage).toBe('COMPLETED');
  expect(new Set(buildIdsOf(await a.fetchHistory()))).toEqual(new Set(['test+v1']));
  expect(await versionOf(a.workflowId)).toMatchObject({ behavior: PINNED, deploymentVersion: { buildId: 'test+v1' } });
});

test('a long run moves to the current version when it continues as new', async () => {
  v1 = await startTestPlanner(fixtures.pack(), { prefix: 'versions-can', env: { PLANNER_BUILD_ID: 'test+v1' } });
  const { taskQueue } = v1;
  const client = fixtures.client();
  const options = { require_approval: true, continue_as_new_after_events: 10 };
  const c = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `c-${taskQueue}`,
    args: [{ request: { goal: SCENARIO }, options }],
  });
  await waitFor(awaitingApproval(c.workflowId), 30_000, 'run C awaiting approval');

  v2 = await startTestPlanner(fixtures.pack(), { taskQueue, env: { PLANNER_BUILD_ID: 'test+v2' } });
  const latest = client.workflow.getHandle(c.workflowId); // follows the chain of runs
  // A rejection and a new version make the run's history long: after the approval it continues as new.
  await latest.executeUpdate(rejectUpdate, { args: [{ reason: 'once more' }] });
  await waitFor(
    async () =>
      (await latest.query(getStateQuery)).versions.at(-1)!.version === 2 && (await awaitingApproval(c.workflowId)()),
    30_000,
    'plan v2 awaiting approval',
  );
  await latest.executeUpdate(approveUpdate, { args: [{}] });
  const outcome = await latest.result();
  expect(outcome.stage).toBe('COMPLETED');
  expect((await latest.query(getStateQuery)).continued_as_new).toBeGreaterThanOrEqual(1);
  // The first run ran on v1 only; the last one, continued after v2 became current, on v2 only.
  expect(new Set(buildIdsOf(await historyOf(c.workflowId, c.firstExecutionRunId)))).toEqual(new Set(['test+v1']));
  expect(new Set(buildIdsOf(await latest.fetchHistory()))).toEqual(new Set(['test+v2']));
  expect(await versionOf(c.workflowId)).toMatchObject({ deploymentVersion: { buildId: 'test+v2' } });
});
