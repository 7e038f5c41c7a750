/**
 * People in control of a run (issue 37): the option `approval` asks a person only where a plan can do harm
 * (`side-effects`: a plan of read-only steps runs without waiting, a plan with a side-effecting step waits), every
 * decision names who made it in the audit, and `four_eyes` refuses an approval by the identity that started the run.
 * An invoicing pack (a read-only listing, a side-effecting reminder) and the LLM planner scripted, on the real server.
 */
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { getStateQuery, readFailure } from '../../src/api';
import { auditEntryView } from '../../src/cli/json-views';
import { renderHistory } from '../../src/cli/render';
import { defineToolPack } from '../../src/tools/define-tool';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { scriptedPlans, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { runPlannerCli } from '../support/cli';
import { awaitingApproval, invoicingTools, refusal, stagesOf, usePeople } from '../support/people';
import { connectClient, waitFor } from '../support/temporal';
import { cliIdentity } from '../../src/cli/context';

/** The reminders the side-effecting tool sent: the effect a person must approve first. */
const sent: string[][] = [];

const invoicing = defineToolPack('invoicing', invoicingTools(sent));

const LIST = {
  id: '1.1',
  title: 'List overdue invoices',
  action: 'tool_call',
  tool: 'list_overdue_invoices',
  params: {},
  depends_on: [],
  parallel: true,
};
const SEND = {
  id: '1.2',
  title: 'Send payment reminders',
  action: 'tool_call',
  tool: 'send_payment_reminders',
  params: { customers: ['Acme'] },
  depends_on: [0],
  parallel: false,
};
const plans = scriptedPlans({
  steps: ['List overdue invoices', 'Send payment reminders'],
  capabilities: ['list_overdue_invoices', 'send_payment_reminders'],
  task: 'Overdue invoices',
});

let llm: ScriptedLlmServer;
let planner: TestPlanner;
let client: Client;
const people = usePeople({ alice: 'alice@finance', bob: 'bob@finance' });

beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: plans.reply });
  planner = await startTestPlanner(invoicing, { prefix: 'control', env: llm.env });
  client = await connectClient();
});

afterAll(async () => {
  await planner?.stop();
  await client?.connection.close();
  await llm?.close();
});

async function start(id: string, options: Record<string, unknown>) {
  const handle = await people.alice.start(
    {
      request: { goal: 'Remind the customers with overdue invoices', tool_catalog: 'invoicing', planner: 'llm' },
      options: { search_attributes: false, plan_cache: 'off', ...options },
    },
    { workflowId: `${id}-${planner.taskQueue}`, taskQueue: planner.taskQueue },
  );
  return handle;
}

describe('approval: side-effects', () => {
  test('a plan whose steps are all read-only runs without waiting: no AWAITING_APPROVAL in its audit, and the audit says why', async () => {
    plans.set([LIST]);
    const handle = await start('read-only', { approval: 'side-effects' });
    const outcome = await handle.result();
    const state = await handle.query(getStateQuery);
    expect(outcome.stage).toBe('COMPLETED');
    expect(state.options.approval).toBe('side-effects');
    expect(stagesOf(state).filter((m) => m.includes('AWAITING_APPROVAL'))).toEqual([]);
    expect(stagesOf(state)).toContain(
      'CRITIQUING → APPROVED: approved by the gatekeeper: every step is read-only (approval: side-effects)',
    );
  });

  test('a plan with a side-effecting step waits for a person, naming the step; nothing is sent until it is approved, and the audit names who approved', async () => {
    plans.set([LIST, SEND]);
    sent.length = 0;
    const handle = await start('side-effect', { approval: 'side-effects' });
    const waiting = await awaitingApproval(people.alice, handle.workflowId);
    expect(stagesOf(waiting).at(-1)).toBe(
      'CRITIQUING → AWAITING_APPROVAL: a person must approve the plan: step 1.2 (send_payment_reminders) has side effects (approval: side-effects)',
    );
    expect(waiting.steps).toEqual([]); // not routed, let alone run
    expect(sent).toEqual([]);
    await people.bob.approve(handle.workflowId, 'reminders are fine', 1);
    expect((await handle.result()).stage).toBe('COMPLETED');
    expect(sent).toEqual([['Acme']]);
    const approval = (await handle.query(getStateQuery)).audit.find((a) => a.kind === 'approval')!;
    expect(approval).toMatchObject({ message: 'approved by bob@finance: reminders are fine', by: 'bob@finance' });
  });

  test('the old require_approval: true still makes every plan wait (mapped to approval: always)', async () => {
    plans.set([LIST]);
    const handle = await start('legacy', { require_approval: true });
    const waiting = await awaitingApproval(people.alice, handle.workflowId);
    expect(waiting.options).toMatchObject({ approval: 'always', require_approval: true });
    await people.alice.approve(handle.workflowId, undefined, 1);
    expect((await handle.result()).stage).toBe('COMPLETED');
  });
});

describe('who decided, and four eyes', () => {
  test("four_eyes refuses the starter's approval (PLAN-006 naming the rule), takes the starter's rejection and another person's approval, and the audit and history name each", async () => {
    plans.set([LIST, SEND]);
    const handle = await start('four-eyes', { approval: 'always', four_eyes: true });
    const { workflowId } = handle;
    expect((await awaitingApproval(people.alice, workflowId)).started_by).toBe('alice@finance');

    const refused = await refusal(people.alice.approve(workflowId, 'my own plan', 1));
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(readFailure(refused)).toMatchObject({
      code: 'PLAN-006',
      message: 'approve refused by four_eyes: alice@finance started this run, so another person must approve plan v1',
    });
    // A raw client that names no one cannot pass the rule either.
    const anonymous = await refusal(
      client.workflow.getHandle(workflowId).executeUpdate('approve', { args: [{ plan_version: 1 }] }),
    );
    expect(readFailure(anonymous)).toMatchObject({
      code: 'PLAN-006',
      message: expect.stringMatching(/^approve refused by four_eyes: the approval of plan v1 names no identity/),
    });

    await people.alice.reject(workflowId, 'remind Acme only once a week', 1);
    await awaitingApproval(people.alice, workflowId, 2);
    await people.bob.approve(workflowId, 'looks right', 2);
    expect((await handle.result()).stage).toBe('COMPLETED');

    const state = await handle.query(getStateQuery);
    const decisions = state.audit.filter((a) => a.kind === 'approval');
    expect(decisions.map(({ message, by }) => ({ message, by }))).toEqual([
      { message: 'rejected by alice@finance: remind Acme only once a week', by: 'alice@finance' },
      { message: 'approved by bob@finance: looks right', by: 'bob@finance' },
    ]);
    const history = renderHistory(workflowId, state.audit.map(auditEntryView)).join('\n');
    expect(history).toMatch(/approval\s+approved by bob@finance: looks right/);
    // Temporal's own record of the sender agrees (what `planner history` shows beside the audit).
    const accepted = (await people.alice.history(workflowId)).events!.flatMap((e) => {
      const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
      return request?.input?.name === 'approve' ? [request.meta?.identity] : [];
    });
    expect(accepted).toEqual(['bob@finance']);
  });

  test('a budget raise and an approval by another client carry its identity into the audit', async () => {
    plans.set([LIST]);
    const handle = await start('raise', { approval: 'always' });
    await awaitingApproval(people.alice, handle.workflowId);
    await people.bob.raiseBudget(handle.workflowId, { calls: 5 });
    await people.bob.approve(handle.workflowId, undefined, 1);
    expect((await handle.result()).stage).toBe('COMPLETED');
    const audit = (await handle.query(getStateQuery)).audit;
    expect(audit.find((a) => a.kind === 'budget' && a.message.startsWith('limits raised'))).toMatchObject({
      message: 'limits raised by 5 call(s), 0 tokens, $0 (by bob@finance)',
      by: 'bob@finance',
    });
    expect(audit.find((a) => a.kind === 'approval')).toMatchObject({
      message: 'approved by bob@finance',
      by: 'bob@finance',
    });
  });
});

describe('the CLI', () => {
  test("`planner start --approval side-effects --four-eyes` waits on a side-effecting plan; the same person's `planner approve` is refused (exit 2), another's approves, and `planner history` names them", async () => {
    plans.set([LIST, SEND]);
    const workflowId = `cli-${planner.taskQueue}`;
    const goal = 'Remind the customers with overdue invoices';
    const started = await runPlannerCli([
      'start',
      goal,
      '--id',
      workflowId,
      '--task-queue',
      planner.taskQueue,
      '--catalog',
      'invoicing',
      '--planner',
      'llm',
      '--no-plan-cache',
      '--approval',
      'side-effects',
      '--four-eyes',
    ]);
    expect(started.code).toBe(0);
    const waiting = await awaitingApproval(people.alice, workflowId);
    expect(waiting.options).toMatchObject({ approval: 'side-effects', four_eyes: true });
    expect(waiting.started_by).toBe(cliIdentity());

    const own = await runPlannerCli(['approve', workflowId]);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain(`approve refused by four_eyes: ${cliIdentity()} started this run`);
    await people.bob.approve(workflowId, undefined, 1);
    await waitFor(
      async () => (await people.alice.state(workflowId)).stage === 'COMPLETED',
      30_000,
      `${workflowId} completed`,
    );

    const history = await runPlannerCli(['history', workflowId]);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/workflow\s+· started \(by [^)]+\)/);
    expect(history.stdout).toMatch(/approval\s+approved by bob@finance/);
    expect(history.stdout).toMatch(/message\s+· update approve accepted \(by bob@finance\)/);
    // --json: each audit entry that records a decision says which, as `planner audit` reads it.
    const { entries } = JSON.parse((await runPlannerCli(['history', workflowId, '--json'])).stdout);
    expect(entries).toContainEqual(
      expect.objectContaining({ source: 'audit', kind: 'approval', by: 'bob@finance', decision: 'approve' }),
    );
  });

  test('`planner start --approval side-effects --require-approval` contradicts itself: exit 2 before connecting', async () => {
    const run = await runPlannerCli([
      'start',
      'Remind the customers',
      '--approval',
      'side-effects',
      '--require-approval',
      '--address',
      '127.0.0.1:1',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('require_approval: true contradicts approval: side-effects');
  });
});
