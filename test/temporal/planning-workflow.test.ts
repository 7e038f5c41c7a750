/**
 * planningWorkflow on a real Temporal dev server, with the real planning activities (rules analyzer, ranking
 * planner, critics, gatekeeper) and the waste pack's tools over embedded PostgreSQL.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { StepFailedError } from '../../src/domain/errors';
import type { ToolImplementation } from '../../src/tools/tool';
import {
  answerClarificationUpdate,
  approveUpdate,
  emptyAnswerNote,
  getStateQuery,
  raiseBudgetUpdate,
  rejectUpdate,
  type PlanningWorkflowInput,
} from '../../src/api';
import { planningStartOptions } from '../../src/client';
import { planningWorkflow } from '../../src/workflows';
import { recordHistory, startTestPlanner, useWastePackAndClient, type TestPlanner } from '../support/planner-workers';
import { buildIdsOf, waitFor } from '../support/temporal';
import { packageVersion } from '../../src/versioning';

const SCENARIO = 'Get contaminated shipments from last week and show me the contaminant details';
const fixtures = useWastePackAndClient();

async function withPlanner<T>(
  fn: (planner: TestPlanner) => Promise<T>,
  wrap?: (tool: ToolImplementation) => ToolImplementation,
): Promise<T> {
  const planner = await startTestPlanner(fixtures.pack(), { wrap });
  try {
    return await fn(planner);
  } finally {
    await planner.stop();
  }
}

function start(planner: TestPlanner, id: string, input: PlanningWorkflowInput) {
  return fixtures.client().workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId: `${id}-${planner.taskQueue}`,
    args: [input],
  });
}

/** As PlannerClient.start (and `planner start`) start a run: the goal already in the memo. */
function startAsPlannerClient(planner: TestPlanner, id: string, input: PlanningWorkflowInput) {
  return fixtures
    .client()
    .workflow.start(
      planningWorkflow,
      planningStartOptions(input, { taskQueue: planner.taskQueue, workflowId: `${id}-${planner.taskQueue}` }),
    );
}

const memoUpdates = (history: temporal.api.history.v1.IHistory) =>
  history.events!.filter((e) => e.workflowPropertiesModifiedEventAttributes);

describe('planningWorkflow', () => {
  test('plans and executes the seed scenario: two steps over real data, budget charged per call', async () => {
    await withPlanner(async (planner) => {
      const handle = await startAsPlannerClient(planner, 'scenario', { request: { goal: SCENARIO } });
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      expect(outcome.steps.map((s) => [s.tool, s.status])).toEqual([
        ['shipments', 'COMPLETED'],
        ['contaminants-detected', 'COMPLETED'],
      ]);
      expect(outcome.steps.every((s) => (s.items ?? 0) > 0)).toBe(true);
      expect(outcome.budget.spent.calls).toBe(2);

      const state = await handle.query(getStateQuery);
      expect(state.routing.map((r) => r.queue)).toEqual([planner.toolQueue, planner.toolQueue]);
      expect(state.audit.map((a) => a.kind)).toEqual(
        expect.arrayContaining(['analysis', 'plan', 'critique', 'gatekeeper', 'routing', 'step']),
      );
      const { searchAttributes, memo } = await handle.describe();
      expect(searchAttributes.PlanStage).toEqual(['COMPLETED']);
      expect(searchAttributes.PlanVersion).toEqual([1]);
      expect(memo).toEqual({ goal: SCENARIO });

      const history = await handle.fetchHistory();
      const bytes = Buffer.byteLength(JSON.stringify(history));
      expect(bytes).toBeLessThan(200_000);
      // No patch marker (release 0.2.0 retired them all), and the stage published only where the run waited (the
      // analysis, an activity under planner auto; its steps) and at the end, not for the stages it passed through
      // inside a workflow task.
      expect(history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toHaveLength(
        0,
      );
      // Pinned to the worker version that started it (src/versioning.ts): every workflow task ran on that version.
      expect(new Set(buildIdsOf(history))).toEqual(new Set([planner.version!.buildId]));
      expect(planner.version!.buildId).toMatch(
        new RegExp(`^${packageVersion().replace(/\./g, '\\.')}\\+[0-9a-f]{12}$`),
      );
      const { versioningInfo } = (await handle.describe()).raw.workflowExecutionInfo!;
      expect(versioningInfo?.behavior).toBe(temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
      expect(versioningInfo?.deploymentVersion).toMatchObject(planner.version!);
      expect(memoUpdates(history)).toHaveLength(0); // the start set the memo: the run adds no visibility write for it
      // Local activities: plan, critique, the cost forecast, the verifier once per task (two), the recording of the
      // steps' costs; the gatekeeper decides in the workflow, the routes come with the plan.
      expect(
        history.events!.flatMap((e) =>
          e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
            ? [
                JSON.parse(Buffer.from(e.markerRecordedEventAttributes.details!.data!.payloads![0]!.data!).toString())
                  .activity_type,
              ]
            : [],
        ),
      ).toEqual(['generatePlan', 'critiquePlan', 'forecastCost', 'verifyTask', 'verifyTask', 'recordCosts']);
      const stages = history.events!.flatMap((e) => {
        const stage = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.PlanStage?.data;
        return stage ? [JSON.parse(Buffer.from(stage).toString())] : [];
      });
      expect(stages).toEqual(['ANALYZING', 'EXECUTING', 'COMPLETED']);
      await recordHistory(handle, 'scenario-completed');
    });
  });

  test.each([
    ['Get me shipments from last week', ['shipments']],
    ['Contaminants detected in Hannover today', ['facilities', 'contaminants-detected']],
    [
      'From the inspections accepted this week, did we detect any high-risk contaminants?',
      ['inspections', 'contaminants-detected'],
    ],
  ])('seed scenario "%s" plans %j and executes to non-empty results', async (goal, tools) => {
    await withPlanner(async (planner) => {
      const outcome = await (await start(planner, 'seed', { request: { goal } })).result();
      expect(outcome.steps.map((s) => [s.tool, s.status])).toEqual(tools.map((t) => [t, 'COMPLETED']));
      expect(outcome.steps.every((s) => (s.items ?? 0) > 0)).toBe(true);
    });
  });

  test('a lookup that finds nothing (no facility in Bielefeld): the step fed by it makes no call and returns no rows', async () => {
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'nothing-found', {
        request: { goal: 'Contaminants detected in Bielefeld today' },
      });
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      expect(outcome.steps.map((s) => [s.tool, s.status, s.items])).toEqual([
        ['facilities', 'COMPLETED', 0],
        ['contaminants-detected', 'COMPLETED', 0],
      ]);
      // Not a silent COMPLETED: what `planner show` and `planner result` print beside it.
      expect(emptyAnswerNote(await handle.query(getStateQuery))).toMatch(
        /^Nothing matched: step 1\.2 \(contaminants-detected\) with .*facility_id from step 1\.1 \(0 rows\)/,
      );
    });
  });

  test('a step that fails every time fails the run cleanly once re-plans run out; the completed lookup is not run again', async () => {
    const executed: string[] = [];
    const wrap = (tool: ToolImplementation): ToolImplementation => ({
      ...tool,
      async run(params, ctx) {
        executed.push(tool.spec.name);
        if (tool.spec.name === 'contaminants-detected')
          throw new StepFailedError('lab database offline', { retryable: false });
        return await tool.run(params, ctx);
      },
    });
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'failing', {
        request: { goal: 'Contaminants detected in Hannover today' },
        options: { max_replans: 1 },
      });
      const failure = await handle.result().catch((e: Error) => e);
      expect(failure).toBeInstanceOf(Error);
      const state = await handle.query(getStateQuery);
      expect(state.stage).toBe('FAILED');
      expect(state.steps[0]).toMatchObject({ tool: 'facilities', status: 'COMPLETED', completed_in_version: 1 });
      expect(state.steps[1]!.error).toMatchObject({ code: 'PLAN-008' });
      expect(state.steps[1]!.error!.message).toMatch(/lab database offline/);
      expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
      expect(state.failure).toMatchObject({ type: 'StepFailedError', code: 'PLAN-008' });
      expect(state.failure!.message).toMatch(/no re-plans left \(1 of 1 used\)/);
      expect(executed.filter((t) => t === 'facilities')).toHaveLength(1);
    }, wrap);
  });

  test('an unclear goal waits in AWAITING_CLARIFICATION; a wrong option is refused; the answer completes the plan', async () => {
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'clarify', { request: { goal: 'Check the reports' } });
      await waitFor(
        async () => (await handle.query(getStateQuery)).stage === 'AWAITING_CLARIFICATION',
        30_000,
        'the question',
      );
      const { question } = await handle.query(getStateQuery);
      expect(question).toMatchObject({ text: 'Which report do you need?', default_option: 1 });
      expect(question!.options[0]).toBe('Shipments from last week');

      await waitFor(
        async () => {
          const runs = fixtures
            .client()
            .workflow.list({ query: `PlanStage = "AWAITING_CLARIFICATION" AND WorkflowId = "${handle.workflowId}"` });
          for await (const _ of runs) return true;
          return false;
        },
        30_000,
        'the PlanStage search attribute',
      );

      const refused = await handle
        .executeUpdate(answerClarificationUpdate, { args: [{ option: 9 }] })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(((refused as WorkflowUpdateFailedError).cause as Error).message).toMatch(
        /option 9 does not exist; choose 1–4/,
      );

      expect(await handle.executeUpdate(answerClarificationUpdate, { args: [{ option: 1 }] })).toBe(
        'Shipments from last week',
      );
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      expect(outcome.steps.map((s) => s.tool)).toEqual(['shipments']);
      const state = await handle.query(getStateQuery);
      expect(state.clarifications).toEqual([
        { question: 'Which report do you need?', answer: 'Shipments from last week', by: 'user' },
      ]);
      // Started without a memo (as by the stock `temporal` CLI): the run sets it, once.
      expect((await handle.describe()).memo).toEqual({ goal: 'Check the reports' });
      expect(memoUpdates(await handle.fetchHistory())).toHaveLength(1);
      await recordHistory(handle, 'clarification-answered');
    });
  });

  test('without an answer the default option is taken after the timeout', async () => {
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'default', {
        request: { goal: 'Check the reports' },
        options: { clarification_timeout_ms: 1_000 },
      });
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      expect((await handle.query(getStateQuery)).clarifications).toEqual([
        { question: 'Which report do you need?', answer: 'Shipments from last week', by: 'timeout' },
      ]);
    });
  });

  test('budget block: a step whose call would pass the ceiling pauses in BUDGET_EXHAUSTED; raiseBudget resumes it', async () => {
    const ran: string[] = [];
    // shipments reports far more tokens than the catalog estimates, so after it the next step no longer fits.
    const wrap = (tool: ToolImplementation): ToolImplementation => ({
      ...tool,
      async run(params, ctx) {
        ran.push(tool.spec.name);
        const out = await tool.run(params, ctx);
        return tool.spec.name === 'shipments' ? { ...out, usage: { tokens: 10_000 } } : out;
      },
    });
    await withPlanner(async (planner) => {
      const budget = { cost_usd: 1, tokens: 10_200, calls: 10, policy: 'block' as const };
      const handle = await start(planner, 'budget', { request: { goal: SCENARIO, budget } });
      await waitFor(
        async () => (await handle.query(getStateQuery)).stage === 'BUDGET_EXHAUSTED',
        30_000,
        'BUDGET_EXHAUSTED',
      );
      const paused = await handle.query(getStateQuery);
      expect(paused.stage_before_budget).toBe('EXECUTING');
      expect(paused.budget.spent).toMatchObject({ calls: 1, tokens: 10_000 });
      expect(paused.budget_needed).toMatchObject({ calls: 1, tokens: 300 });
      expect(ran).toEqual(['shipments']);
      const { searchAttributes } = await handle.describe();
      expect(searchAttributes.PlanStage).toEqual(['BUDGET_EXHAUSTED']);

      await handle.executeUpdate(raiseBudgetUpdate, { args: [{ tokens: 1_000 }] });
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      expect(ran).toEqual(['shipments', 'contaminants-detected']);
      expect(outcome.budget.limit.tokens).toBe(11_200);
      expect(outcome.budget.spent).toMatchObject({ calls: 2, tokens: 10_300 });
      await recordHistory(handle, 'budget-raised');
    }, wrap);
  });

  test('a failing step triggers re-plan v2; the completed step is not executed again', async () => {
    const executed: string[] = [];
    let failNext = true;
    const wrap = (tool: ToolImplementation): ToolImplementation => ({
      ...tool,
      async run(params, ctx) {
        executed.push(tool.spec.name);
        if (tool.spec.name === 'contaminants-detected' && failNext) {
          failNext = false;
          throw new StepFailedError('lab database offline', { retryable: false });
        }
        return await tool.run(params, ctx);
      },
    });
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'replan', { request: { goal: SCENARIO } });
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      expect(outcome.plan_version).toBe(2);
      expect(executed).toEqual(['shipments', 'contaminants-detected', 'contaminants-detected']);
      const state = await handle.query(getStateQuery);
      expect(state.versions.map((v) => [v.version, v.reason])).toEqual([
        [1, 'initial'],
        [2, 'replan_after_failure'],
      ]);
      expect(state.versions[1]!.explanation).toMatch(
        /step 2.1 \(contaminants-detected\) failed: .*lab database offline/,
      );
      expect(state.steps[0]).toMatchObject({ status: 'COMPLETED', completed_in_version: 1 });
      expect(state.steps[1]).toMatchObject({ status: 'COMPLETED', completed_in_version: 2 });
      await recordHistory(handle, 'replan-after-failure');
    }, wrap);
  });

  test('human approval: a rejection refines the plan with the reason, an approval runs it', async () => {
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'approval', {
        request: { goal: SCENARIO },
        options: { require_approval: true },
      });
      await waitFor(async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL', 30_000, 'approval');
      await handle.executeUpdate(rejectUpdate, { args: [{ reason: 'only last week please' }] });
      await waitFor(
        async () =>
          (await handle.query(getStateQuery)).versions.length === 2 &&
          (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL',
        30_000,
        'v2',
      );
      await handle.executeUpdate(approveUpdate, { args: [{}] });
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      const state = await handle.query(getStateQuery);
      expect(state.versions[1]).toMatchObject({
        reason: 'human_rejection',
        explanation: 'rejected by a person: only last week please',
      });
      await recordHistory(handle, 'rejected-then-approved');
    });
  });

  test('continue-as-new past the history threshold carries the whole state into the next run', async () => {
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'can', {
        request: { goal: SCENARIO },
        options: { continue_as_new_after_events: 10 },
      });
      const outcome = await handle.result();
      expect(outcome.stage).toBe('COMPLETED');
      const state = await handle.query(getStateQuery);
      expect(state.continued_as_new).toBeGreaterThanOrEqual(1);
      expect(state.versions).toHaveLength(1);
      expect(state.audit[0]!.message).toMatch(/CREATED → ANALYZING/);
      expect(outcome.budget.spent.calls).toBe(2);
      await recordHistory(handle, 'continued-as-new'); // the last run of the chain
    });
  });

  test('bad input fails the run at once with a typed, non-retryable error naming the problem', async () => {
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'bad-options', {
        request: { goal: SCENARIO },
        options: { max_replans: -1 } as never,
      });
      const failure = await handle
        .result()
        .catch((e: Error & { cause?: Error & { type?: string; nonRetryable?: boolean } }) => e);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as { cause?: { type?: string } }).cause).toMatchObject({
        type: 'InvalidInputError',
        nonRetryable: true,
      });
      expect(((failure as { cause?: Error }).cause as Error).message).toMatch(
        /PLAN-006 invalid planning options: max_replans/,
      );
    });
  });

  test('Temporal cancel ends the run in CANCELLED', async () => {
    await withPlanner(async (planner) => {
      const handle = await start(planner, 'cancel', {
        request: { goal: SCENARIO },
        options: { require_approval: true },
      });
      await waitFor(async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL', 30_000, 'approval');
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      expect((await handle.query(getStateQuery)).stage).toBe('CANCELLED');
    });
  });
});
