/** BUDGET_EXHAUSTED: waits for `raiseBudget` to cover the paused work, then returns to the stage that paused. */
import { condition } from '@temporalio/workflow';
import type { PlanningState } from '../../api/state';
import { canAfford, remaining, shortfalls, type ToolBudget, type Usage } from '../../domain/budget';
import { BudgetExceededError, PlanningTimeoutError } from '../../domain/errors';
import type { PlanningRun } from '../run';
import { failWith, type Transition } from '../transitions';

export async function awaitBudget(run: PlanningRun): Promise<Transition> {
  const { options } = run.state;
  const raised = await condition(() => budgetCoversNeed(run.state), options.budget_timeout_ms);
  if (!raised) {
    return failWith(
      new PlanningTimeoutError(`budget exhausted and not raised within ${options.budget_timeout_ms} ms`, {
        stage: 'BUDGET_EXHAUSTED',
        needs: run.state.budget_needed,
      }),
    );
  }
  return {
    to: run.state.stage_before_budget as Exclude<Transition['to'], 'FAILED' | 'BUDGET_EXHAUSTED'>,
    why: 'budget raised',
  } as Transition;
}

/** Whether the budget now covers what the paused work needs. */
export function budgetCoversNeed(state: PlanningState): boolean {
  return state.budget_needed === null || canAfford(state.budget, state.budget_needed);
}

/**
 * The budget gate on the run: under `block` work that does not fit pauses it, under `fail` it ends it with PLAN-004 (the
 * transition returned); under `warn` it is noted.
 */
export function pauseForBudget(run: PlanningRun, estimate: Usage, what: string): Transition | null {
  const gate = budgetGate(run.state.budget, estimate, what);
  if (gate.warning) run.warn(gate.warning);
  return gate.pause;
}

/**
 * The budget gate: work that fits passes; under `warn` work that does not is noted, under `block` it pauses the run,
 * under `fail` it fails the run with BudgetExceededError (PLAN-004) naming each shortfall.
 */
export function budgetGate(
  budget: ToolBudget,
  estimate: Usage,
  what: string,
): { pause: Transition | null; warning?: string } {
  if (canAfford(budget, estimate)) return { pause: null };
  if (budget.policy === 'warn')
    return { pause: null, warning: `${what} does not fit the budget (policy warn: continuing)` };
  if (budget.policy === 'fail') return { pause: failWith(new BudgetExceededError(shortfalls(budget, estimate), what)) };
  return { pause: budgetPause(budget, estimate, what) };
}

/** The pause for work the budget cannot cover, saying what it needs and what is left. */
export function budgetPause(budget: ToolBudget, estimate: Usage, what: string): Transition {
  const left = remaining(budget);
  const why = `${what} needs ${estimate.calls} call(s), ${estimate.tokens} tokens, $${estimate.cost_usd}; left: ${left.calls} call(s), ${left.tokens} tokens, $${left.cost_usd.toFixed(6)}`;
  return { to: 'BUDGET_EXHAUSTED', needs: estimate, why };
}
