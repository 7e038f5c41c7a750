/** ANALYZING: requirements from the goal; a clear goal goes on to planning, a vague one asks a question. */
import { isCancellation } from '@temporalio/workflow';
import { llmCallsOfFailure, readFailure } from '../../api/failures';
import { GoalUnclearError } from '../../domain/errors';
import { LLM_CALL_ESTIMATE, providerFallbackNote, usageOfLlmCalls } from '../../domain/llm-calls';
import { planningActivities } from '../activities';
import { nowIso } from '../initial-state';
import { llmSettingsOf } from '../llm-settings';
import type { PlanningRun } from '../run';
import { failedWhile, failWith, move, type Transition } from '../transitions';
import { pauseForBudget } from './budget';

export async function analyze(run: PlanningRun): Promise<Transition> {
  const pause = run.mayCallLlm ? pauseForBudget(run, LLM_CALL_ESTIMATE, 'requirements analysis') : null;
  if (pause) return pause;
  const { state } = run;
  let analysis;
  try {
    analysis = await planningActivities(
      `analyze: ${state.request.goal.slice(0, 80)}`,
      !run.mayCallLlm,
    ).analyzeRequirements({ request: state.request, ...llmSettingsOf(run) });
  } catch (err) {
    if (isCancellation(err)) throw err;
    run.charge(usageOfLlmCalls(llmCallsOfFailure(err)), 'failed requirements analysis');
    return failedWhile('requirements analysis', readFailure(err));
  }
  const { requirements, llm_calls, transcript_ref } = analysis;
  run.charge(usageOfLlmCalls(llm_calls), 'requirements analysis');
  const fellBack = providerFallbackNote(llm_calls);
  if (fellBack) run.audit('analysis', fellBack);
  if (analysis.fallback) run.audit('analysis', analysis.fallback);
  const c =
    requirements.is_clear || state.clarifications.length >= state.options.max_clarifications
      ? null
      : requirements.clarification!;
  const question = c && {
    text: c.question,
    options: c.options,
    default_option: c.default_option + 1,
    asked_at: nowIso(),
  };
  // Results recorded before activities named their analyzer ran the rules unless they made LLM calls.
  run.recordAnalysis(
    analysis.analyzer ?? (llm_calls.length > 0 ? 'llm' : 'rules'),
    requirements,
    transcript_ref,
    question,
  );
  if (requirements.is_clear) return move('PLANNING', 'requirements are clear');
  if (!question)
    return failWith(
      new GoalUnclearError(`the goal is still unclear after ${state.clarifications.length} clarification(s)`),
    );
  return move('AWAITING_CLARIFICATION', question.text);
}
