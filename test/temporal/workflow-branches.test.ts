/**
 * Every branch of planningWorkflow's stage machine, with stub activities on Temporal's time-skipping test server:
 * gatekeeper refine and reject, IMPOSSIBLE and PARTIAL plans, a failed planning activity whose LLM calls are still
 * charged, budget pauses before analysis, planning and execution, continue-as-new carrying the state, and every way a
 * run can fail, each with its failure type, PLAN code and hint.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { readFailure } from '../../src/api/failures';
import type { PlanningWorkflowInput } from '../../src/api/input';
import { approveUpdate, getStateQuery, raiseBudgetUpdate } from '../../src/api/messages';
import {
  GoalUnclearError,
  InvalidInputError,
  LlmCallError,
  PlanImpossibleError,
  PlanningExhaustedError,
  PlanningTimeoutError,
  PlanParseError,
  PlanRejectedError,
  StepFailedError,
  WorkerFailureError,
  type PlannerError,
} from '../../src/domain/errors';
import { planningWorkflow } from '../../src/workflows';
import { activityFailure, llmCall, SCENARIO, stubActivities, type StubScript } from '../support/stub-activities';
import { settle, uniqueTaskQueue, useTimeSkippingServer, waitFor, workflowWorker } from '../support/temporal';

const env = useTimeSkippingServer();

type Handle = WorkflowHandle<typeof planningWorkflow>;

/** Runs one workflow against a worker serving `script`'s stubs; `drive` sees the handle while the worker runs. */
async function runWith<T>(
  script: StubScript,
  input: Partial<PlanningWorkflowInput> & { options?: PlanningWorkflowInput['options'] },
  drive: (handle: Handle) => Promise<T>,
) {
  const taskQueue = uniqueTaskQueue('branches');
  const stubs = stubActivities(script, taskQueue);
  const worker = await workflowWorker(env().nativeConnection, taskQueue, stubs.activities);
  const handle = await env().client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `branches-${taskQueue}`,
    // The time-skipping server cannot register custom search attributes.
    args: [{ request: { goal: SCENARIO, ...input.request }, options: { search_attributes: false, ...input.options } }],
  });
  const result = await worker.runUntil(drive(handle));
  return { result, calls: stubs.calls, planners: stubs.planners };
}

const BLOCKING: StubScript['critiques'] = () => [
  { critic: 'dependency', severity: 'error', message: 'step 2 reads nothing', suggestion: 'link it' },
];

describe('the gatekeeper', () => {
  test('refines a plan with a blocking critique: version 2 carries the critique as its reason and completes', async () => {
    const { result } = await runWith(
      { critiques: (plan, call) => (call === 0 ? BLOCKING!(plan, call) : []) },
      {},
      settle,
    );
    expect(result.failure).toBeNull();
    expect(result.state.stage).toBe('COMPLETED');
    expect(result.state.versions.map((v) => v.reason)).toEqual(['initial', 'refinement']);
    expect(result.state.versions[1]!.explanation).toMatch(/dependency.*step 2 reads nothing/);
    expect(result.state.refinements).toBe(1);
  });

  test('rejects a plan whose blocking critiques outlast the refinements: PlanRejectedError', async () => {
    const { result, calls } = await runWith({ critiques: BLOCKING }, { options: { max_refinements: 1 } }, settle);
    expect(result.state.versions).toHaveLength(2);
    expect(result.failure).toMatchObject({ type: 'PlanRejectedError', code: 'PLAN-011' });
    expect(calls.step).toBe(0);
  });
});

describe('plan status', () => {
  test('an IMPOSSIBLE plan ends the run naming what is missing, and nothing runs', async () => {
    const { result, calls } = await runWith(
      { plan: (p) => ({ ...p, status: 'IMPOSSIBLE', missing_capabilities: ['teleportation'] }) },
      {},
      settle,
    );
    expect(result.failure).toMatchObject({
      type: 'PlanImpossibleError',
      code: 'PLAN-010',
      details: { missing: ['teleportation'] },
    });
    expect(result.state.plan?.status).toBe('IMPOSSIBLE');
    expect(calls.step).toBe(0);
  });

  test('a PARTIAL plan runs what it can and warns about what is missing', async () => {
    const { result, calls } = await runWith(
      { plan: (p) => ({ ...p, status: 'PARTIAL', missing_capabilities: ['lab reports'] }) },
      {},
      settle,
    );
    expect(result.state.stage).toBe('COMPLETED');
    expect(result.state.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/PARTIAL: missing lab reports/)]),
    );
    expect(calls.step).toBe(2);
  });
});

test('a failed planning activity still has its LLM calls charged', async () => {
  const failing: StubScript = {
    analyze: () => ({ analyzer: 'llm', llm_calls: [llmCall(50)] }),
    plan: () => {
      throw activityFailure(new PlanningExhaustedError(3, new PlanParseError('not JSON')), [
        llmCall(100),
        llmCall(100),
        llmCall(100),
      ]);
    },
  };
  const { result } = await runWith(failing, {}, settle);
  expect(result.failure).toMatchObject({ type: 'PlanningExhaustedError', code: 'PLAN-009' });
  expect(result.state.budget.spent).toMatchObject({ calls: 4, tokens: 350 });
  expect(result.state.audit.map((a) => a.message)).toContain(
    'failed plan generation: 3 call(s), 300 tokens, $0.000000',
  );
});

describe('the planner is decided once, by the first analysis', () => {
  test.each([
    ['rules', 'ranking'],
    ['llm', 'llm'],
  ] as const)(
    'an `auto` run whose analysis ran the %s analyzer records %s; every later activity receives it',
    async (analyzer, planner) => {
      const { result, planners } = await runWith({ analyze: () => ({ analyzer }) }, {}, settle);
      expect(result.failure).toBeNull();
      expect(result.state.request.planner).toBe(planner);
      expect(result.state.audit.find((a) => a.kind === 'analysis')!.message).toMatch(
        new RegExp(`^planner ${planner};`),
      );
      expect(planners).toEqual(['analyzeRequirements:auto', `generatePlan:${planner}`, `critiquePlan:${planner}`]);
    },
  );
});

describe('budget pauses', () => {
  async function pausedThenRaised(handle: Handle, raise: { calls: number }) {
    await waitFor(
      async () => (await handle.query(getStateQuery)).stage === 'BUDGET_EXHAUSTED',
      30_000,
      'the budget pause',
    );
    const paused = await handle.query(getStateQuery);
    await handle.executeUpdate(raiseBudgetUpdate, { args: [raise] });
    return { paused, ...(await settle(handle)) };
  }

  test('before analysis: an LLM analysis that does not fit waits for a raise, then the run completes', async () => {
    const { result } = await runWith(
      {},
      { request: { goal: SCENARIO, budget: { cost_usd: 1, tokens: 100_000, calls: 0 } } },
      (h) => pausedThenRaised(h, { calls: 10 }),
    );
    expect(result.paused.stage_before_budget).toBe('ANALYZING');
    expect(result.paused.budget_needed).toEqual({ calls: 1, tokens: 2_000, cost_usd: 0 });
    expect(result.state.stage).toBe('COMPLETED');
  });

  test('before planning: the analysis spent the last call, so plan generation waits', async () => {
    const script: StubScript = { analyze: () => ({ analyzer: 'llm', llm_calls: [llmCall()] }) };
    const { result } = await runWith(
      script,
      { request: { goal: SCENARIO, budget: { cost_usd: 1, tokens: 100_000, calls: 1 } } },
      (h) => pausedThenRaised(h, { calls: 10 }),
    );
    expect(result.paused.stage_before_budget).toBe('PLANNING');
    expect(result.paused.versions).toHaveLength(0);
    expect(result.state.stage).toBe('COMPLETED');
  });

  test('before execution: the whole plan is kept and waits for the calls its steps need', async () => {
    const input = {
      request: { goal: SCENARIO, planner: 'ranking' as const, budget: { cost_usd: 1, tokens: 100_000, calls: 0 } },
    };
    const { result, calls } = await runWith({}, input, (h) => pausedThenRaised(h, { calls: 2 }));
    expect(result.paused.stage_before_budget).toBe('EXECUTING');
    expect(result.paused.budget_needed).toMatchObject({ calls: 2 });
    expect(result.state.stage).toBe('COMPLETED');
    expect(result.state.budget.spent.calls).toBe(2);
    expect(calls.step).toBe(2);
  });
});

test('continue-as-new carries the state: versions, audit and budget survive into the new run', async () => {
  // The wait for approval makes the history long enough (continue_as_new_after_events is at least 10).
  const { result } = await runWith(
    {},
    { options: { continue_as_new_after_events: 10, require_approval: true } },
    async (handle) => {
      await waitFor(async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL', 30_000, 'approval');
      await handle.executeUpdate(approveUpdate, { args: [{}] });
      return await settle(handle);
    },
  );
  expect(result.failure).toBeNull();
  expect(result.state.stage).toBe('COMPLETED');
  expect(result.state.continued_as_new).toBeGreaterThanOrEqual(1);
  expect(result.state.audit.map((a) => a.message)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^CREATED → ANALYZING/), expect.stringMatching(/continued as new/)]),
  );
  expect(result.state.versions).toHaveLength(1);
  expect(result.state.budget.spent.calls).toBe(2);
});

describe('every way a run fails names its type, PLAN code and hint', () => {
  const hint = (err: PlannerError) => err.hint;
  const cases: [string, StubScript, Partial<PlanningWorkflowInput>, string, string, string][] = [
    [
      'malformed input',
      {},
      { request: { goal: SCENARIO, budget: { cost_usd: -1, tokens: 0, calls: 0 } } },
      'InvalidInputError',
      'PLAN-006',
      hint(new InvalidInputError('', 'Fix the fields listed (path: message).')),
    ],
    [
      'the analysis provider fails',
      {
        analyze: () => {
          throw activityFailure(new LlmCallError('provider down', { retryable: false }));
        },
      },
      {},
      'LlmCallError',
      'PLAN-005',
      hint(new LlmCallError('', { retryable: false })),
    ],
    [
      'a goal still unclear after its clarifications',
      {},
      { request: { goal: 'Check the reports' }, options: { max_clarifications: 0 } },
      'GoalUnclearError',
      'PLAN-012',
      hint(new GoalUnclearError('')),
    ],
    [
      'an IMPOSSIBLE plan',
      { plan: (p) => ({ ...p, status: 'IMPOSSIBLE', missing_capabilities: ['x'] }) },
      {},
      'PlanImpossibleError',
      'PLAN-010',
      hint(new PlanImpossibleError([])),
    ],
    [
      'a rejected plan',
      { critiques: BLOCKING },
      { options: { max_refinements: 0 } },
      'PlanRejectedError',
      'PLAN-011',
      hint(new PlanRejectedError('')),
    ],
    [
      'no approval in time',
      {},
      { options: { require_approval: true, approval_timeout_ms: 60_000 } },
      'PlanningTimeoutError',
      'PLAN-007',
      hint(new PlanningTimeoutError('')),
    ],
    [
      'no budget raise in time',
      {},
      {
        request: { goal: SCENARIO, planner: 'ranking', budget: { cost_usd: 1, tokens: 1_000, calls: 0 } },
        options: { budget_timeout_ms: 60_000 },
      },
      'PlanningTimeoutError',
      'PLAN-007',
      hint(new PlanningTimeoutError('')),
    ],
    [
      'a step failing with no re-plans left',
      {
        step: () => {
          throw activityFailure(new StepFailedError('tool broke', { retryable: false }));
        },
      },
      { options: { max_replans: 0 } },
      'StepFailedError',
      'PLAN-008',
      hint(new StepFailedError('', { retryable: false })),
    ],
    [
      'an unclassified worker failure',
      {
        analyze: () => {
          throw ApplicationFailure.nonRetryable('segfault in a native module', 'NativeCrash');
        },
      },
      {},
      'WorkerFailureError',
      'PLAN-013',
      hint(new WorkerFailureError('')),
    ],
  ];

  test.each(cases)('%s', async (_what, script, input, type, code, expectedHint) => {
    const { result } = await runWith(script, input, async (handle) => {
      const err = await handle.result().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      return { failure: readFailure(err), message: ((err as WorkflowFailedError).cause as Error).message };
    });
    expect(result.failure).toMatchObject({ type, code, hint: expectedHint });
    expect(result.message).toMatch(new RegExp(`^${code} .+\\nHint: `, 's'));
  });
});
