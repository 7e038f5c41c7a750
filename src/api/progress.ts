/**
 * Progress pushed to watchers: the events a run records as it changes, and the `waitForProgress` update that hands
 * them out. Any Temporal client can follow a run with it:
 *   update waitForProgress {"after_seq": 0, "wait_ms": 30000}
 *     → {"events": [...], "seq": 7, "truncated": false, "closed": false, "stage": "PLANNING"}
 * The update returns as soon as the run has an event with `seq > after_seq` (or after `wait_ms`, with no events);
 * send the returned `seq` as the next `after_seq`. `truncated` says events between were dropped from the bounded
 * buffer (read getState for the whole picture); `closed` says this run is over (ended, or continued as new: send the
 * same `after_seq` to the workflow id again, the sequence continues in the new run).
 *   query getProgress {"after_seq": 7}   → the same batch at once, without waiting: for a run that has closed (an
 *     update can no longer reach it), read the events it recorded after the last batch.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { sharedSchema } from '../domain/shared-schema';
import type { Usage } from '../domain/budget';
import type { Plan } from '../domain/plan';
import type { Stage } from '../domain/stages';
import type { StepStatus } from '../domain/step-scheduler';
import type { PlanningState, StepWait } from './state';

/** The run keeps its latest events in a ring buffer of this many; a watcher further behind gets `truncated`. */
export const PROGRESS_EVENTS_KEPT = 200;
/** The longest a waitForProgress update waits in the workflow (a timer in history); the default wait. */
export const PROGRESS_WAIT_MAX_MS = 60_000;
export const PROGRESS_WAIT_DEFAULT_MS = 30_000;
/**
 * The most waitForProgress updates a run holds at once; one more is refused (PLAN-006, details.watchers_max) and its
 * watcher reads the getProgress query instead. Temporal allows 10 updates in flight per run (the server's
 * history.maxInFlightUpdates) and refuses the rest with RESOURCE_EXHAUSTED: watchers never take the room decisions need.
 */
export const PROGRESS_WAITERS_MAX = 5;
/** A step's preview as progress carries it. */
export const PROGRESS_PREVIEW_CHARS = 200;

/** What a run waits for a person to give, with what they need to decide. */
export type PendingInput =
  | { kind: 'clarification'; text: string; options: string[]; default_option: number }
  | { kind: 'approval'; plan_version: number; plan_status: Plan['status']; steps: number }
  | { kind: 'budget'; needed: Usage | null; spent: Usage; limit: Usage }
  /** A step waiting for a person: a `human` step's answer (completeStep) or a decision on an unknown outcome (resolveStep). */
  | { kind: 'step'; step_id: string; for: StepWait['for']; question: string; until: string };

interface EventBase {
  seq: number;
  /** The workflow's time of the change (ISO). */
  at: string;
}

export type ProgressEvent = EventBase &
  (
    | { kind: 'stage'; stage: Stage; plan_version: number | null; plan_status: Plan['status'] | null }
    | { kind: 'plan'; version: number; status: Plan['status']; steps: number }
    | {
        kind: 'step';
        step_id: string;
        tool: string | null;
        status: StepStatus;
        items: number | null;
        bytes: number | null;
        preview: string | null;
        error: string | null;
        /** Once the step ended: from its start to its end by the workflow's clock (absent on older runs' events). */
        elapsed_ms?: number | null;
        /** Once completed: the attempt of its activity that completed it (1: no retry). */
        attempts?: number | null;
      }
    | { kind: 'budget'; spent: Usage; limit: Usage }
    | { kind: 'question'; pending: PendingInput }
  );

/** A distributive Omit, so each event kind keeps its own fields. */
export type ProgressChange = ProgressEvent extends infer E
  ? E extends ProgressEvent
    ? Omit<E, 'seq' | 'at'>
    : never
  : never;

export interface ProgressBatch {
  events: ProgressEvent[];
  /** The latest sequence number of the run: the next `after_seq`. */
  seq: number;
  truncated: boolean;
  /** The run is over (ended or continued as new); no more events from this run. */
  closed: boolean;
  stage: Stage;
}

export const WaitForProgressSchema = sharedSchema('api/progress#WaitForProgressSchema', () =>
  z
    .object({
      after_seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      wait_ms: z.number().int().min(0).max(PROGRESS_WAIT_MAX_MS).optional(),
    })
    .strict(),
);
export type WaitForProgressInput = z.input<typeof WaitForProgressSchema>;

/** Its name is MESSAGE_NAMES.waitForProgress (src/api/messages.ts re-exports this definition). */
export const waitForProgressUpdate = defineUpdate<ProgressBatch, [WaitForProgressInput]>('waitForProgress');

export const getProgressQuery = defineQuery<ProgressBatch, [WaitForProgressInput]>('getProgress');

/** What the run waits for a person to give now, if anything (from its state, so getState readers get it too). */
export function pendingInput(state: PlanningState): PendingInput | null {
  if (state.stage === 'AWAITING_CLARIFICATION' && state.question) {
    const { text, options, default_option } = state.question;
    return { kind: 'clarification', text, options, default_option };
  }
  if (state.stage === 'AWAITING_APPROVAL' && state.plan) {
    const steps = state.plan.tasks.reduce((n, t) => n + t.steps.length, 0);
    return { kind: 'approval', plan_version: state.plan.version, plan_status: state.plan.status, steps };
  }
  const waiting =
    state.stage === 'EXECUTING' ? state.steps.find((s) => s.status === 'WAITING' && s.waiting && !s.reply) : undefined;
  if (waiting?.waiting)
    return {
      kind: 'step',
      step_id: waiting.id,
      for: waiting.waiting.for,
      question: waiting.waiting.question,
      until: waiting.waiting.until,
    };
  if (state.stage === 'BUDGET_EXHAUSTED')
    return {
      kind: 'budget',
      needed: state.budget_needed,
      spent: { ...state.budget.spent },
      limit: { ...state.budget.limit },
    };
  return null;
}
