/**
 * A step kind registered in src/step-kinds runs end to end on the dev server, through the registry alone: the real
 * generatePlan activity validates its params with the kind's schema (INVALID_PARAM, before any step runs), and a
 * valid step is run by the kind's `run` in the workflow (and its activities on the worker). KIND below is `human`
 * (params, a wait for a person, a stored result); a new kind's test is this file with KIND set to that kind
 * (docs/contributing.md, "Add a step kind").
 */
import type { WorkflowHandle } from '@temporalio/client';
import { createActivities } from '../../src/activities';
import { completeStepUpdate } from '../../src/api/messages';
import { planningWorkflow } from '../../src/workflows';
import { planningDependenciesRewriting, withExtraSteps, type ExtraStep } from '../support/step-kinds';
import { SCENARIO } from '../support/stub-activities';
import { settle, stepWaiting, uniqueTaskQueue, useDevServer, workflowWorker } from '../support/temporal';

type Handle = WorkflowHandle<typeof planningWorkflow>;

/** The kind under test: a valid step, an invalid one, and how a test drives the valid one to its end. */
const KIND = {
  valid: { action: 'human', title: 'Confirm', params: { question: 'Ship it?' } } satisfies ExtraStep,
  invalid: { action: 'human', title: 'Confirm', params: { question: 42 } } satisfies ExtraStep,
  drive: async (handle: Handle) => {
    await stepWaiting(handle, 'k.1');
    await handle.executeUpdate(completeStepUpdate, { args: [{ step: 'k.1', answer: 'yes' }] });
  },
  result: 'yes',
};

const devServer = useDevServer();

/** A run whose plan is `step` alone, on a worker with the real planning activities (validation included). */
async function runWithStep(step: ExtraStep, drive: (handle: Handle) => Promise<void>) {
  const taskQueue = uniqueTaskQueue('kind-registry');
  const { client, connection } = devServer();
  const deps = planningDependenciesRewriting((plan) => withExtraSteps({ ...plan, tasks: [] }, [step]));
  const worker = await workflowWorker(connection, taskQueue, createActivities(deps));
  const handle = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `kind-registry-${taskQueue}`,
    args: [{ request: { goal: SCENARIO }, options: { search_attributes: false } }],
  });
  return await worker.runUntil(async () => {
    await drive(handle);
    return await settle(handle);
  });
}

test('a step of the kind with params its schema refuses fails validation (INVALID_PARAM) before any step runs', async () => {
  const { failure, state } = await runWithStep(KIND.invalid, async () => {});
  expect(failure).toMatchObject({ type: 'PlanValidationError', code: 'PLAN-003' });
  expect(failure!.message).toMatch(/\[INVALID_PARAM\] step 0 \("k\.1"\): \w+ step params: /);
  expect(state.steps).toHaveLength(0);
});

test('a valid step of the kind is run by the registry and completes with its result', async () => {
  const { failure, state } = await runWithStep(KIND.valid, async (handle) => {
    await KIND.drive(handle);
  });
  expect(failure).toBeNull();
  expect(state.stage).toBe('COMPLETED');
  expect(state.steps.find((s) => s.id === 'k.1')).toMatchObject({
    status: 'COMPLETED',
    result: { data: KIND.result },
  });
});
