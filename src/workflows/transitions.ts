/** What a phase returns: the next stage and why, a pause for budget with what is needed, or the run's failure. */
import { failureOf, planFailureToApplicationFailure, type PlanFailure } from '../api/failures';
import { outcomeOf } from '../api/answer';
import type { AuditDecision, PlanningOutcome, PlanningState } from '../api/state';
import type { Usage } from '../domain/budget';
import { PlannerError } from '../domain/errors';
import { transition, type Stage } from '../domain/stages';

export type Transition =
  | { to: Exclude<Stage, 'CREATED' | 'FAILED' | 'CANCELLED' | 'BUDGET_EXHAUSTED'>; why: string }
  | { to: 'BUDGET_EXHAUSTED'; why: string; needs: Usage }
  | { to: 'FAILED'; failure: PlanFailure };

/** The stage `to` leads to from `from`; a move the table forbids is a bug in this workflow: the run fails loudly. */
export function checkedTransition(from: Stage, to: Stage, before: Stage | undefined): Stage {
  try {
    return transition(from, to, before);
  } catch (err) {
    throw planFailureToApplicationFailure(err as PlannerError);
  }
}

export function move(to: Extract<Transition, { why: string; needs?: never }>['to'], why: string): Transition {
  return { to, why };
}

export function failWith(failure: PlannerError | PlanFailure): Transition {
  return { to: 'FAILED', failure: failure instanceof PlannerError ? failureOf(failure) : failure };
}

/** An activity's failure as the run's, its message prefixed with what was being done. */
export function failedWhile(what: string, failure: PlanFailure): Transition {
  return failWith({ ...failure, message: `${what} failed: ${failure.message}` });
}

/** The outcome of a finished run; a FAILED run ends with its typed failure, the outcome in its details. */
export function settle(state: PlanningState): PlanningOutcome {
  const outcome = outcomeOf(state);
  const { failure } = state;
  if (failure) throw planFailureToApplicationFailure({ ...failure, details: { ...failure.details, outcome } });
  return outcome;
}

/** The run's own decision a stage change records: a pause for budget, or a re-plan of an executing plan. */
export function decisionOfMove(from: Stage, to: Stage): AuditDecision | undefined {
  if (to === 'BUDGET_EXHAUSTED') return 'pause';
  return from === 'EXECUTING' && to === 'PLANNING' ? 'replan' : undefined;
}
