/** AWAITING_APPROVAL: a person approves the plan, or rejects it with a reason that shapes the next version. */
import { condition } from '@temporalio/workflow';
import { DEFAULT_PLANNING_OPTIONS } from '../../api/input';
import { PlanRejectedError, PlanningTimeoutError } from '../../domain/errors';
import type { PlanningRun } from '../run';
import { failWith, move, type Transition } from '../transitions';

export async function awaitApproval(run: PlanningRun): Promise<Transition> {
  const { options } = run.state;
  const decided = await condition(() => run.state.approval?.status !== 'pending', options.approval_timeout_ms);
  if (!decided)
    return failWith(
      new PlanningTimeoutError(`no approval within ${options.approval_timeout_ms} ms`, { stage: 'AWAITING_APPROVAL' }),
    );
  const approval = run.state.approval!;
  if (approval.status === 'approved') return move('APPROVED', 'approved by a person');
  if (approval.status === 'edited')
    return move('PLANNING', `a person gave plan v${run.state.given_plan?.plan.version}`);
  // Each rejection makes a version: a cap keeps a run from growing without end.
  const cap = options.max_rejections ?? DEFAULT_PLANNING_OPTIONS.max_rejections;
  const rejections = (run.state.rejections ?? 0) + 1;
  if (rejections >= cap) {
    const version = run.state.plan?.version;
    return failWith(
      new PlanRejectedError(
        `plan v${version} rejected by a person (${approval.reason}); ${rejections} rejections reach max_rejections (${cap}), so the run ends`,
        { plan_version: version, rejections, max_rejections: cap },
      ),
    );
  }
  run.requestVersion('human_rejection', [`rejected by a person: ${approval.reason}`]);
  return move('PLANNING', `rejected: ${approval.reason}`);
}
