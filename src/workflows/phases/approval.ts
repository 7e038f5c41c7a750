/** AWAITING_APPROVAL: a person approves the plan, or rejects it with a reason that shapes the next version. */
import { condition } from '@temporalio/workflow';
import { PlanningTimeoutError } from '../../domain/errors';
import type { PlanningRun } from '../run';
import { failWith, move, type Transition } from '../transitions';

export async function awaitApproval(run: PlanningRun): Promise<Transition> {
  const { options } = run.state;
  const decided = await condition(() => run.state.approval?.status !== 'pending', options.approval_timeout_ms);
  if (!decided) return failWith(new PlanningTimeoutError(`no approval within ${options.approval_timeout_ms} ms`, { stage: 'AWAITING_APPROVAL' }));
  const approval = run.state.approval!;
  if (approval.status === 'approved') return move('APPROVED', 'approved by a person');
  run.requestVersion('human_rejection', [`rejected by a person: ${approval.reason}`]);
  return move('PLANNING', `rejected: ${approval.reason}`);
}
