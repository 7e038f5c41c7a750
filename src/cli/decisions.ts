/**
 * The decisions of a run, by kind, for `planner audit`: read from the run's own audit (getState) where a worker
 * answers, else from Temporal's event history (the messages people sent). Pure: no client, so it is tested on entries.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { AuditEntry } from '../api/state';

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

/** The kind of decision an audit entry records, and who made it; null for entries that record no decision. */
function classify(entry: AuditEntry): { kind: DecisionKind; by: string } | null {
  const person = entry.by ?? 'unknown';
  const { message } = entry;
  switch (entry.kind) {
    case 'approval':
      if (message.startsWith('approved')) return { kind: 'approval', by: person };
      if (message.startsWith('rejected')) return { kind: 'rejection', by: person };
      return null;
    case 'gatekeeper':
      if (message.startsWith('approve:')) return { kind: 'approval', by: 'gatekeeper' };
      if (message.startsWith('refine:')) return { kind: 're-plan', by: 'gatekeeper' };
      if (message.startsWith('reject:')) return { kind: 'rejection', by: 'gatekeeper' };
      return null;
    case 'budget':
      return message.startsWith('limits raised') ? { kind: 'budget', by: person } : null;
    case 'stage':
      if (/→ BUDGET_EXHAUSTED:/.test(message)) return { kind: 'budget', by: 'planner' };
      if (/→ PLANNING: re-plan /.test(message)) return { kind: 're-plan', by: 'planner' };
      return null;
    case 'plan':
      // A person's edit of the plan awaiting approval, or a re-run from a step (src/workflows/plan-edits.ts).
      if (/^plan v\d+ edited/.test(message)) return { kind: 'edit', by: person };
      if (message.startsWith('re-run from step')) return { kind: 're-run', by: person };
      return null;
    case 'message':
      return /^(clarification answered|step \S+ (answered|resolved)):/.test(message)
        ? { kind: 'answer', by: person }
        : null;
    default:
      return null;
  }
}

export function decisionsOfAudit(workflowId: string, audit: readonly AuditEntry[]): DecisionView[] {
  return audit.flatMap((entry) => {
    const decision = classify(entry);
    return decision
      ? [{ workflowId, at: entry.at, ...decision, message: entry.message, source: 'audit' as const }]
      : [];
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
