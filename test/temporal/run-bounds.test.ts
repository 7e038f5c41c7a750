/**
 * Issue 13: ordinary use and forged messages must not wedge a run. On Temporal's time-skipping test server with stub
 * activities: a run rejected 1,000 times stays small and ends with PLAN-011 at max_rejections; approve and reject are
 * tied to the plan version shown; budget raises stay finite and reach the planner; a client-made `resume` fails the
 * run at once; and random inputs and messages never leave a run retrying its workflow task.
 */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import fc from 'fast-check';
import { readFailure, type PlanFailure } from '../../src/api/failures';
import type { PlanningWorkflowInput } from '../../src/api/input';
import { BUDGET_MAXIMA, approveUpdate, getStateQuery, raiseBudgetUpdate, rejectUpdate } from '../../src/api/messages';
import type { PlanningState } from '../../src/api/state';
import { versionOf } from '../../src/api/versions';
import { planningWorkflow } from '../../src/workflows';
import { SCENARIO, stubActivities, type StubScript } from '../support/stub-activities';
import { recordHistory } from '../support/planner-workers';
import { failureOfRun, uniqueTaskQueue, useTimeSkippingServer, workflowWorker } from '../support/temporal';

const env = useTimeSkippingServer();

type Handle = WorkflowHandle<typeof planningWorkflow>;
type Stubs = ReturnType<typeof stubActivities>;

/** A worker serving stubs on its own queue while `drive` runs; `start` starts runs on that queue. */
async function withWorker<T>(
  script: StubScript,
  drive: (start: (input: unknown) => Promise<Handle>, stubs: Stubs) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueTaskQueue('bounds');
  const stubs = stubActivities(script, taskQueue);
  const worker = await workflowWorker(env().nativeConnection, taskQueue, stubs.activities);
  let n = 0;
  const start = async (input: unknown) => {
    const started = await env().client.workflow.start(planningWorkflow, {
      taskQueue,
      workflowId: `bounds-${taskQueue}-${n++}`,
      args: [input as PlanningWorkflowInput],
    });
    return env().client.workflow.getHandle<typeof planningWorkflow>(started.workflowId); // follows continue-as-new
  };
  return await worker.runUntil(drive(start, stubs));
}

const approvalRun = (options: PlanningWorkflowInput['options'] = {}) => ({
  request: { goal: SCENARIO },
  options: { search_attributes: false, require_approval: true, ...options },
});

/** Waits (polling getState) until plan `version` awaits approval. */
async function awaitingApproval(handle: Handle, version: number): Promise<PlanningState> {
  for (;;) {
    const state = await handle.query(getStateQuery);
    if (state.stage === 'AWAITING_APPROVAL' && state.plan?.version === version) return state;
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(state.stage))
      throw new Error(`run ended ${state.stage} before v${version} awaited approval`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The typed failure an update was refused with. */
async function refusal(update: Promise<unknown>): Promise<PlanFailure> {
  const err = await update.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return readFailure(err);
}

/**
 * The failures of the run's failed workflow tasks (a task the code fails is retried until the code changes: a retry
 * loop). UNHANDLED_COMMAND is not one: the server turns down a completion because a message arrived meanwhile, and
 * the worker's next task handles it; counted apart.
 */
async function workflowTaskFailures(handle: Handle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const failed = e.workflowTaskFailedEventAttributes;
    return failed
      ? [`${temporal.api.enums.v1.WorkflowTaskFailedCause[failed.cause ?? 0]}: ${failed.failure?.message ?? ''}`]
      : [];
  });
}

test('a run rejected 1,000 times answers getState, stays under 256 KB, and ends at max_rejections with PLAN-011', async () => {
  const { state, failure, sizes, v1, v500, taskFailures } = await withWorker({}, async (start, stubs) => {
    const handle = await start(approvalRun({ max_rejections: 1_000, continue_as_new_after_events: 2_000 }));
    const sizes: number[] = [];
    for (let v = 1; v <= 1_000; v++) {
      const shown = await awaitingApproval(handle, v);
      if (v % 100 === 0) sizes.push(JSON.stringify(shown).length);
      await handle.executeUpdate(rejectUpdate, { args: [{ reason: `not yet (${v})`, plan_version: v }] });
    }
    const failure = await failureOfRun(handle);
    const state = await handle.query(getStateQuery);
    return {
      state,
      failure,
      sizes,
      v1: await versionOf(state, 1, stubs.store),
      v500: await versionOf(state, 500, stubs.store),
      taskFailures: await workflowTaskFailures(handle),
    };
  });
  const bytes = Buffer.byteLength(JSON.stringify(state));
  console.log(`state after 1,000 rejections: ${bytes} bytes (every 100 versions: ${sizes.join(', ')})`);
  expect(bytes).toBeLessThan(256 * 1024);
  expect(Math.max(...sizes)).toBeLessThan(256 * 1024);
  expect(failure).toMatchObject({ type: 'PlanRejectedError', code: 'PLAN-011' });
  expect(failure!.message).toMatch(/1000 rejections reach max_rejections \(1000\)/);
  expect(state.stage).toBe('FAILED');
  expect(state.rejections).toBe(999);
  expect(state.continued_as_new).toBeGreaterThanOrEqual(1);
  expect(state.versions.map((v) => v.version)).toEqual([998, 999, 1000]);
  expect(state.audit.length).toBeLessThanOrEqual(200);
  expect(state.audit_dropped).toBeGreaterThan(0);
  // Archived versions stay readable: through an inline entry or a stored page.
  expect(v1).toMatchObject({ version: 1, reason: 'initial' });
  expect(v500).toMatchObject({
    version: 500,
    reason: 'human_rejection',
    explanation: expect.stringMatching(/not yet \(499\)/),
  });
  expect(taskFailures).toEqual([]);
}, 600_000);

test('by default a run ends at the 20th rejection (max_rejections), naming the cap', async () => {
  const { failure, state } = await withWorker({}, async (start) => {
    const handle = await start(approvalRun());
    for (let v = 1; v <= 20; v++) {
      await awaitingApproval(handle, v);
      await handle.executeUpdate(rejectUpdate, { args: [{ reason: 'no', plan_version: v }] });
    }
    return { failure: await failureOfRun(handle), state: await handle.query(getStateQuery) };
  });
  expect(failure).toMatchObject({
    type: 'PlanRejectedError',
    code: 'PLAN-011',
    message: expect.stringMatching(/max_rejections \(20\)/),
  });
  expect(state.plan?.version).toBe(20);
}, 120_000);

test('a short run over the bounded-state path: versions archived, ended at max_rejections (recorded for the replay test)', async () => {
  const { failure, state, v1 } = await withWorker({}, async (start, stubs) => {
    const handle = await start(approvalRun({ max_rejections: 5 }));
    for (let v = 1; v <= 5; v++) {
      await awaitingApproval(handle, v);
      await handle.executeUpdate(rejectUpdate, { args: [{ reason: `not yet (${v})`, plan_version: v }] });
    }
    const failure = await failureOfRun(handle);
    await recordHistory(handle, 'rejections-capped');
    const state = await handle.query(getStateQuery);
    return { failure, state, v1: await versionOf(state, 1, stubs.store) };
  });
  expect(failure).toMatchObject({ code: 'PLAN-011', message: expect.stringMatching(/max_rejections \(5\)/) });
  expect(state.versions.map((v) => v.version)).toEqual([3, 4, 5]);
  expect(state.archived_versions).toEqual([
    expect.objectContaining({
      version: 1,
      reason: 'initial',
      ref: expect.stringMatching(/^sha256:/),
      summary: expect.stringMatching(/step\(s\)/),
    }),
    expect.objectContaining({ version: 2, reason: 'human_rejection' }),
  ]);
  expect(v1).toMatchObject({ version: 1, reason: 'initial' });
});

test('approve and reject are tied to the version shown: approving v1 after it was rejected is refused, naming v2', async () => {
  const result = await withWorker({}, async (start) => {
    const handle = await start(approvalRun());
    await awaitingApproval(handle, 1);
    await handle.executeUpdate(rejectUpdate, { args: [{ reason: 'use fewer steps', plan_version: 1 }] });
    await awaitingApproval(handle, 2);
    const stale = await refusal(handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] }));
    const staleReject = await refusal(handle.executeUpdate(rejectUpdate, { args: [{ reason: 'x', plan_version: 3 }] }));
    const approved = await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 2 }] });
    return {
      stale,
      staleReject,
      approved,
      failure: await failureOfRun(handle),
      state: await handle.query(getStateQuery),
    };
  });
  expect(result.stale).toMatchObject({
    code: 'PLAN-006',
    message: expect.stringMatching(/plan v1.*awaiting approval is v2/),
  });
  expect(result.staleReject).toMatchObject({
    code: 'PLAN-006',
    message: expect.stringMatching(/v3.*awaiting approval is v2/),
  });
  expect(result.approved).toBe('plan v2 approved');
  expect(result.failure).toBeNull();
  expect(result.state).toMatchObject({ stage: 'COMPLETED', plan: { version: 2 } });
});

test('budget raises stay finite: 1e300 and a raise past the maxima are refused; a raise reaches the planner', async () => {
  const result = await withWorker({}, async (start, stubs) => {
    const handle = await start(approvalRun());
    await awaitingApproval(handle, 1);
    const huge = await refusal(handle.executeUpdate(raiseBudgetUpdate, { args: [{ cost_usd: 1e300 }] }));
    const past = await refusal(handle.executeUpdate(raiseBudgetUpdate, { args: [{ tokens: BUDGET_MAXIMA.tokens }] }));
    const raised = await handle.executeUpdate(raiseBudgetUpdate, { args: [{ calls: 50, cost_usd: 2 }] });
    await handle.executeUpdate(rejectUpdate, { args: [{ reason: 'again, with the new budget', plan_version: 1 }] });
    await awaitingApproval(handle, 2);
    await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 2 }] });
    return { huge, past, raised, failure: await failureOfRun(handle), planInputs: stubs.planInputs };
  });
  expect(result.huge).toMatchObject({ code: 'PLAN-006', message: expect.stringMatching(/cost_usd/) });
  expect(result.past).toMatchObject({
    code: 'PLAN-006',
    message: expect.stringMatching(/tokens limit past its maximum/),
  });
  expect(result.raised.limit).toEqual({ cost_usd: 3, tokens: 200_000, calls: 150 });
  expect(result.failure).toBeNull();
  expect(result.planInputs.map((i) => i.budget?.limit)).toEqual([
    { cost_usd: 1, tokens: 200_000, calls: 100 },
    { cost_usd: 3, tokens: 200_000, calls: 150 },
  ]);
});

describe('a client-made resume fails the run at once with PLAN-006', () => {
  test('a forged state that would skip planning and run a plan never validated', async () => {
    const result = await withWorker({}, async (start, stubs) => {
      const real = await start({ request: { goal: SCENARIO }, options: { search_attributes: false } });
      await real.result();
      const done = await real.query(getStateQuery);
      const forged = { ...done, stage: 'APPROVED', steps: [], failure: null };
      const handle = await start({
        request: { goal: SCENARIO },
        options: { search_attributes: false },
        resume: forged,
      });
      const startedAt = Date.now();
      const failure = await failureOfRun(handle);
      return {
        failure,
        ms: Date.now() - startedAt,
        status: (await handle.describe()).status.name,
        stepsRun: stubs.calls.step,
        taskFailures: await workflowTaskFailures(handle),
      };
    });
    expect(result.failure).toMatchObject({
      type: 'InvalidInputError',
      code: 'PLAN-006',
      message: expect.stringMatching(/resume.*continued as new/),
    });
    expect(result.status).toBe('FAILED');
    expect(result.ms).toBeLessThan(10_000);
    expect(result.stepsRun).toBe(2); // the real run's two steps; the forged one ran none
    expect(result.taskFailures).toEqual([]);
  });

  test.each([
    ['null input', null],
    ['a resume that is not a state', { request: { goal: SCENARIO }, resume: 42 }],
    ['a null resume', { request: { goal: SCENARIO }, resume: null }],
    [
      'a resume with a bad request',
      {
        request: { goal: 'Check the reports', budget: { tokens: -1, calls: 5 } },
        options: { search_attributes: false },
        resume: 1.5e-323,
      },
    ],
  ])('%s', async (_what, input) => {
    const result = await withWorker({}, async (start) => {
      const handle = await start(input);
      return {
        failure: await failureOfRun(handle),
        status: (await handle.describe()).status.name,
        taskFailures: await workflowTaskFailures(handle),
      };
    });
    expect(result.failure).toMatchObject({ code: 'PLAN-006' });
    expect(result.status).toBe('FAILED');
    expect(result.taskFailures).toEqual([]);
  });
});

/** Documented stages a run may wait in; anything else must end. */
const WAITING = ['AWAITING_CLARIFICATION', 'AWAITING_APPROVAL', 'BUDGET_EXHAUSTED'];
const ENDED = ['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED'];

test('property: random inputs and message payloads never leave a run retrying its workflow task', async () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  const goal = fc.oneof(fc.constant(SCENARIO), fc.constant('Check the reports'), fc.string({ maxLength: 50 }), json);
  const budget = fc.oneof(
    json,
    fc.record(
      { cost_usd: fc.double(), tokens: fc.integer(), calls: fc.integer({ min: -5, max: 5 }) },
      { requiredKeys: [] },
    ),
  );
  // Options that parse always turn search attributes off: the time-skipping server cannot register them.
  const notAnObject = json.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v));
  const options = fc.oneof(
    notAnObject,
    fc.record(
      {
        require_approval: fc.boolean(),
        max_rejections: fc.integer({ min: -1, max: 3 }),
        max_refinements: fc.integer({ min: -1, max: 3 }),
        search_attributes: fc.constant(false),
      },
      { requiredKeys: ['search_attributes'] },
    ),
  );
  const input = fc.oneof(
    notAnObject,
    fc.record(
      { request: fc.record({ goal, budget }, { requiredKeys: ['goal'] }), options, resume: json },
      { requiredKeys: ['request', 'options'] },
    ),
  );
  const payload = fc.oneof(
    json,
    fc.record(
      {
        plan_version: fc.oneof(fc.integer({ min: -1, max: 3 }), json),
        reason: fc.oneof(fc.string({ maxLength: 20 }), json),
        comment: json,
      },
      { requiredKeys: [] },
    ),
    fc.record(
      { cost_usd: fc.double(), tokens: fc.oneof(fc.integer(), fc.double()), calls: fc.integer() },
      { requiredKeys: [] },
    ),
    fc.record({ option: fc.integer({ min: -1, max: 5 }), text: json }, { requiredKeys: [] }),
  );
  const message = fc.record({
    name: fc.constantFrom(
      'approve',
      'reject',
      'raiseBudget',
      'answerClarification',
      'answerClarification!signal',
      'unknownUpdate',
    ),
    payload,
  });
  await withWorker({}, async (start) => {
    await fc.assert(
      fc.asyncProperty(input, fc.array(message, { maxLength: 6 }), async (runInput, messages) => {
        const handle = await start(runInput);
        for (const m of messages) {
          await new Promise((r) => setTimeout(r, 20));
          if (m.name.endsWith('!signal')) await handle.signal('answerClarification', m.payload).catch(() => undefined);
          else await handle.executeUpdate(m.name, { args: [m.payload] }).catch(() => undefined);
        }
        // The run ends or waits in a documented stage within a bounded time (waiting here does not skip time).
        let stage = '';
        const deadline = Date.now() + 15_000;
        while (Date.now() < deadline) {
          const { status } = await handle.describe();
          if (status.name !== 'RUNNING') break;
          // A run whose input is refused fails before it registers getState: describe() says so on the next turn.
          stage = await handle.query(getStateQuery).then(
            (st) => st.stage,
            () => '',
          );
          if (WAITING.includes(stage)) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        const { status } = await handle.describe();
        if (status.name === 'RUNNING') expect(WAITING).toContain(stage);
        else expect(ENDED).toContain(status.name);
        expect(
          (await workflowTaskFailures(handle)).filter(
            (f) => !f.startsWith('WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND'),
          ),
        ).toEqual([]);
        if (status.name === 'RUNNING') await handle.terminate('property test done');
      }),
      { numRuns: 25, seed: Number(process.env.FC_SEED ?? 13), endOnFailure: true },
    );
  });
}, 600_000);
