/**
 * Which steps of a plan start next: a pure function of the steps, their statuses and what the budget affords, so
 * the workflow's DAG loop and unit tests drive the same logic. A failed step stops new starts (the run re-plans);
 * under `block` or `fail`, the first ready step the budget cannot afford stops them too, and the run pauses for
 * budget (or, under `fail`, ends with PLAN-004).
 */
import { readySteps, type DagNode } from './dag';

/** WAITING: a step waits for a person (a `human` step's answer, or a decision on an unknown outcome). */
export type StepStatus = 'PENDING' | 'RUNNING' | 'WAITING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface StepsToStart {
  start: number[];
  /** Why nothing more starts: a step failed, or the next ready step does not fit the budget. */
  stop: 'failed' | 'budget' | null;
}

export function stepsToStart(
  steps: readonly (DagNode & { readonly parallel: boolean })[],
  statuses: readonly StepStatus[],
  affordable: (index: number) => boolean,
  /** A step whose task waits for a task it depends on to pass its acceptance criteria. */
  waitsForCheck: (index: number) => boolean = () => false,
): StepsToStart {
  const withStatus = (...wanted: StepStatus[]) => new Set(statuses.flatMap((s, i) => (wanted.includes(s) ? [i] : [])));
  if (withStatus('FAILED').size > 0) return { start: [], stop: 'failed' };
  // WAITING and CANCELLED steps count as running: none restarts (and nothing new starts beside a cancelled one).
  const start: number[] = [];
  const ready = readySteps(steps, withStatus('COMPLETED'), withStatus('RUNNING', 'WAITING', 'CANCELLED'));
  for (const index of ready.filter((i) => !waitsForCheck(i))) {
    if (!affordable(index)) return { start, stop: 'budget' };
    start.push(index);
  }
  return { start, stop: null };
}
