/**
 * Every step kind runs, on Temporal's time-skipping test server with stub activities: a `noop` completes without an
 * activity; a `human` step waits (WAITING, with its question in the state) for a validated `completeStep` update
 * whose answer becomes its result, or fails with PLAN-007 after `human_step_timeout_ms` and the run re-plans; a step
 * whose outcome is unknown (PLAN-014) asks a person through `resolveStep`: retry (a fresh idempotency scope), done,
 * or fail (re-plan); and a plan with a kind the run cannot execute is refused by the real generatePlan activity, at
 * validation, before anything executes.
 */
import { type WorkflowHandle } from '@temporalio/client';
import { readFailure } from '../../src/api/failures';
import type { PlanningWorkflowInput } from '../../src/api/input';
import { completeStepUpdate, resolveStepUpdate, type ResolveStepInput } from '../../src/api/messages';
import type { PlanningState, StepRecord } from '../../src/api/state';
import { createPlanningActivities } from '../../src/activities/planning';
import { StepOutcomeUnknownError } from '../../src/domain/errors';
import { planningWorkflow } from '../../src/workflows';
import { planningDependenciesRewriting, withExtraSteps } from '../support/step-kinds';
import { activityFailure, SCENARIO, stubActivities, type StubScript } from '../support/stub-activities';
import { settle, stepWaiting, uniqueTaskQueue, useTimeSkippingServer, workflowWorker } from '../support/temporal';

const env = useTimeSkippingServer();

type Handle = WorkflowHandle<typeof planningWorkflow>;

async function runWith<T>(
  script: StubScript,
  options: PlanningWorkflowInput['options'],
  drive: (handle: Handle) => Promise<T>,
) {
  const taskQueue = uniqueTaskQueue('kinds');
  const stubs = stubActivities(script, taskQueue);
  const worker = await workflowWorker(env().nativeConnection, taskQueue, stubs.activities);
  const handle = await env().client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `kinds-${taskQueue}`,
    args: [{ request: { goal: SCENARIO }, options: { search_attributes: false, ...options } }],
  });
  return { result: await worker.runUntil(drive(handle)), calls: stubs.calls };
}

/** The state once step `id` waits for a person, and that step. */
async function waitingOn(handle: Handle, id: string): Promise<{ state: PlanningState; step: StepRecord }> {
  const state = await stepWaiting(handle, id);
  return { state, step: state.steps.find((s) => s.id === id)! };
}

/** The refusal of an update, as its typed failure. */
async function refusal(sent: Promise<unknown>) {
  return readFailure(
    await sent.then(
      () => new Error('the update was accepted'),
      (err: unknown) => err,
    ),
  );
}

const AUDIT = (state: PlanningState) => state.audit.map((a) => a.message);

test('a noop step completes at once, without an activity, and the run completes', async () => {
  const { result, calls } = await runWith(
    { plan: (p) => withExtraSteps(p, [{ action: 'noop', depends_on: [0] }]) },
    {},
    settle,
  );
  expect(result.failure).toBeNull();
  expect(result.state.stage).toBe('COMPLETED');
  expect(result.state.steps.map((s) => [s.id, s.status])).toEqual([
    ['1.1', 'COMPLETED'],
    ['2.1', 'COMPLETED'],
    ['k.1', 'COMPLETED'],
  ]);
  expect(result.state.steps[2]!.result).toMatchObject({ data: null, preview: 'null', items: null });
  expect(calls.step).toBe(2); // the two tool steps only
});

test('a step that depends on a noop step runs once the noop completes, though nothing else was running', async () => {
  const { result } = await runWith(
    {
      plan: (p) =>
        withExtraSteps(p, [
          { action: 'noop', depends_on: [0, 1] },
          { action: 'noop', depends_on: [2] },
        ]),
    },
    {},
    settle,
  );
  expect(result.state.stage).toBe('COMPLETED');
  expect(result.state.steps.map((s) => [s.id, s.status])).toEqual([
    ['1.1', 'COMPLETED'],
    ['2.1', 'COMPLETED'],
    ['k.1', 'COMPLETED'],
    ['k.2', 'COMPLETED'],
  ]);
});

describe('a human step', () => {
  const humanPlan: StubScript['plan'] = (p) =>
    withExtraSteps(p, [
      { action: 'human', title: 'Confirm', params: { question: 'Ship the report to the regulator?' }, depends_on: [1] },
    ]);

  test('waits with its question visible, refuses a wrong step or a wrong kind of reply, and takes the answer as its result', async () => {
    const { result, calls } = await runWith({ plan: humanPlan }, {}, async (handle) => {
      const { state: waiting, step } = await waitingOn(handle, 'k.1');
      const refusals = await Promise.all([
        refusal(handle.executeUpdate(completeStepUpdate, { args: [{ step: '1.1', answer: 'yes' }] })),
        refusal(handle.executeUpdate(completeStepUpdate, { args: [{ step: '9.9', answer: 'yes' }] })),
        refusal(handle.executeUpdate(resolveStepUpdate, { args: [{ step: 'k.1', decision: 'done' }] })),
        refusal(handle.executeUpdate(completeStepUpdate, { args: [{ step: 'k.1', answer: 'x'.repeat(10_001) }] })),
      ]);
      const accepted = await handle.executeUpdate(completeStepUpdate, {
        args: [{ step: 'k.1', answer: 'Yes, ship it' }],
      });
      return { waiting, step, refusals, accepted, ...(await settle(handle)) };
    });
    expect(result.waiting.stage).toBe('EXECUTING');
    expect(result.step.waiting).toEqual({
      for: 'answer',
      question: 'Ship the report to the regulator?',
      since: expect.any(String),
      until: expect.any(String),
    });
    expect(Date.parse(result.step.waiting!.until) - Date.parse(result.step.waiting!.since)).toBe(24 * 60 * 60_000);
    expect(result.refusals.map((f) => f.code)).toEqual(['PLAN-006', 'PLAN-006', 'PLAN-006', 'PLAN-006']);
    expect(result.refusals[0]!.message).toMatch(/step 1\.1 is COMPLETED, so it cannot take completeStep/);
    expect(result.refusals[0]!.hint).toMatch(/now: k\.1/);
    expect(result.refusals[1]!.message).toMatch(/has no step "9\.9"/);
    expect(result.refusals[2]!.message).toMatch(/step k\.1 waits for an answer, so it cannot take resolveStep/);
    expect(result.refusals[3]!.message).toMatch(/invalid completeStep payload: answer/);
    expect(result.accepted).toBe('step k.1 answered: Yes, ship it');
    expect(result.failure).toBeNull();
    const human = result.state.steps.find((s) => s.id === 'k.1')!;
    expect(human).toMatchObject({
      status: 'COMPLETED',
      waiting: null,
      result: { data: 'Yes, ship it', preview: '"Yes, ship it"', ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
    });
    expect(calls.step).toBe(2);
  });

  test('with no answer within human_step_timeout_ms fails with PLAN-007, and the run re-plans', async () => {
    const script: StubScript = { plan: (p, call) => (call === 0 ? humanPlan!(p, call) : p) };
    const { result } = await runWith(script, { human_step_timeout_ms: 60_000, max_replans: 1 }, settle);
    expect(result.failure).toBeNull();
    expect(result.state.stage).toBe('COMPLETED');
    expect(result.state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
    expect(result.state.versions[1]!.explanation).toBe(
      'step k.1 (human) failed: no answer for step k.1 within 60000 ms',
    );
    expect(AUDIT(result.state)).toContain('step k.1 (human) failed: PLAN-007 no answer for step k.1 within 60000 ms');
  });
});

describe('a side-effecting step whose outcome is unknown (PLAN-014)', () => {
  /** The first call of step 1.1 fails with an unknown outcome; every idempotency scope it is run under is recorded. */
  function unknownOnce() {
    const scopes: string[] = [];
    const script: StubScript = {
      step: (input) => {
        if (input.step_id !== '1.1') return;
        scopes.push(input.idempotency_scope);
        if (scopes.length === 1)
          throw activityFailure(
            new StepOutcomeUnknownError('an earlier attempt never reported an outcome', { idempotency_key: 'k' }),
          );
        return { data: [{ id: 'S1', shipped_on: '2026-11-16' }], items: 1 }; // in the goal's week, as the verifier checks
      },
    };
    return { scopes, script };
  }

  async function decide(handle: Handle, decision: ResolveStepInput) {
    const { step } = await waitingOn(handle, '1.1');
    const reply = await handle.executeUpdate(resolveStepUpdate, { args: [decision] });
    return { step, reply, ...(await settle(handle)) };
  }

  test('asks a person by default; retry runs the tool again under a fresh idempotency scope', async () => {
    const { scopes, script } = unknownOnce();
    const { result } = await runWith(script, {}, (h) => decide(h, { step: '1.1', decision: 'retry' }));
    expect(result.step.waiting).toMatchObject({
      for: 'decision',
      question: expect.stringMatching(
        /^Step 1\.1 \(shipments\) may or may not have acted: an earlier attempt never reported/,
      ),
    });
    expect(result.reply).toBe('step 1.1 resolved: retry');
    expect(result.failure).toBeNull();
    expect(scopes).toHaveLength(2);
    expect(result.state.effect_chain).toMatch(/^default\/[0-9a-f-]{36}$/); // the namespace and first run id
    expect(scopes[0]).toBe(`${result.state.effect_chain}/${result.state.workflow_id}:1.1`);
    expect(scopes[1]).toMatch(/:retry-\d+$/);
    expect(scopes[1]!.startsWith(`${scopes[0]}:retry-`)).toBe(true);
    expect(result.state.steps[0]).toMatchObject({ status: 'COMPLETED', result: { items: 1 } });
    expect(result.state.versions).toHaveLength(1);
  });

  test("done marks the step completed with the person's text as its result, without running the tool again", async () => {
    const { scopes, script } = unknownOnce();
    const { result } = await runWith(script, {}, (h) =>
      decide(h, { step: '1.1', decision: 'done', text: '3 shipments were already exported' }),
    );
    expect(result.failure).toBeNull();
    expect(scopes).toHaveLength(1);
    expect(result.state.steps[0]).toMatchObject({
      status: 'COMPLETED',
      result: { data: '3 shipments were already exported' },
    });
    expect(AUDIT(result.state)).toContain('step 1.1 (shipments) completed: marked done by a person');
    // The person's word is taken: the verifier does not check their text as the tool's rows.
    expect(result.state.task_checks?.find((c) => c.task === '1')).toMatchObject({ passed: true });
    expect(result.state.task_checks?.find((c) => c.task === '1')?.results[0]?.detail).toBe(
      'not checked: step 1.1 was marked done by a person',
    );
  });

  test('fail takes the normal path: the step fails with PLAN-014 and the run re-plans', async () => {
    const { scopes, script } = unknownOnce();
    const { result } = await runWith(script, {}, (h) =>
      decide(h, { step: '1.1', decision: 'fail', text: 'cannot tell' }),
    );
    expect(result.failure).toBeNull();
    expect(result.state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
    expect(result.state.versions[1]!.explanation).toMatch(
      /^step 1\.1 \(shipments\) failed: an earlier attempt never reported an outcome — failed by a person: cannot tell$/,
    );
    expect(scopes).toHaveLength(2); // v2's step ran again (the stub's second call succeeds)
    // The decisions the audit marks, as `planner audit` reads them: each version passed by the gatekeeper, the
    // person's resolution, and the re-plan it led to.
    expect(result.state.audit.flatMap((a) => (a.decision ? [[a.kind, a.decision]] : []))).toEqual([
      ['gatekeeper', 'approve'],
      ['message', 'resolve'],
      ['stage', 'replan'],
      ['gatekeeper', 'approve'],
    ]);
  });

  test('with on_outcome_unknown "fail" the run ends at once with PLAN-014, asking no one and planning nothing more', async () => {
    const { script } = unknownOnce();
    const { result } = await runWith(script, { on_outcome_unknown: 'fail' }, settle);
    expect(result.failure).toMatchObject({ type: 'StepOutcomeUnknownError', code: 'PLAN-014' });
    expect(result.state.versions).toHaveLength(1);
    expect(AUDIT(result.state).some((m) => m.includes('waits for a decision'))).toBe(false);
  });

  test('with on_outcome_unknown "replan" the step fails into the re-plan path as before', async () => {
    const { script } = unknownOnce();
    const { result } = await runWith(script, { on_outcome_unknown: 'replan' }, settle);
    expect(result.failure).toBeNull();
    expect(result.state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
  });
});

test('a plan with a kind the run cannot execute (an llm step in a run without an LLM) is refused at validation, before any step runs', async () => {
  const taskQueue = uniqueTaskQueue('kinds-refused');
  // A planner that writes an llm step; this worker has no LLM, so the run plans with the ranking planner.
  const deps = planningDependenciesRewriting((plan) =>
    withExtraSteps(plan, [{ action: 'llm', title: 'Summarize', depends_on: [0] }]),
  );
  let executed = 0;
  const activities = {
    ...createPlanningActivities(deps),
    executeStep: async () => void executed++,
    runLlmStep: async () => void executed++,
  };
  const worker = await workflowWorker(env().nativeConnection, taskQueue, activities);
  const handle = await env().client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `kinds-${taskQueue}`,
    args: [{ request: { goal: SCENARIO }, options: { search_attributes: false } }],
  });
  const { state, failure } = await worker.runUntil(settle(handle));
  expect(failure).toMatchObject({ type: 'PlanValidationError', code: 'PLAN-003' });
  expect(failure!.message).toMatch(
    /^planning failed: plan failed validation with 1 issue\(s\):\n\[STEP_KIND_NOT_RUNNABLE\] step 2 \("k\.1"\): this run cannot execute llm steps$/,
  );
  expect(state.stage).toBe('FAILED');
  expect(state.versions).toHaveLength(0);
  expect(state.steps).toHaveLength(0);
  expect(executed).toBe(0);
});
