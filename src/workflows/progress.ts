/**
 * ProgressLog: the run's progress events, numbered, in a ring buffer, and the long-poll that hands them out
 * (`waitForProgress`, src/api/progress.ts).
 *
 * Design: events are derived from the state by comparing it with what was last seen, each time PlanningRun changes
 * it, so every stage is recorded however briefly the run stays in it. The buffer lives in workflow memory, not in the
 * state: it is rebuilt exactly by replay (a worker restart loses nothing) and costs nothing in history or in what
 * continue-as-new carries. Only the sequence number is carried (`state.progress_seq`), so numbering continues in the
 * new run; a watcher that was behind at that moment gets `truncated` and reads getState. Handing out events costs
 * history only when a watcher asks (the update's accepted/completed events and its timer), never per change.
 */
import { condition } from '@temporalio/workflow';
import { planFailureToApplicationFailure } from '../api/failures';
import { parseMessagePayload } from '../api/messages';
import {
  PROGRESS_EVENTS_KEPT,
  PROGRESS_PREVIEW_CHARS,
  PROGRESS_WAIT_DEFAULT_MS,
  PROGRESS_WAITERS_MAX,
  pendingInput,
  type ProgressBatch,
  type ProgressChange,
  type ProgressEvent,
} from '../api/progress';
import type { PlanningState } from '../api/state';
import { InvalidInputError, PlannerError } from '../domain/errors';
import { isTerminal } from '../domain/stages';
import { nowIso } from './initial-state';

/** What a watcher has been told of, as comparable keys. */
interface Seen {
  stage: string;
  plan: string;
  steps: Map<string, string>;
  budget: string;
  pending: string;
}

export class ProgressLog {
  private events: ProgressEvent[] = [];
  private seen: Seen;
  private closed = false;
  /** waitForProgress updates holding now (counted by the handlers, read by the validator that runs before each). */
  private waiting = 0;

  /** Numbering continues from the carried sequence; the resumed state counts as seen, but for a pending question. */
  constructor(
    state: PlanningState,
    private seq = state.progress_seq ?? 0,
  ) {
    this.seen = { stage: 'CREATED', plan: '', steps: new Map(), budget: budgetKey(state), pending: '' };
    if (state.progress_seq === undefined) return;
    this.seen = this.changesOf(state).seen;
    // A watcher that joins after continue-as-new still learns what the run waits for: its question is restated first.
    const pending = pendingInput(state);
    if (pending) this.events.push({ kind: 'question', pending, seq: ++this.seq, at: nowIso() });
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Records what changed since the last call (the latest sequence number returned); closed once the stage is terminal. */
  observe(state: PlanningState): number {
    const { changes, seen } = this.changesOf(state);
    this.seen = seen;
    const at = nowIso();
    for (const change of changes) this.events.push({ ...change, seq: ++this.seq, at } as ProgressEvent);
    if (this.events.length > PROGRESS_EVENTS_KEPT) this.events.splice(0, this.events.length - PROGRESS_EVENTS_KEPT);
    if (isTerminal(state.stage)) this.closed = true;
    return this.seq;
  }

  /** No more events from this run (it continues as new): waiting watchers return now. */
  close(): void {
    this.closed = true;
  }

  /** The waitForProgress validator: a payload that parses, and a wait only while fewer than PROGRESS_WAITERS_MAX hold. */
  checkWait(payload: unknown): void {
    const { wait_ms = PROGRESS_WAIT_DEFAULT_MS } = checkProgressRequest(payload);
    if (wait_ms === 0 || this.waiting < PROGRESS_WAITERS_MAX) return;
    throw planFailureToApplicationFailure(
      new InvalidInputError(
        `${this.waiting} watchers already wait for progress on this run (at most ${PROGRESS_WAITERS_MAX}, so that decisions always find room among the updates Temporal lets a run hold)`,
        'Read the same events with the getProgress query {"after_seq": n}, or wait_ms 0; try waiting again later.',
        { watchers_max: PROGRESS_WAITERS_MAX },
      ),
    );
  }

  /** The waitForProgress handler: events after `after_seq`, as soon as there are any (or when the wait ends). */
  async waitAfter(payload: unknown, stage: () => PlanningState['stage']): Promise<ProgressBatch> {
    const { after_seq, wait_ms = PROGRESS_WAIT_DEFAULT_MS } = checkProgressRequest(payload);
    if (wait_ms > 0) {
      this.waiting += 1;
      try {
        await condition(() => this.seq > after_seq || this.closed, wait_ms);
      } finally {
        this.waiting -= 1;
      }
    }
    return this.after(after_seq, stage());
  }

  after(afterSeq: number, stage: PlanningState['stage']): ProgressBatch {
    const events = this.events.filter((e) => e.seq > afterSeq);
    const oldest = this.events[0]?.seq ?? this.seq + 1;
    return {
      events,
      seq: this.seq,
      truncated: afterSeq < oldest - 1 && afterSeq < this.seq,
      closed: this.closed,
      stage,
    };
  }

  private changesOf(state: PlanningState): { changes: ProgressChange[]; seen: Seen } {
    const changes: ProgressChange[] = [];
    const plan = state.plan;
    const seen: Seen = {
      stage: state.stage,
      plan: plan ? `${plan.version}:${plan.status}` : '',
      steps: new Map(this.seen.steps),
      budget: budgetKey(state),
      pending: '',
    };
    if (plan && seen.plan !== this.seen.plan) {
      changes.push({
        kind: 'plan',
        version: plan.version,
        status: plan.status,
        steps: plan.tasks.reduce((n, t) => n + t.steps.length, 0),
      });
    }
    if (seen.stage !== this.seen.stage)
      changes.push({
        kind: 'stage',
        stage: state.stage,
        plan_version: plan?.version ?? null,
        plan_status: plan?.status ?? null,
      });
    for (const step of state.steps) {
      const key = `${plan?.version}:${step.id}`;
      if (seen.steps.get(key) === step.status) continue;
      seen.steps.set(key, step.status);
      const { result } = step;
      const preview = result ? result.preview.slice(0, PROGRESS_PREVIEW_CHARS) : null;
      const elapsed_ms =
        step.started_at && step.ended_at ? Date.parse(step.ended_at) - Date.parse(step.started_at) : null;
      changes.push({
        kind: 'step',
        step_id: step.id,
        tool: step.tool,
        status: step.status,
        items: result?.items ?? null,
        bytes: result?.bytes ?? null,
        preview,
        error: step.error?.message ?? null,
        elapsed_ms,
        attempts: step.attempts ?? null,
      });
    }
    if (seen.budget !== this.seen.budget)
      changes.push({ kind: 'budget', spent: { ...state.budget.spent }, limit: { ...state.budget.limit } });
    const pending = pendingInput(state);
    seen.pending = pending ? JSON.stringify(pending) : '';
    if (pending && seen.pending !== this.seen.pending) changes.push({ kind: 'question', pending });
    return { changes, seen };
  }
}

function budgetKey(state: PlanningState): string {
  return JSON.stringify([state.budget.spent, state.budget.limit]);
}

/** A waitForProgress payload, parsed: the validator refuses a bad one before anything reaches history. */
export function checkProgressRequest(payload: unknown) {
  try {
    return parseMessagePayload('waitForProgress', payload);
  } catch (err) {
    if (err instanceof PlannerError) throw planFailureToApplicationFailure(err);
    throw err;
  }
}
