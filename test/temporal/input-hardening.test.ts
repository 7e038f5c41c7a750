/**
 * Input hardening on the real dev server (issue 13): oversized input refused at once while the same worker keeps
 * planning, search-attribute values clipped to what the server accepts, and secrets in the goal redacted from
 * everything the run re-emits.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { readFailure } from '../../src/api/failures';
import {
  BUDGET_MAXIMA,
  approveUpdate,
  getStateQuery,
  raiseBudgetUpdate,
  rejectUpdate,
  type PlanningWorkflowInput,
} from '../../src/api';
import { KEYWORD_LIMITS } from '../../src/api/search-attributes';
import { REQUEST_LIMITS } from '../../src/domain/request';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, useWastePackAndClient, type TestPlanner } from '../support/planner-workers';
import { waitFor } from '../support/temporal';

const SCENARIO = 'Get contaminated shipments from last week and show me the contaminant details';
const fixtures = useWastePackAndClient();
let planner: TestPlanner;
beforeAll(async () => {
  planner = await startTestPlanner(fixtures.pack(), { prefix: 'hardening' });
});
afterAll(async () => {
  await planner?.stop();
});

let n = 0;
function start(input: PlanningWorkflowInput, memo?: Record<string, unknown>) {
  return fixtures.client().workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId: `hardening-${n++}-${planner.taskQueue}`,
    args: [input],
    ...(memo ? { memo } : {}),
  });
}

test('a 600 KB context is refused at once with PLAN-006 naming the limit; a normal run on the same worker completes', async () => {
  const oversized = await start({
    request: { goal: SCENARIO, context: [{ role: 'user', content: 'shipments in Hannover, '.repeat(26_100) }] },
  });
  const err = await oversized.result().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const failure = readFailure(err as WorkflowFailedError);
  expect(failure).toMatchObject({ type: 'InvalidInputError', code: 'PLAN-006' });
  expect(failure.message).toMatch(/limit of 32000 characters/);
  expect(failure.hint).toContain(
    `context ${REQUEST_LIMITS.context_messages} messages and ${REQUEST_LIMITS.context_chars} characters`,
  );
  // At once: the run failed in its first workflow task, before any activity (no retry loop, no LLM call).
  const { events } = await oversized.fetchHistory();
  expect(events!.filter((e) => e.workflowTaskStartedEventAttributes)).toHaveLength(1);
  expect(events!.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);

  const outcome = await (await start({ request: { goal: SCENARIO } })).result();
  expect(outcome.stage).toBe('COMPLETED');
});

test('a goal with a 5,000-character word completes; its PlanGoalKeywords are clipped', async () => {
  const word = 'x'.repeat(5_000);
  const handle = await start({ request: { goal: `${SCENARIO} ${word}` } });
  await handle.result().catch(() => undefined);
  const { status, searchAttributes } = await handle.describe();
  expect(status.name).toBe('COMPLETED');
  const keywords = searchAttributes.PlanGoalKeywords as string[];
  expect(keywords).toContain('x'.repeat(KEYWORD_LIMITS.chars));
  expect(keywords.length).toBeLessThanOrEqual(KEYWORD_LIMITS.count);
  expect(keywords.every((k) => k.length <= KEYWORD_LIMITS.chars)).toBe(true);
});

test('secrets in the goal are in no memo, search attribute, state or history event the run writes', async () => {
  const secrets = ['sk-abcdefghijklmnopqrstuv1234', 'ghp_abcdefghijklmnopqrstuvwxyz0123', 'hunter2hunter2'];
  const goal = `${SCENARIO} using ${secrets[0]} and ${secrets[1]} with password=${secrets[2]}`;
  const handle = await start({ request: { goal } });
  await handle.result().catch(() => undefined);
  const { memo, searchAttributes } = await handle.describe();
  const state = await handle.query(getStateQuery);
  expect(state.request.goal).toContain('[redacted]');
  const history = await handle.fetchHistory();
  const events = history.events!;
  expect(events[0]!.workflowExecutionStartedEventAttributes).toBeTruthy();
  // The start event holds the input as the client sent it; everything after it is what the planner wrote.
  const written = Buffer.from(temporal.api.history.v1.History.encode({ events: events.slice(1) }).finish()).toString(
    'latin1',
  );
  expect(written).toContain('analyze: ');
  for (const secret of secrets) {
    expect(JSON.stringify(memo)).not.toContain(secret);
    expect(JSON.stringify(searchAttributes)).not.toContain(secret);
    expect(JSON.stringify(state)).not.toContain(secret);
    expect(written).not.toContain(secret);
  }
});

test('a one-call budget under block keeps the whole 2-step plan and pauses in BUDGET_EXHAUSTED before executing', async () => {
  const handle = await start({
    request: { goal: SCENARIO, budget: { cost_usd: 1, tokens: 200_000, calls: 1, policy: 'block' } },
  });
  await waitFor(
    async () => (await handle.query(getStateQuery)).stage === 'BUDGET_EXHAUSTED',
    30_000,
    'the budget pause',
  );
  const state = await handle.query(getStateQuery);
  expect(state.plan!.tasks.flatMap((t) => t.steps.map((s) => s.tool))).toEqual(['shipments', 'contaminants-detected']);
  expect(state.plan!.status).toBe('FEASIBLE');
  expect(state.steps.every((s) => s.status === 'PENDING')).toBe(true);
  expect(state.budget_needed).toMatchObject({ calls: 2 });
  await handle.terminate('test over');
});

test("a memo a careless client started the run with, its goal unredacted, is replaced by the run's redacted goal", async () => {
  const goal = `${SCENARIO} with password=hunter2hunter2`;
  const handle = await start({ request: { goal } }, { goal });
  await handle.result();
  const { memo } = await handle.describe();
  expect(memo).toEqual({ goal: (await handle.query(getStateQuery)).request.goal });
  expect(JSON.stringify(memo)).not.toContain('hunter2hunter2');
});

test('a start budget past the maxima a raise keeps (cost_usd 1e300, tokens 2e12) fails the run at once with PLAN-006 naming each limit', async () => {
  const handle = await start({
    request: { goal: SCENARIO, budget: { cost_usd: 1e300, tokens: 2e12, calls: 10, policy: 'block' } },
  });
  const err = await handle.result().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const failure = readFailure(err as WorkflowFailedError);
  expect(failure).toMatchObject({ type: 'InvalidInputError', code: 'PLAN-006' });
  expect(failure.message).toContain(`budget.cost_usd: 1e+300 is past the maximum of ${BUDGET_MAXIMA.cost_usd}`);
  expect(failure.message).toContain(`budget.tokens: 2000000000000 is past the maximum of ${BUDGET_MAXIMA.tokens}`);
  expect(failure.message).not.toContain('budget.calls');
  expect(failure.hint).toMatch(
    /at most cost_usd 1000000, tokens 1000000000000, calls 1000000000, at start and after raises/,
  );
  const { events } = await handle.fetchHistory();
  expect(events!.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
});

test('a start budget at the maxima runs, and the run can still be raised in a limit below its maximum', async () => {
  const handle = await start({
    request: { goal: SCENARIO, budget: { cost_usd: BUDGET_MAXIMA.cost_usd, tokens: 1_000, calls: 1, policy: 'block' } },
  });
  await waitFor(
    async () => (await handle.query(getStateQuery)).stage === 'BUDGET_EXHAUSTED',
    30_000,
    'the budget pause',
  );
  const raised = await handle.executeUpdate(raiseBudgetUpdate, { args: [{ calls: 10, tokens: 10_000 }] });
  expect(raised.limit).toEqual({ cost_usd: BUDGET_MAXIMA.cost_usd, tokens: 11_000, calls: 11 });
  expect((await handle.result()).stage).toBe('COMPLETED');
});

/** A credential of each common format, as a person might paste it, and the part of it that must appear nowhere. */
const CREDENTIALS = [
  { text: 'sk-proj0123456789abcdefghij', secret: 'proj0123456789abcdefghij' },
  { text: 'password=hunter2hunter2', secret: 'hunter2hunter2' },
  { text: 'sk_live_51HabcdefghijklmnopQRST', secret: '51habcdefghijklmnopqrst' },
  { text: 'xoxb-1234567890-abcdefghijKLMN', secret: 'abcdefghijklmn' },
  { text: 'postgres://app:s3cretPassw0rd@db.internal:5432/ops', secret: 's3cretpassw0rd' },
  {
    text: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    secret: 'dozjgnryp4j3jvmnhl0w5n_xgl0n3i9plfup0thsr8u',
  },
  { text: 'AIzaSyA1234567890abcdefghijklmnopqrstu', secret: 'sya1234567890abcdefghijklmnopqrstu' },
];
const PASTED = CREDENTIALS.map((c) => c.text).join(' and ');
const lower = (value: unknown) => JSON.stringify(value).toLowerCase();

/** Everything the run wrote: its history without the start event and the accepted updates (they hold what clients sent). */
function writtenByRun(events: temporal.api.history.v1.IHistoryEvent[]): string {
  const written = events.filter(
    (e) => !e.workflowExecutionStartedEventAttributes && !e.workflowExecutionUpdateAcceptedEventAttributes,
  );
  return Buffer.from(temporal.api.history.v1.History.encode({ events: written }).finish())
    .toString('latin1')
    .toLowerCase();
}

test('a credential of each common format in the goal is in no memo, PlanGoalKeywords entry, state or event the run writes', async () => {
  const handle = await start({
    request: { goal: `${SCENARIO} using ${PASTED}`, context: [{ role: 'user', content: `the key is ${PASTED}` }] },
  });
  await handle.result();
  const { memo, searchAttributes } = await handle.describe();
  const state = await handle.query(getStateQuery);
  expect(state.request.goal).toContain('postgres://app:[redacted]@db.internal:5432/ops');
  const written = writtenByRun((await handle.fetchHistory()).events!);
  for (const { secret } of CREDENTIALS) {
    for (const [where, value] of Object.entries({ memo, searchAttributes, state }))
      expect([where, lower(value)]).toEqual([where, expect.not.stringContaining(secret)]);
    expect(written).not.toContain(secret);
  }
});

test('a reject reason and an approve comment with a credential of each format reach no state, audit, prompt feedback, search attribute or memo', async () => {
  const handle = await start({ request: { goal: SCENARIO }, options: { require_approval: true } });
  const awaiting = (version: number) =>
    waitFor(
      async () => {
        const s = await handle.query(getStateQuery);
        return s.stage === 'AWAITING_APPROVAL' && s.plan?.version === version;
      },
      30_000,
      `plan v${version} awaiting approval`,
    );
  await awaiting(1);
  await handle.executeUpdate(rejectUpdate, { args: [{ plan_version: 1, reason: `use ${PASTED}` }] });
  await awaiting(2);
  const feedback = (await handle.query(getStateQuery)).next_version_reason;
  await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 2, comment: `deploy with ${PASTED}` }] });
  expect((await handle.result()).stage).toBe('COMPLETED');
  const state = await handle.query(getStateQuery);
  const { memo, searchAttributes } = await handle.describe();
  expect(state.audit.map((a) => a.message)).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^rejected: use \[redacted\] and password=\[redacted\]/),
      expect.stringMatching(/^approved: deploy with \[redacted\]/),
    ]),
  );
  expect(feedback).toEqual({
    reason: 'human_rejection',
    feedback: [expect.stringContaining('postgres://app:[redacted]@db.internal')],
  });
  const written = writtenByRun((await handle.fetchHistory()).events!);
  for (const { secret } of CREDENTIALS) {
    for (const [where, value] of Object.entries({ state, feedback, memo, searchAttributes }))
      expect([where, lower(value)]).toEqual([where, expect.not.stringContaining(secret)]);
    expect(written).not.toContain(secret);
  }
});
