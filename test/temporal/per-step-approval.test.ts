/**
 * `approval: per-step` (issue 37): the plan runs without a plan-level wait; read-only steps run, and a side-effecting
 * step waits for a person when it is reached (only its dependents wait with it). `approve`/`reject` naming the step
 * decide it, with the identity in the audit; four_eyes applies. An invoicing pack and the scripted LLM planner, on the
 * real server.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { getStateQuery, readFailure } from '../../src/api';
import { defineTool, defineToolPack } from '../../src/tools/define-tool';
import { invoicingTools, refusal, stagesOf, usePeople } from '../support/people';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { scriptedPlans, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { stepWaiting, waitFor } from '../support/temporal';

/** The reminders sent: the effect that must wait for a person. */
const sent: string[][] = [];

const invoicing = defineToolPack('invoicing', [
  ...invoicingTools(sent),
  defineTool({
    name: 'count_customers',
    description: 'Count the customers.',
    params: z.object({}),
    result: z.object({ customers: z.number() }),
    idempotent: true,
    tags: ['customer', 'count'],
    run: async () => ({ customers: 3 }),
  }),
]);

const step = (id: string, tool: string, params: object, depends_on: number[]) => ({
  id,
  title: tool.replace(/_/g, ' '),
  action: 'tool_call',
  tool,
  params,
  depends_on,
  parallel: true,
});
const LIST = step('1.1', 'list_overdue_invoices', {}, []);
const SEND = step('1.2', 'send_payment_reminders', { customers: ['Acme'] }, [0]);
const COUNT = step('1.3', 'count_customers', {}, []);
const plans = scriptedPlans({
  steps: ['List overdue invoices', 'Send payment reminders', 'Count customers'],
  capabilities: ['list_overdue_invoices', 'send_payment_reminders', 'count_customers'],
  task: 'Overdue invoices',
});

let llm: ScriptedLlmServer;
let planner: TestPlanner;
const people = usePeople({ alice: 'alice@finance', bob: 'bob@finance' });

beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: plans.reply });
  planner = await startTestPlanner(invoicing, { prefix: 'per-step', env: llm.env });
});

afterAll(async () => {
  await planner?.stop();
  await llm?.close();
});

function start(id: string, options: Record<string, unknown> = {}) {
  return people.alice.start(
    {
      request: { goal: 'Remind the customers with overdue invoices', tool_catalog: 'invoicing', planner: 'llm' },
      options: { search_attributes: false, plan_cache: 'off', approval: 'per-step', ...options },
    },
    { workflowId: `${id}-${planner.taskQueue}`, taskQueue: planner.taskQueue },
  );
}

test('a read-only plan runs without any wait', async () => {
  plans.set([LIST, COUNT]);
  const handle = await start('read-only');
  expect((await handle.result()).stage).toBe('COMPLETED');
  const state = await handle.query(getStateQuery);
  expect(stagesOf(state)).toContain(
    'CRITIQUING → APPROVED: approved by the gatekeeper: every step is read-only (approval: per-step)',
  );
  expect(state.audit.some((a) => /waits for/.test(a.message))).toBe(false);
});

test('with one side-effecting step, the read-only steps run and that step waits when reached; four_eyes refuses the starter; another person approves it by step and it runs once', async () => {
  plans.set([LIST, SEND, COUNT]);
  sent.length = 0;
  const handle = await start('one-effect', { four_eyes: true });
  const waiting = await stepWaiting(handle, '1.2');
  expect(waiting.stage).toBe('EXECUTING');
  expect(stagesOf(waiting)).toContain(
    'CRITIQUING → APPROVED: approved by the gatekeeper: step 1.2 (send_payment_reminders) will wait for a person when reached (approval: per-step)',
  );
  const byId = Object.fromEntries(waiting.steps.map((s) => [s.id, s]));
  expect(byId['1.1']!.status).toBe('COMPLETED');
  await waitFor(
    async () => (await people.alice.state(handle.workflowId)).steps[2]!.status === 'COMPLETED',
    30_000,
    '1.3',
  );
  expect(byId['1.2']!.waiting).toMatchObject({ for: 'approval' });
  expect(byId['1.2']!.waiting!.question).toContain('Params: {"customers":["Acme"]}');
  expect(sent).toEqual([]);

  const refused = await refusal(people.alice.approve(handle.workflowId, undefined, undefined, '1.2'));
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  expect(readFailure(refused).message).toBe(
    'approve refused by four_eyes: alice@finance started this run, so another person must approve step 1.2',
  );
  expect(await people.bob.approve(handle.workflowId, 'go ahead', undefined, '1.2')).toBe('step 1.2 approved');
  expect((await handle.result()).stage).toBe('COMPLETED');
  expect(sent).toEqual([['Acme']]);
  const audit = (await handle.query(getStateQuery)).audit.filter((a) => a.kind === 'approval');
  expect(audit).toEqual([
    expect.objectContaining({
      message: 'step 1.2 approved by bob@finance: go ahead',
      by: 'bob@finance',
      decision: 'approve',
    }),
  ]);
});

test('a step rejected by a person fails with the reason (PLAN-011) and the run re-plans with it; nothing is sent', async () => {
  plans.set([LIST, SEND], [LIST]); // the next version leaves the reminders out
  sent.length = 0;
  const handle = await start('rejected', { max_replans: 1 });
  await stepWaiting(handle, '1.2');
  expect(await people.bob.reject(handle.workflowId, 'not before the month closes', undefined, '1.2')).toBe(
    'step 1.2 rejected',
  );
  expect((await handle.result()).stage).toBe('COMPLETED');
  const state = await handle.query(getStateQuery);
  expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
  expect(state.versions[1]!.explanation).toBe(
    'step 1.2 (send_payment_reminders) failed: rejected by a person: not before the month closes',
  );
  expect(state.audit.find((a) => a.kind === 'approval')).toMatchObject({
    message: 'step 1.2 rejected by bob@finance: not before the month closes',
    by: 'bob@finance',
    decision: 'reject',
  });
  expect(sent).toEqual([]);
});

test('an approval naming a step that does not wait for one is refused (PLAN-006, saying what the step is)', async () => {
  plans.set([LIST, SEND]);
  const handle = await start('wrong-step');
  await stepWaiting(handle, '1.2');
  const refused = await refusal(people.bob.approve(handle.workflowId, undefined, undefined, '1.1'));
  expect(readFailure(refused)).toMatchObject({
    code: 'PLAN-006',
    message: 'step 1.1 is COMPLETED, so it cannot take approve',
  });
  await people.bob.approve(handle.workflowId, undefined, undefined, '1.2');
  expect((await handle.result()).stage).toBe('COMPLETED');
});
