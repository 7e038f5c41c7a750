/** BUDGET_EXHAUSTED: waits for `raiseBudget` to cover the paused work, then returns to the stage that paused. */
import { condition } from '@temporalio/workflow';
import { PlanningTimeoutError } from '../../domain/errors';
import type { PlanningRun } from '../run';
import { failWith, type Transition } from '../transitions';

export async function awaitBudget(run: PlanningRun): Promise<Transition> {
  const { options } = run.state;
  const raised = await condition(() => run.budgetCoversNeed, options.budget_timeout_ms);
  if (!raised) {
    return failWith(new PlanningTimeoutError(`budget exhausted and not raised within ${options.budget_timeout_ms} ms`, { stage: 'BUDGET_EXHAUSTED', needs: run.state.budget_needed }));
  }
  return { to: run.state.stage_before_budget as Exclude<Transition['to'], 'FAILED' | 'BUDGET_EXHAUSTED'>, why: 'budget raised' } as Transition;
}
