/**
 * The planning run's stage machine. Loops: CRITIQUING → PLANNING (refine), AWAITING_APPROVAL → PLANNING (human
 * rejection, or a person's edit or re-run), EXECUTING → PLANNING (re-plan, or a re-run), ANALYZING ⇄
 * AWAITING_CLARIFICATION. A stage that runs out of budget goes to BUDGET_EXHAUSTED and may only go back to the stage
 * it left. Terminal stages never change.
 */
import { InvalidTransitionError } from './errors';

export const STAGES = [
  'CREATED',
  'ANALYZING',
  'AWAITING_CLARIFICATION',
  'PLANNING',
  'CRITIQUING',
  'AWAITING_APPROVAL',
  'APPROVED',
  'ROUTED',
  'EXECUTING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'BUDGET_EXHAUSTED',
] as const;
export type Stage = (typeof STAGES)[number];

export const TERMINAL_STAGES: ReadonlySet<Stage> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** Moves besides "any non-terminal stage → FAILED or CANCELLED". */
const NEXT: Readonly<Record<Stage, readonly Stage[]>> = {
  CREATED: ['ANALYZING'],
  ANALYZING: ['AWAITING_CLARIFICATION', 'PLANNING', 'BUDGET_EXHAUSTED'],
  AWAITING_CLARIFICATION: ['ANALYZING'],
  PLANNING: ['CRITIQUING', 'BUDGET_EXHAUSTED'],
  CRITIQUING: ['PLANNING', 'AWAITING_APPROVAL', 'APPROVED', 'BUDGET_EXHAUSTED'],
  AWAITING_APPROVAL: ['APPROVED', 'PLANNING'],
  APPROVED: ['ROUTED'],
  ROUTED: ['EXECUTING'],
  EXECUTING: ['COMPLETED', 'PLANNING', 'BUDGET_EXHAUSTED'],
  BUDGET_EXHAUSTED: ['ANALYZING', 'PLANNING', 'CRITIQUING', 'EXECUTING'],
  COMPLETED: [],
  FAILED: [],
  CANCELLED: [],
};

export function isTerminal(stage: Stage): boolean {
  return TERMINAL_STAGES.has(stage);
}

/**
 * Whether `from` → `to` is allowed. Leaving BUDGET_EXHAUSTED (other than to FAILED/CANCELLED) needs `left`, the
 * stage that ran out of budget, and must return to it.
 */
export function canTransition(from: Stage, to: Stage, left?: Stage): boolean {
  return whyNot(from, to, left) === null;
}

function whyNot(from: Stage, to: Stage, left?: Stage): string | null {
  if (!STAGES.includes(from) || !STAGES.includes(to)) return 'unknown stage';
  if (isTerminal(from)) return `${from} is terminal`;
  if (to === 'FAILED' || to === 'CANCELLED') return null;
  if (!NEXT[from].includes(to)) return `allowed from ${from}: ${[...NEXT[from], 'FAILED', 'CANCELLED'].join(', ')}`;
  if (from === 'BUDGET_EXHAUSTED' && to !== left) return `must return to the stage it left (${left ?? 'unknown'})`;
  return null;
}

/** Returns `to`, or throws InvalidTransitionError (PLAN-006) saying why the move is not allowed. */
export function transition(from: Stage, to: Stage, left?: Stage): Stage {
  const reason = whyNot(from, to, left);
  if (reason !== null) throw new InvalidTransitionError(from, to, reason);
  return to;
}
