/** CRITIQUING: critics review the plan; the gatekeeper refines, rejects, or passes it on (to a person if asked). */
import { approvalMode } from '../../api/input';
import { approvalGate } from '../../domain/approval-gate';
import { decide } from '../../domain/critique';
import { PlanRejectedError } from '../../domain/errors';
import { planningActivities } from '../activities';
import { forecastCost } from '../forecast';
import { llmSettingsOf } from '../llm-settings';
import type { PlanningRun } from '../run';
import { failWith, move, type Transition } from '../transitions';
import { planningCall } from './planning-call';

export async function critique(run: PlanningRun): Promise<Transition> {
  const { state } = run;
  const plan = state.plan!;
  const called = await planningCall(
    run,
    {
      kind: 'critique',
      charged: 'critique',
      failed: { charge: 'failed critique', while: 'critique' },
      withoutLlm: {
        note: (failure) =>
          `critique of plan v${plan.version}: every LLM provider failed (${failure.message}); planner auto goes on without LLM critics and plans any next version by ranking`,
        again: () => critique(run), // the rule critics now
      },
    },
    () =>
      planningActivities(`critique plan v${plan.version}`, !run.mayCallLlm).critiquePlan({
        plan,
        request: state.request,
        budget: state.budget,
        ...llmSettingsOf(run),
      }),
  );
  if (called.next) return called.next;
  const critiqued = called.result;
  run.recordCritiques(critiqued.critiques, critiqued.transcript_ref);
  const policy = {
    strict: state.options.strict_critique,
    max_refinements: state.options.max_refinements,
    refinements_done: state.refinements,
  };
  const decision = decide(critiqued.critiques, policy); // pure domain code: no activity's round trip
  run.recordDecision(decision);
  if (decision.decision === 'refine') {
    const feedback = decision.blocking.map(
      (c) => `${c.critic}${c.step_id ? ` (step ${c.step_id})` : ''}: ${c.message}. ${c.suggestion}`,
    );
    run.requestVersion('refinement', feedback);
    return move('PLANNING', decision.reason);
  }
  if (decision.decision === 'reject') {
    return failWith(
      new PlanRejectedError(`the gatekeeper rejected plan v${plan.version}: ${decision.reason}`, {
        plan_version: plan.version,
      }),
    );
  }
  await forecastCost(run);
  // A person's edit waits for a person again, whatever the mode: under four_eyes, another one.
  const gate =
    state.versions.at(-1)?.reason === 'human_edit'
      ? { wait: true, why: `a person must approve plan v${plan.version}: a person edited it` }
      : approvalGate(approvalMode(state.options), plan, state.routes);
  const unhonoured = state.versions.find((v) => v.version === plan.version)?.unhonoured_rejection;
  if (!gate.wait && !unhonoured) return move('APPROVED', gate.why);
  run.awaitApproval();
  return move('AWAITING_APPROVAL', gate.wait ? gate.why : `a person must decide again: ${unhonoured}`);
}
