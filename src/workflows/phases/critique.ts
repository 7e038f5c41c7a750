/** CRITIQUING: critics review the plan; the gatekeeper refines, rejects, or passes it on (to a person if asked). */
import { isCancellation } from '@temporalio/workflow';
import { llmCallsOfFailure, readFailure } from '../../api/failures';
import { approvalMode } from '../../api/input';
import { approvalGate } from '../../domain/approval-gate';
import { decide } from '../../domain/critique';
import { PlanRejectedError } from '../../domain/errors';
import { isProviderOutage, providerFallbackNote, usageOfLlmCalls } from '../../domain/llm-calls';
import { planningActivities } from '../activities';
import { forecastCost } from '../forecast';
import { llmSettingsOf } from '../llm-settings';
import type { PlanningRun } from '../run';
import { failedWhile, failWith, move, type Transition } from '../transitions';

export async function critique(run: PlanningRun): Promise<Transition> {
  const { state } = run;
  const plan = state.plan!;
  let critiqued;
  try {
    critiqued = await planningActivities(`critique plan v${plan.version}`, !run.mayCallLlm).critiquePlan({
      plan,
      request: state.request,
      budget: state.budget,
      ...llmSettingsOf(run),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    run.charge(usageOfLlmCalls(llmCallsOfFailure(err)), 'failed critique');
    const failure = readFailure(err);
    if (state.planner_auto && run.mayCallLlm && isProviderOutage(failure.details)) {
      run.planWithRanking(
        `critique of plan v${plan.version}: every LLM provider failed (${failure.message}); planner auto goes on without LLM critics and plans any next version by ranking`,
      );
      return await critique(run); // the rule critics now: no LLM call, no second fallback
    }
    return failedWhile('critique', failure);
  }
  run.charge(usageOfLlmCalls(critiqued.llm_calls), 'critique');
  const fellBack = providerFallbackNote(critiqued.llm_calls);
  if (fellBack) run.audit('critique', fellBack);
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
  const gate = approvalGate(approvalMode(state.options), plan, state.routes);
  const unhonoured = state.versions.find((v) => v.version === plan.version)?.unhonoured_rejection;
  if (!gate.wait && !unhonoured) return move('APPROVED', gate.why);
  run.awaitApproval();
  return move('AWAITING_APPROVAL', gate.wait ? gate.why : `a person must decide again: ${unhonoured}`);
}
