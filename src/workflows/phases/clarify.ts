/** AWAITING_CLARIFICATION: waits for an answer (update or signal) or takes the default after the timeout. */
import { condition } from '@temporalio/workflow';
import type { PlanningState } from '../../api/state';
import type { PlanningRun } from '../run';
import { move, type Transition } from '../transitions';

export async function awaitClarification(run: PlanningRun): Promise<Transition> {
  await condition(() => run.state.answer !== null, run.state.options.clarification_timeout_ms);
  run.takeAnswer();
  return move('ANALYZING', 'the answer joins the context');
}

/** The pending question's answer (or its default, by timeout): the clarification kept, the context it adds, the audit note. */
export function answerTaken(state: PlanningState) {
  const question = state.question!;
  const answer = state.answer ?? { text: question.options[question.default_option - 1]!, by: 'timeout' as const };
  return {
    clarification: { question: question.text, answer: answer.text, by: answer.by },
    request: {
      ...state.request,
      context: [
        ...state.request.context,
        { role: 'assistant' as const, content: question.text },
        { role: 'user' as const, content: answer.text },
      ],
    },
    note: `${question.text} → ${answer.text}${answer.by === 'timeout' ? ' (default, no answer in time)' : ''}`,
  };
}
