/**
 * Whether a message may be accepted now, and its parsed payload: pure checks over the run's state, shared by the
 * update validators (which refuse before anything is written to history) and the handlers. A refusal is the typed
 * failure activities use too: PLAN-006 with a hint.
 *
 * A question and a plan version each take one decision: the first answer, approval or rejection wins, and every later
 * one is refused naming it, even when several arrive in one workflow activation (each validator runs after the
 * previous handler; the handlers check again).
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
import type { PlanningState, StepReply, StepWait } from '../api/state';
import { addUsage, limitsPastMaxima } from '../domain/budget';
import { InvalidInputError, PlannerError } from '../domain/errors';
import { redactSecrets } from '../domain/secrets';
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

/** The answer and the text it stands for (an option's text, or the free text); the first answer wins, later ones are refused. */
export function checkAnswer(
  state: PlanningState,
  payload: unknown,
): { answer: ClarificationAnswer; text: string; by: string | undefined } {
  const { stage, question } = state;
  if (state.answer) {
    refuse(
      `the question was already answered by an earlier answer: ${state.answer.text}`,
      'Query getState; a question takes one answer, and the run is taking that one.',
    );
  }
  if (stage !== 'AWAITING_CLARIFICATION' || !question) {
    const last = state.clarifications.at(-1);
    const taken = !last
      ? ''
      : `; the last question was ${last.by === 'user' ? 'already answered by an earlier answer' : 'answered with its default after the timeout'}: ${last.answer}`;
    refuse(
      `no question is pending (stage ${stage})${taken}`,
      'Query getState; answer only while the stage is AWAITING_CLARIFICATION.',
    );
  }
  const answer = parse(MESSAGE_NAMES.answerClarification, payload);
  if ('option' in answer && answer.option > question.options.length) {
    refuse(
      `option ${answer.option} does not exist; choose 1–${question.options.length}: ${question.options.map((o, i) => `${i + 1}. ${o}`).join(' ')}`,
      'Send {"option": n} with n from the list, or {"text": "…"}.',
    );
  }
  return { answer, text: 'option' in answer ? question.options[answer.option - 1]! : answer.text, by: answer.identity };
}

function requireApprovalStage(state: PlanningState): void {
  if (state.stage !== 'AWAITING_APPROVAL') {
    refuse(
      `nothing awaits approval (stage ${state.stage})`,
      'Query getState; approve or reject only while the stage is AWAITING_APPROVAL.',
    );
  }
}

/** A decision names the version it is about (old clients may omit it); any other version is refused. */
function requireShownVersion(
  state: PlanningState,
  decision: { plan_version?: number | undefined },
  message: string,
): void {
  const current = state.plan?.version;
  if (decision.plan_version !== undefined && decision.plan_version !== current) {
    refuse(
      `${message} is for plan v${decision.plan_version}, but the plan awaiting approval is v${current}`,
      `Query getState, review plan v${current}, and send {"plan_version": ${current}, …}.`,
    );
  }
}

/** A decision on a version already decided is refused naming the decision that won (the version given, else the current one). */
function requireUndecided(
  state: PlanningState,
  decision: { plan_version?: number | undefined },
  message: string,
): void {
  const decided = state.last_decision;
  if (!decided || decided.version !== (decision.plan_version ?? state.plan?.version)) return;
  const current = state.stage === 'AWAITING_APPROVAL' ? state.plan?.version : undefined;
  refuse(
    `${message} refused: plan v${decided.version} was already ${decided.status} by an earlier update${current !== undefined && current !== decided.version ? `; the plan awaiting approval is v${current}` : ''}`,
    `Query getState; a plan version takes one decision${decided.status === 'rejected' ? ', so review and decide on the version planned next' : ''}.`,
  );
}

/** A decision on a version already decided is refused, naming the decision that won. */
function checkDecision<M extends 'approve' | 'reject'>(
  state: PlanningState,
  payload: unknown,
  message: M,
): MessagePayload<M> {
  const decision = parse(message, payload);
  if (decision.step !== undefined) {
    waitingStep(state, decision.step, 'approval', message); // a step's approval under `approval: per-step`
    return decision;
  }
  requireUndecided(state, decision, message);
  requireApprovalStage(state);
  requireShownVersion(state, decision, message);
  return decision;
}

/**
 * The run option `four_eyes`: the identity that started the run (`started_by`) or made the last edit of its plan
 * (`last_edited_by`) may not approve it, and an approval must say who sends it. PLAN-006 naming the rule.
 */
function requireFourEyes(state: PlanningState, approval: ApproveInput): void {
  if (!state.options.four_eyes) return;
  const version = approval.step !== undefined ? `step ${approval.step}` : `plan v${state.plan?.version}`;
  if (approval.identity === undefined) {
    refuse(
      `approve refused by four_eyes: the approval of ${version} names no identity, so it cannot be told from the starter's`,
      'Send {"identity": "<who approves>", …}; PlannerClient and `planner approve` send their client identity.',
    );
  }
  if (approval.identity === state.last_edited_by) {
    refuse(
      `approve refused by four_eyes: ${approval.identity} made the last edit of this plan, so another person must approve ${version}`,
      'Ask someone else (another client identity) to approve it; the editor may still reject or edit it.',
    );
  }
  if (approval.identity === state.started_by) {
    refuse(
      `approve refused by four_eyes: ${approval.identity} started this run, so another person must approve ${version}`,
      'Ask someone else (another client identity) to approve it; the starter may still reject it.',
    );
  }
}

export function checkApproval(state: PlanningState, payload: unknown): ApproveInput {
  const approval = checkDecision(state, payload, MESSAGE_NAMES.approve);
  requireFourEyes(state, approval);
  return approval;
}

export function checkRejection(state: PlanningState, payload: unknown): RejectInput {
  return checkDecision(state, payload, MESSAGE_NAMES.reject);
}

/** What an `approve` or `reject` handler decides (checked again): the approval to record, its audit note and the reply. */
export function approvalDecided(state: PlanningState, payload: unknown, status: 'approved' | 'rejected') {
  const checked = status === 'approved' ? checkApproval(state, payload) : checkRejection(state, payload);
  const reason = 'reason' in checked ? checked.reason : checked.comment;
  const by = checked.identity;
  if (checked.step !== undefined) return stepApprovalDecided(state, checked.step, status, reason, by);
  const version = state.plan!.version;
  const decided = {
    approval: { status, reason, ...(by !== undefined ? { by } : {}) },
    last_decision: { version, status },
  };
  return status === 'approved'
    ? {
        decided,
        step: undefined,
        by,
        note: `approved${by ? ` by ${by}` : ''}${reason ? `: ${reason}` : ''}`,
        reply: `plan v${version} approved`,
      }
    : {
        decided,
        step: undefined,
        by,
        note: `rejected${by ? ` by ${by}` : ''}: ${reason}`,
        reply: `plan v${version} rejected; refining`,
      };
}

/** A side-effecting step's approval or rejection (`approval: per-step`): the reply the waiting step takes. */
function stepApprovalDecided(
  state: PlanningState,
  id: string,
  status: 'approved' | 'rejected',
  reason: string | undefined,
  by: string | undefined,
) {
  const step = {
    index: state.steps.findIndex((s) => s.id === id),
    reply: { approved: status === 'approved', ...(reason ? { text: reason } : {}) },
  };
  const note = `step ${id} ${status}${by ? ` by ${by}` : ''}${reason ? `: ${reason}` : ''}`;
  return { step, by, note, reply: `step ${id} ${status}`, decided: undefined };
}

/** The raise, checked, and the audit's words for it. */
export function checkRaise(state: PlanningState, payload: unknown): RaiseBudgetInput & { note: string } {
  if (isTerminal(state.stage))
    refuse(`the run is ${state.stage}`, 'Budgets can be raised only on a run that has not ended.');
  const raise = parse(MESSAGE_NAMES.raiseBudget, payload);
  // Only the limits this raise increases: one a run started with past its maximum (before that was refused) is no reason to refuse raising another.
  const over = limitsPastMaxima(addUsage(state.budget.limit, raise)).filter((d) => raise[d] > 0);
  if (over.length > 0) {
    refuse(
      `the raise would take the ${over.join(', ')} limit past its maximum (${over.map((d) => `${d} ≤ ${BUDGET_MAXIMA[d]}`).join(', ')})`,
      "Raise by less; a run's limits stay at most cost_usd 1e6, tokens 1e12, calls 1e9.",
    );
  }
  const by = raise.identity ? ` (by ${raise.identity})` : '';
  return { ...raise, note: `limits raised by ${raise.calls} call(s), ${raise.tokens} tokens, $${raise.cost_usd}${by}` };
}

const WANTED: Record<StepWait['for'], string> = {
  answer: 'an answer',
  decision: 'a decision',
  approval: 'an approval',
};

/** The index of the step `id` when it waits for `wanted` (a human step's answer, or a decision on its outcome). */
function waitingStep(state: PlanningState, id: string, wanted: StepWait['for'], message: string): number {
  const waiting = state.steps.filter((s) => s.status === 'WAITING' && s.waiting?.for === wanted).map((s) => s.id);
  const hint = `Query getState; ${message} only a step with status WAITING for ${WANTED[wanted]} (${waiting.length ? `now: ${waiting.join(', ')}` : 'none now'}).`;
  if (state.stage !== 'EXECUTING') refuse(`no step waits for ${message} (stage ${state.stage})`, hint);
  const index = state.steps.findIndex((s) => s.id === id);
  if (index < 0) refuse(`plan v${state.plan?.version} has no step "${id}"`, hint);
  const step = state.steps[index]!;
  if (step.status !== 'WAITING' || step.waiting?.for !== wanted || step.reply !== undefined) {
    const why =
      step.reply !== undefined
        ? 'already has a reply'
        : step.status === 'WAITING'
          ? `waits for ${WANTED[step.waiting?.for ?? 'decision']}`
          : `is ${step.status}`;
    refuse(`step ${id} ${why}, so it cannot take ${message}`, hint);
  }
  return index;
}

/** A `human` step's answer; it becomes the step's result (secrets redacted). */
export function checkCompletion(
  state: PlanningState,
  payload: unknown,
): { index: number; reply: StepReply; note: string; by: string | undefined } {
  const { step, answer, identity } = parse(MESSAGE_NAMES.completeStep, payload);
  const index = waitingStep(state, step, 'answer', MESSAGE_NAMES.completeStep);
  const text = redactSecrets(answer);
  return { index, reply: { answer: text }, note: `step ${step} answered: ${text}`, by: identity };
}

/** A person's decision on a step whose outcome is unknown: retry, done or fail. */
export function checkResolution(
  state: PlanningState,
  payload: unknown,
): { index: number; reply: StepReply; note: string; by: string | undefined } {
  const { step, identity, ...decision } = parse(MESSAGE_NAMES.resolveStep, payload);
  const index = waitingStep(state, step, 'decision', MESSAGE_NAMES.resolveStep);
  const reply =
    decision.decision === 'retry'
      ? decision
      : { ...decision, ...(decision.text ? { text: redactSecrets(decision.text) } : {}) };
  return {
    index,
    reply,
    note: `step ${step} resolved: ${decision.decision}${'text' in reply && reply.text ? ` (${reply.text})` : ''}`,
    by: identity,
  };
}
