/** AWAITING_CLARIFICATION: waits for an answer (update or signal) or takes the default after the timeout. */
import { condition } from '@temporalio/workflow';
import type { PlanningRun } from '../run';
import { move, type Transition } from '../transitions';

export async function awaitClarification(run: PlanningRun): Promise<Transition> {
  await condition(() => run.state.answer !== null, run.state.options.clarification_timeout_ms);
  run.takeAnswer();
  return move('ANALYZING', 'the answer joins the context');
}
