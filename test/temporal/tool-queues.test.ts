/**
 * The two topologies on a real Temporal server: by default the planner serves the tools on its own task queue (one
 * worker; each step an activity on the workflow's queue, as a plain Temporal workflow runs its activities), and
 * with split pools each step goes to the tool pool's queue and its worker. Same plan, same results either way.
 */
import { temporal } from '@temporalio/proto';
import { getStateQuery } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import type { ToolQueues } from '../../src/config';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';

const SCENARIO = 'Get contaminated shipments from last week and show me the contaminant details';
const fixtures = useWastePackAndClient();

/** The task queue of every executeStep activity the run scheduled, from its history. */
async function stepQueues(handle: { fetchHistory(): Promise<temporal.api.history.v1.IHistory> }): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'executeStep')
    .map((a) => a!.taskQueue!.name!);
}

async function runScenario(toolQueues: ToolQueues) {
  const planner = await startTestPlanner(fixtures.pack(), { prefix: `queues-${toolQueues}`, toolQueues });
  try {
    const handle = await fixtures.client().workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `queues-${planner.taskQueue}`,
      args: [{ request: { goal: SCENARIO } }],
    });
    const outcome = await handle.result();
    const state = await handle.query(getStateQuery);
    return { planner, outcome, routed: state.routing.map((r) => r.queue), scheduled: await stepQueues(handle) };
  } finally {
    await planner.stop();
  }
}

test("the default deployment: one worker, every step scheduled on the planner's own queue", async () => {
  const { planner, outcome, routed, scheduled } = await runScenario('planner');
  expect(planner.workers.map((w) => w.options.taskQueue)).toEqual([planner.taskQueue]);
  expect(outcome.stage).toBe('COMPLETED');
  expect(outcome.steps.map((s) => [s.tool, s.status])).toEqual([
    ['shipments', 'COMPLETED'],
    ['contaminants-detected', 'COMPLETED'],
  ]);
  expect(routed).toEqual([planner.taskQueue, planner.taskQueue]);
  expect(scheduled).toEqual([planner.taskQueue, planner.taskQueue]);
});

test("split pools: a tool worker on the pack's queue, every step scheduled there, the same results", async () => {
  const { planner, outcome, routed, scheduled } = await runScenario('split');
  expect(planner.workers.map((w) => w.options.taskQueue)).toEqual([planner.taskQueue, planner.toolQueue]);
  expect(outcome.stage).toBe('COMPLETED');
  expect(outcome.steps.map((s) => [s.tool, s.status, (s.items ?? 0) > 0])).toEqual([
    ['shipments', 'COMPLETED', true],
    ['contaminants-detected', 'COMPLETED', true],
  ]);
  expect(routed).toEqual([planner.toolQueue, planner.toolQueue]);
  expect(scheduled).toEqual([planner.toolQueue, planner.toolQueue]);
});
