/**
 * Budget policy `fail` on the real dev server: a plan that cannot fit what the budget has left ends the run with
 * BudgetExceededError (PLAN-004) before any step runs, naming the work and each shortfall; no pause, no raise awaited.
 */
import { getStateQuery } from '../../src/api/messages';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';
import { failureOfRun } from '../support/temporal';

const fixtures = useWastePackAndClient();

test('under policy fail, a plan that does not fit the budget ends the run with PLAN-004 and runs nothing', async () => {
  const planner = await startTestPlanner(fixtures.pack(), { prefix: 'budget-fail' });
  try {
    const handle = await fixtures.client().workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `budget-fail-${planner.taskQueue}`,
      args: [
        {
          request: {
            goal: 'Get contaminated shipments from last week and show me the contaminant details',
            planner: 'ranking',
            budget: { cost_usd: 1, tokens: 100_000, calls: 1, policy: 'fail' },
          },
        },
      ],
    });
    const failure = await failureOfRun(handle);
    expect(failure).toMatchObject({
      type: 'BudgetExceededError',
      code: 'PLAN-004',
      message: expect.stringMatching(
        /^budget exceeded by plan v1's remaining 2 step\(s\): calls required 2, available 1/,
      ),
      details: { shortfalls: [{ dimension: 'calls', required: 2, available: 1 }] },
    });

    const state = await handle.query(getStateQuery);
    expect(state.stage).toBe('FAILED');
    expect(state.failure?.code).toBe('PLAN-004');
    expect(state.stage_before_budget).toBeNull();
    expect(state.steps.map((s) => s.status)).toEqual(['PENDING', 'PENDING']);
    expect(state.budget.spent.calls).toBe(0);
  } finally {
    await planner.stop();
  }
});
