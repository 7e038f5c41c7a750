import {
  callUsage,
  canAfford,
  charge,
  createBudget,
  estimateStepsUsage,
  LLM_CALL_ESTIMATE,
  remaining,
  requireAffordable,
  stepUsageEstimate,
  withinLimits,
} from '../../../src/domain/budget';
import { BudgetExceededError, InvalidInputError } from '../../../src/domain/errors';
import { indexCatalog } from '../../../src/domain/tool-spec';
import { catalog } from '../../support/plans';

describe('ToolBudget', () => {
  const budget = createBudget({ cost_usd: 1, tokens: 1000, calls: 3 });

  it('starts empty, blocking by default', () => {
    expect(budget.policy).toBe('block');
    expect(budget.spent).toEqual({ cost_usd: 0, tokens: 0, calls: 0 });
    expect(remaining(budget)).toEqual({ cost_usd: 1, tokens: 1000, calls: 3 });
  });

  it('charge returns a new budget and leaves the old one untouched (and frozen)', () => {
    const after = charge(budget, callUsage(0.25, 300));
    expect(after).not.toBe(budget);
    expect(budget.spent).toEqual({ cost_usd: 0, tokens: 0, calls: 0 });
    expect(after.spent).toEqual({ cost_usd: 0.25, tokens: 300, calls: 1 });
    expect(remaining(after)).toEqual({ cost_usd: 0.75, tokens: 700, calls: 2 });
    expect(Object.isFrozen(after) && Object.isFrozen(after.spent) && Object.isFrozen(after.limit)).toBe(true);
    expect(() => {
      (after.spent as { calls: number }).calls = 0;
    }).toThrow(TypeError);
  });

  it('counts one call per LLM or tool call', () => {
    expect(callUsage(0.01, 50)).toEqual({ cost_usd: 0.01, tokens: 50, calls: 1 });
  });

  it('adds cents without floating-point drift', () => {
    const b = charge(
      charge(createBudget({ cost_usd: 0.3, tokens: 10, calls: 10 }), callUsage(0.1, 0)),
      callUsage(0.2, 0),
    );
    expect(b.spent.cost_usd).toBe(0.3);
    expect(withinLimits(b)).toBe(true);
  });

  it('records overspend, and withinLimits turns false', () => {
    const over = charge(budget, { cost_usd: 0, tokens: 0, calls: 4 });
    expect(withinLimits(over)).toBe(false);
    expect(remaining(over).calls).toBe(0);
  });

  it('canAfford compares an estimate with what is left, per dimension', () => {
    const spent = charge(budget, callUsage(0.5, 900));
    expect(canAfford(spent, { cost_usd: 0.5, tokens: 100, calls: 2 })).toBe(true);
    expect(canAfford(spent, { cost_usd: 0.5, tokens: 101, calls: 2 })).toBe(false);
    expect(canAfford(spent, { cost_usd: 0.51, tokens: 0, calls: 0 })).toBe(false);
  });

  it('requireAffordable throws BudgetExceededError with required vs available for each short dimension', () => {
    const spent = charge(budget, callUsage(0.5, 900));
    let error: unknown;
    try {
      requireAffordable(spent, { cost_usd: 0.75, tokens: 50, calls: 5 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).shortfalls).toEqual([
      { dimension: 'cost_usd', required: 0.75, available: 0.5 },
      { dimension: 'calls', required: 5, available: 2 },
    ]);
    expect((error as BudgetExceededError).code).toBe('PLAN-004');
  });

  it('under the warn policy requireAffordable returns the shortfalls instead of throwing', () => {
    const warn = createBudget({ cost_usd: 0, tokens: 0, calls: 0, policy: 'warn' });
    expect(requireAffordable(warn, callUsage(0, 1))).toEqual([
      { dimension: 'tokens', required: 1, available: 0 },
      { dimension: 'calls', required: 1, available: 0 },
    ]);
    expect(requireAffordable(warn, { cost_usd: 0, tokens: 0, calls: 0 })).toEqual([]);
  });

  it('rejects negative or fractional amounts', () => {
    expect(() => createBudget({ cost_usd: -1, tokens: 0, calls: 0 })).toThrow(InvalidInputError);
    expect(() => charge(budget, { cost_usd: 0, tokens: 1.5, calls: 0 })).toThrow(InvalidInputError);
    expect(() => charge(budget, { cost_usd: NaN, tokens: 0, calls: 0 })).toThrow(InvalidInputError);
  });

  it('estimates steps from the catalog: tool calls at tool cost, llm steps as one LLM call, others free', () => {
    const steps = [
      { action: 'tool_call' as const, tool: 'shipments' },
      { action: 'tool_call' as const, tool: 'contaminants-detected' },
      { action: 'llm' as const, tool: null },
      { action: 'human' as const, tool: null },
      { action: 'noop' as const, tool: null },
    ];
    expect(LLM_CALL_ESTIMATE).toEqual({ cost_usd: 0, tokens: 2_000, calls: 1 });
    expect(estimateStepsUsage(steps, indexCatalog(catalog))).toEqual({ cost_usd: 0.003, tokens: 3000, calls: 3 });
    expect(stepUsageEstimate('llm', undefined)).toEqual(LLM_CALL_ESTIMATE);
    expect(stepUsageEstimate('tool_call', undefined)).toEqual(callUsage(0, 0));
  });
});
