/**
 * A phase's planning call, one way for analysis, plan generation and critique: run the activity; charge the LLM calls
 * it made, failed or not, and audit a provider fallback; read a failure and, where the phase has a way on without the
 * LLM (planner `auto` after every provider failed), take it, else fail the run. A cancellation passes through.
 */
import { isCancellation } from '@temporalio/workflow';
import { llmCallsOfFailure, readFailure, type PlanFailure } from '../../api/failures';
import type { AuditEntry } from '../../api/state';
import { isProviderOutage, providerFallbackNote, usageOfLlmCalls, type LlmCallUsage } from '../../domain/llm-calls';
import type { PlanningRun } from '../run';
import { failedWhile, type Transition } from '../transitions';

export interface PlanningCall {
  /** The audit entries' kind: 'analysis', 'plan' or 'critique'. */
  kind: AuditEntry['kind'];
  /** What the charge is for, as the budget's audit says it ("requirements analysis", "plan v2"). */
  charged: string;
  /** What failed, as the charge of a failed call and the run's failure say it. */
  failed: { charge: string; while: string };
  /**
   * The phase again without the LLM, when every provider failed and the run plans with `auto`: the audit's note
   * (given the failure), and the phase to run once the run plans by ranking.
   */
  withoutLlm?: { note: (failure: PlanFailure) => string; again: () => Promise<Transition> };
}

/** The call's result, or the transition the run takes instead (failed, or the phase again without the LLM). */
export type PlanningCallOutcome<R> = { result: R; next?: never } | { next: Transition };

export async function planningCall<R extends { llm_calls: LlmCallUsage[] }>(
  run: PlanningRun,
  how: PlanningCall,
  call: () => Promise<R>,
): Promise<PlanningCallOutcome<R>> {
  let result: R;
  try {
    result = await call();
  } catch (err) {
    if (isCancellation(err)) throw err;
    run.charge(usageOfLlmCalls(llmCallsOfFailure(err)), how.failed.charge);
    const failure = readFailure(err);
    if (how.withoutLlm && run.state.planner_auto && run.mayCallLlm && isProviderOutage(failure.details)) {
      run.planWithRanking(how.withoutLlm.note(failure));
      return { next: await how.withoutLlm.again() }; // by ranking now: no LLM call, no second fallback
    }
    return { next: failedWhile(how.failed.while, failure) };
  }
  run.charge(usageOfLlmCalls(result.llm_calls), how.charged);
  const fellBack = providerFallbackNote(result.llm_calls);
  if (fellBack) run.audit(how.kind, fellBack);
  return { result };
}
