/** The budget gate every phase passes before work that costs: each policy's answer to work that does not fit. */
import { charge, createBudget, type BudgetPolicy } from '../../../src/domain/budget';
import { budgetGate } from '../../../src/workflows/phases/budget';

const need = { cost_usd: 0, tokens: 0, calls: 3 };
const nearlySpent = (policy: BudgetPolicy) =>
  charge(createBudget({ cost_usd: 1, tokens: 1_000, calls: 3, policy }), { cost_usd: 0, tokens: 0, calls: 2 });

test('work that fits passes under every policy', () => {
  for (const policy of ['warn', 'block', 'fail'] as const)
    expect(budgetGate(nearlySpent(policy), { ...need, calls: 1 }, 'step 1.1')).toEqual({ pause: null });
});

test('work that does not fit: warn notes it, block pauses for a raise, fail ends the run with PLAN-004', () => {
  expect(budgetGate(nearlySpent('warn'), need, 'step 1.1')).toEqual({
    pause: null,
    warning: 'step 1.1 does not fit the budget (policy warn: continuing)',
  });
  expect(budgetGate(nearlySpent('block'), need, 'step 1.1').pause).toMatchObject({
    to: 'BUDGET_EXHAUSTED',
    needs: need,
  });
  expect(budgetGate(nearlySpent('fail'), need, 'step 1.1').pause).toEqual({
    to: 'FAILED',
    failure: expect.objectContaining({
      type: 'BudgetExceededError',
      code: 'PLAN-004',
      message: 'budget exceeded by step 1.1: calls required 3, available 1',
      details: { shortfalls: [{ dimension: 'calls', required: 3, available: 1 }] },
    }),
  });
});
