/** APPROVED → ROUTED: every step goes to the task queue of a pool serving its tool; completed steps are kept. */
import { workflowInfo } from '@temporalio/workflow';
import type { StepRecord } from '../../api/state';
import { flattenSteps } from '../../domain/plan';
import { routeSteps } from '../../domain/routing';
import type { PlanningRun } from '../run';
import { stepKey } from '../step-key';
import { move, type Transition } from '../transitions';

export async function route(run: PlanningRun): Promise<Transition> {
  const { state } = run;
  const steps = flattenSteps(state.plan!);
  const { decisions, turns } = routeSteps(steps, state.routes, workflowInfo().taskQueue, state.route_turns);
  const records = steps.map((step, index): StepRecord => {
    const done = state.completed_steps[stepKey(step)];
    const base = { index, id: step.id, title: step.title, tool: step.tool, queue: decisions[index]!.queue };
    return done
      ? { ...base, status: 'COMPLETED', result: done.result, completed_in_version: done.version }
      : { ...base, status: 'PENDING' };
  });
  run.recordRouting(records, decisions, turns);
  return move('ROUTED', `${steps.length} step(s) routed`);
}
