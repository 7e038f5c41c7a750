/**
 * The decisions of a run, by kind, for `planner audit`: read from the run's own audit (getState: each entry's
 * `decision`, never its wording) where a worker answers, else from Temporal's event history (the messages people
 * sent). Pure but for the two reads of decisionsOfRun, so it is tested on entries and on a stub client.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { AuditDecision, AuditEntry } from '../api/state';
import type { PlannerClient } from '../client';

export const DECISION_KINDS = ['approval', 'rejection', 'budget', 're-plan', 'edit', 're-run', 'answer'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

export interface DecisionView {
  workflowId: string;
  at: string;
  kind: DecisionKind;
  /** Who decided: a person's identity, or `gatekeeper` / `planner` for the run's own decisions. */
  by: string;
  message: string;
  /** `audit` (the run's decision log) or `history` (Temporal's record of a message, when no worker answered). */
  source: 'audit' | 'history';
}

/** The kind `planner audit` gives each decision an audit entry records (its `decision`). */
const AUDIT_KINDS: Record<AuditDecision, DecisionKind> = {
  approve: 'approval',
  reject: 'rejection',
  edit: 'edit',
  rerun: 're-run',
  answer: 'answer',
  resolve: 'answer',
  raise: 'budget',
  refine: 're-plan',
  replan: 're-plan',
  pause: 'budget',
};

/** Who made an entry's decision: the gatekeeper in its entries, the run for a re-plan or a pause, else the person. */
function deciderOf(entry: AuditEntry, decision: AuditDecision): string {
  if (entry.kind === 'gatekeeper') return 'gatekeeper';
  if (decision === 'replan' || decision === 'pause') return 'planner';
  return entry.by ?? 'unknown';
}

/** The decisions a run's audit records, by the `decision` its workflow gave each entry. */
export function decisionsOfAudit(workflowId: string, audit: readonly AuditEntry[]): DecisionView[] {
  return audit.flatMap((entry) => {
    const { decision, at, message } = entry;
    if (!decision) return [];
    return [{ workflowId, at, kind: AUDIT_KINDS[decision], by: deciderOf(entry, decision), message, source: 'audit' }];
  });
}

/** The kind of decision each message records when it is accepted. */
const MESSAGE_KINDS: Record<string, DecisionKind> = {
  approve: 'approval',
  reject: 'rejection',
  raiseBudget: 'budget',
  answerClarification: 'answer',
  completeStep: 'answer',
  resolveStep: 'answer',
};

const EventType = temporal.api.enums.v1.EventType;

function timeOf(e: temporal.api.history.v1.IHistoryEvent): string {
  const t = e.eventTime;
  return t ? new Date(Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString() : '';
}

/** A message payload as its sender wrote it (JSON), or '' when it cannot be read. */
function payloadText(payload: temporal.api.common.v1.IPayload | null | undefined): string {
  if (!payload) return '';
  try {
    return JSON.stringify(defaultPayloadConverter.fromPayload(payload as never)).slice(0, 500);
  } catch {
    return '';
  }
}

/**
 * The decisions Temporal recorded for a run whose audit no worker can give: each accepted update and each signal of
 * a decision message, with its payload and the sender's identity (the payload's, else Temporal's). Re-plans and the
 * gatekeeper's decisions are only in the audit.
 */
export function decisionsOfHistory(workflowId: string, history: temporal.api.history.v1.IHistory): DecisionView[] {
  const out: DecisionView[] = [];
  for (const e of history.events ?? []) {
    let name: string | null | undefined;
    let payload: temporal.api.common.v1.IPayload | null | undefined;
    let identity: string | null | undefined;
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
      const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
      name = request?.input?.name;
      payload = request?.input?.args?.payloads?.[0];
      identity = request?.meta?.identity;
    } else if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED) {
      const a = e.workflowExecutionSignaledEventAttributes;
      name = a?.signalName;
      payload = a?.input?.payloads?.[0];
      identity = a?.identity;
    }
    const kind = name ? MESSAGE_KINDS[name] : undefined;
    if (!kind) continue;
    const text = payloadText(payload);
    let by = identity || 'unknown';
    try {
      const said = (JSON.parse(text) as { identity?: unknown }).identity;
      if (typeof said === 'string' && said) by = said;
    } catch {
      // no payload to read the identity from
    }
    out.push({ workflowId, at: timeOf(e), kind, by, message: `${name} ${text}`.trim(), source: 'history' });
  }
  return out;
}

/**
 * A run's decisions: from its audit where a worker answers the query, else from Temporal's history; from its history
 * too when its audit marks no decision (a run of a worker older than the audit's `decision` field).
 */
export async function decisionsOfRun(
  client: Pick<PlannerClient, 'state' | 'history'>,
  workflowId: string,
): Promise<DecisionView[]> {
  const audit = await client.state(workflowId).then(
    (state) => state.audit,
    () => null,
  );
  const decided = audit ? decisionsOfAudit(workflowId, audit) : [];
  if (decided.length > 0) return decided;
  const history = await client.history(workflowId).catch((err: unknown) => (audit ? null : Promise.reject(err)));
  return history ? decisionsOfHistory(workflowId, history) : [];
}
