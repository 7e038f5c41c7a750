/**
 * Whether a message may be accepted now, and its parsed payload: pure checks over the run's state, shared by the
 * update validators (which refuse before anything is written to history) and the handlers. A refusal is the typed
 * failure activities use too: PLAN-006 with a hint.
 */
import { planFailureToApplicationFailure } from '../api/failures';
import {
  BUDGET_MAXIMA,
  MESSAGE_NAMES,
  parseMessagePayload,
  type ApproveInput,
  type ClarificationAnswer,
  type MessagePayload,
  type MessageWithPayload,
  type RaiseBudgetInput,
  type RejectInput,
} from '../api/messages';
import type { PlanningState } from '../api/state';
import { addUsage } from '../domain/budget';
import { InvalidInputError, PlannerError } from '../domain/errors';
import { isTerminal } from '../domain/stages';

function refuse(message: string, hint: string): never {
  throw planFailureToApplicationFailure(new InvalidInputError(message, hint));
}

function parse<M extends MessageWithPayload>(message: M, payload: unknown): MessagePayload<M> {
  try {
    return parseMessagePayload(message, payload);
  } catch (err) {
    if (err instanceof PlannerError) throw planFailureToApplicationFailure(err);
    throw err;
  }
}

/** The answer and the text it stands for (an option's text, or the free text). */
export function checkAnswer(state: PlanningState, payload: unknown): { answer: ClarificationAnswer; text: string } {
  const { stage, question } = state;
  if (stage !== 'AWAITING_CLARIFICATION' || !question) {
    refuse(`no question is pending (stage ${stage})`, 'Query getState; answer only while the stage is AWAITING_CLARIFICATION.');
  }
  const answer = parse(MESSAGE_NAMES.answerClarification, payload);
  if ('option' in answer && answer.option > question.options.length) {
    refuse(
      `option ${answer.option} does not exist; choose 1–${question.options.length}: ${question.options.map((o, i) => `${i + 1}. ${o}`).join(' ')}`,
      'Send {"option": n} with n from the list, or {"text": "…"}.',
    );
  }
  return { answer, text: 'option' in answer ? question.options[answer.option - 1]! : answer.text };
}

function requireApprovalStage(state: PlanningState): void {
  if (state.stage !== 'AWAITING_APPROVAL') {
    refuse(`nothing awaits approval (stage ${state.stage})`, 'Query getState; approve or reject only while the stage is AWAITING_APPROVAL.');
  }
}

/** A decision names the version it is about (old clients may omit it); any other version is refused. */
function requireShownVersion(state: PlanningState, decision: { plan_version?: number | undefined }, message: string): void {
  const current = state.plan?.version;
  if (decision.plan_version !== undefined && decision.plan_version !== current) {
    refuse(
      `${message} is for plan v${decision.plan_version}, but the plan awaiting approval is v${current}`,
      `Query getState, review plan v${current}, and send {"plan_version": ${current}, …}.`,
    );
  }
}

export function checkApproval(state: PlanningState, payload: unknown): ApproveInput {
  requireApprovalStage(state);
  const approval = parse(MESSAGE_NAMES.approve, payload);
  requireShownVersion(state, approval, MESSAGE_NAMES.approve);
  return approval;
}

export function checkRejection(state: PlanningState, payload: unknown): RejectInput {
  requireApprovalStage(state);
  const rejection = parse(MESSAGE_NAMES.reject, payload);
  requireShownVersion(state, rejection, MESSAGE_NAMES.reject);
  return rejection;
}

export function checkRaise(state: PlanningState, payload: unknown): RaiseBudgetInput {
  if (isTerminal(state.stage)) refuse(`the run is ${state.stage}`, 'Budgets can be raised only on a run that has not ended.');
  const raise = parse(MESSAGE_NAMES.raiseBudget, payload);
  const limit = addUsage(state.budget.limit, raise);
  const over = (Object.keys(BUDGET_MAXIMA) as (keyof typeof BUDGET_MAXIMA)[]).filter((d) => limit[d] > BUDGET_MAXIMA[d]);
  if (over.length > 0) {
    refuse(
      `the raise would take the ${over.join(', ')} limit past its maximum (${over.map((d) => `${d} ≤ ${BUDGET_MAXIMA[d]}`).join(', ')})`,
      'Raise by less; a run\'s limits stay at most cost_usd 1e6, tokens 1e12, calls 1e9.',
    );
  }
  return raise;
}
