/**
 * `planner audit` on the real dev server: two runs on one task queue, one rejected then approved, one answered by a
 * person and paused for budget then raised; the CLI lists their decisions by kind and who made them, filters by kind,
 * time, queue and count, and, once no worker can answer for the runs, still lists what people sent from history.
 */
import {
  approveUpdate,
  answerClarificationUpdate,
  getStateQuery,
  raiseBudgetUpdate,
  rejectUpdate,
} from '../../src/api';
import type { DecisionView } from '../../src/cli/decisions';
import { planningWorkflow } from '../../src/workflows';
import { plannerCliJson, runPlannerCli } from '../support/cli';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';
import { waitFor } from '../support/temporal';

const fixtures = useWastePackAndClient();

type Audit = { runsRead: number; decisions: DecisionView[] };

test('planner audit lists the decisions of two runs by kind and who decided, from the audit and from history', async () => {
  const planner = await startTestPlanner(fixtures.pack(), { prefix: 'cli-audit' });
  const queue = planner.taskQueue;
  const stageOf = async (h: { query: (q: typeof getStateQuery) => Promise<{ stage: string }> }) =>
    (await h.query(getStateQuery)).stage;
  let stopped = false;
  try {
    const client = fixtures.client();
    const reviewed = await client.workflow.start(planningWorkflow, {
      taskQueue: queue,
      workflowId: `audit-reviewed-${queue}`,
      args: [
        {
          request: { goal: 'Get contaminated shipments from last week', planner: 'ranking' },
          options: { approval: 'always' },
        },
      ],
    });
    await waitFor(async () => (await stageOf(reviewed)) === 'AWAITING_APPROVAL', 30_000, 'plan v1 to approve');
    await reviewed.executeUpdate(rejectUpdate, {
      args: [{ plan_version: 1, reason: 'only the high-risk ones', identity: 'alice@ops' }],
    });
    await waitFor(
      async () => (await reviewed.query(getStateQuery)).approval?.status === 'pending',
      30_000,
      'plan v2 to approve',
    );
    await reviewed.executeUpdate(approveUpdate, { args: [{ plan_version: 2, identity: 'bob@ops' }] });
    expect((await reviewed.result()).stage).toBe('COMPLETED');
    const betweenRuns = new Date().toISOString();

    const answered = await client.workflow.start(planningWorkflow, {
      taskQueue: queue,
      workflowId: `audit-answered-${queue}`,
      args: [
        {
          request: {
            goal: 'Check the reports',
            planner: 'ranking',
            budget: { cost_usd: 1, tokens: 100_000, calls: 0 },
          },
        },
      ],
    });
    await waitFor(async () => (await stageOf(answered)) === 'AWAITING_CLARIFICATION', 30_000, 'the question');
    await answered.executeUpdate(answerClarificationUpdate, { args: [{ option: 1, identity: 'carol@ops' }] });
    await waitFor(async () => (await stageOf(answered)) === 'BUDGET_EXHAUSTED', 30_000, 'the budget pause');
    await answered.executeUpdate(raiseBudgetUpdate, { args: [{ calls: 10, identity: 'dave@ops' }] });
    expect((await answered.result()).stage).toBe('COMPLETED');

    const all = await plannerCliJson<Audit>(['audit', '--task-queue', queue]);
    expect(all.runsRead).toBe(2);
    const seen = all.decisions.map((d) => [d.workflowId, d.kind, d.by, d.source]);
    expect(seen).toEqual(
      expect.arrayContaining([
        [reviewed.workflowId, 'rejection', 'alice@ops', 'audit'],
        [reviewed.workflowId, 'approval', 'bob@ops', 'audit'],
        [reviewed.workflowId, 'approval', 'gatekeeper', 'audit'],
        [answered.workflowId, 'answer', 'carol@ops', 'audit'],
        [answered.workflowId, 'budget', 'planner', 'audit'],
        [answered.workflowId, 'budget', 'dave@ops', 'audit'],
      ]),
    );
    expect(all.decisions.map((d) => d.at)).toEqual(
      all.decisions
        .map((d) => d.at)
        .sort()
        .reverse(),
    );
    expect(all.decisions.find((d) => d.kind === 'rejection')!.message).toContain('only the high-risk ones');

    const people = await plannerCliJson<Audit>(['audit', '--task-queue', queue, '--kind', 'rejection', 'answer']);
    expect(people.decisions.map((d) => [d.kind, d.by]).sort()).toEqual([
      ['answer', 'carol@ops'],
      ['rejection', 'alice@ops'],
    ]);
    const newest = await plannerCliJson<Audit>(['audit', '--task-queue', queue, '--limit', '1']);
    expect(newest.decisions).toEqual([all.decisions[0]]);
    // Since the first run closed: visibility leaves it out, and only the second run's decisions remain.
    const recent = await plannerCliJson<Audit>(['audit', '--task-queue', queue, '--since', betweenRuns]);
    expect(recent.runsRead).toBe(1);
    expect(new Set(recent.decisions.map((d) => d.workflowId))).toEqual(new Set([answered.workflowId]));
    expect(recent.decisions.length).toBeGreaterThanOrEqual(3);
    const future = await plannerCliJson<Audit>(['audit', '--task-queue', queue, '--since', '2999-01-01']);
    expect(future.decisions).toEqual([]);
    expect((await plannerCliJson<Audit>(['audit', '--task-queue', `${queue}-none`])).runsRead).toBe(0);

    const text = await runPlannerCli(['audit', '--task-queue', queue, '--kind', 'budget']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`budget +${answered.workflowId} +dave@ops: limits raised by 10 call`));

    const refused = await runPlannerCli(['audit', '--kind', 'coffee']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('kinds are approval, rejection, budget, re-plan, edit, re-run, answer;');

    // No worker now: what people sent comes from Temporal's history, with the identity they sent.
    await planner.stop();
    stopped = true;
    const fromHistory = await plannerCliJson<Audit>(['audit', '--task-queue', queue], {
      PLANNER_QUERY_TIMEOUT_MS: '1000',
    });
    expect(fromHistory.decisions.map((d) => [d.workflowId, d.kind, d.by, d.source]).sort()).toEqual(
      [
        [answered.workflowId, 'answer', 'carol@ops', 'history'],
        [answered.workflowId, 'budget', 'dave@ops', 'history'],
        [reviewed.workflowId, 'approval', 'bob@ops', 'history'],
        [reviewed.workflowId, 'rejection', 'alice@ops', 'history'],
      ].sort(),
    );
  } finally {
    if (!stopped) await planner.stop();
  }
});
