/** ANALYZING: requirements from the goal; a clear goal goes on to planning, a vague one asks a question. */
import { LLM_CALL_ESTIMATE } from '../../domain/budget';
import { GoalUnclearError } from '../../domain/errors';
import { planningActivities } from '../activities';
import { nowIso } from '../initial-state';
import { llmSettingsOf } from '../llm-settings';
import type { PlanningRun } from '../run';
import { failWith, move, type Transition } from '../transitions';
import { pauseForBudget } from './budget';
import { planningCall } from './planning-call';

export async function analyze(run: PlanningRun): Promise<Transition> {
  const pause = run.mayCallLlm ? pauseForBudget(run, LLM_CALL_ESTIMATE, 'requirements analysis') : null;
  if (pause) return pause;
  const { state } = run;
  const called = await planningCall(
    run,
    {
      kind: 'analysis',
      charged: 'requirements analysis',
      failed: { charge: 'failed requirements analysis', while: 'requirements analysis' },
    },
    () =>
      planningActivities(`analyze: ${state.request.goal.slice(0, 80)}`, !run.mayCallLlm).analyzeRequirements({
        request: state.request,
        ...llmSettingsOf(run),
      }),
  );
  if (called.next) return called.next;
  const analysis = called.result;
  const { requirements, llm_calls, transcript_ref } = analysis;
  if (analysis.fallback) run.audit('analysis', analysis.fallback);
  if (analysis.note) run.audit('analysis', analysis.note);
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
