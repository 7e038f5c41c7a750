/** What `planner audit` counts as a decision in a run's audit (the entries' `decision`), of which kind, by whom. */
import type { AuditDecision, AuditEntry } from '../../../src/api/state';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { decisionsOfAudit, decisionsOfRun } from '../../../src/cli/decisions';
import { auditEntryView } from '../../../src/cli/json-views';

const at = '2026-11-27T08:00:00.000Z';
const entry = (kind: AuditEntry['kind'], message: string, by?: string, decision?: AuditDecision): AuditEntry => ({
  at,
  kind,
  message,
  ...(by ? { by } : {}),
  ...(decision ? { decision } : {}),
});

test('approvals, rejections, budget pauses and raises, re-plans, edits, re-runs and answers are decisions; the rest is not', () => {
  const audit = [
    entry('analysis', 'planner ranking; intent query (0.9); 2 requirement step(s); clear: true'),
    entry('gatekeeper', 'approve: no blocking critique', undefined, 'approve'),
    entry('approval', 'rejected by alice@ops: only the high-risk ones', 'alice@ops', 'reject'),
    entry('gatekeeper', 'refine: 1 blocking critique', undefined, 'refine'),
    entry('approval', 'approved by bob@ops', 'bob@ops', 'approve'),
    entry('budget', 'step 1.1: 1 call(s), 0 tokens, $0.000000'),
    entry('stage', 'EXECUTING → BUDGET_EXHAUSTED: step 1.2 needs 1 call(s)', undefined, 'pause'),
    entry('budget', 'limits raised by 10 call(s), 0 tokens, $0 (by dave@ops)', 'dave@ops', 'raise'),
    entry('stage', 'EXECUTING → PLANNING: re-plan 1 of 2 after a step failure', undefined, 'replan'),
    entry('stage', 'AWAITING_APPROVAL → PLANNING: rejected: only the high-risk ones'),
    entry('plan', 'plan v2 edited by erin@ops into v3: /tasks/0/steps/1 removed', 'erin@ops', 'edit'),
    entry('plan', 'v3 (human_edit) given by erin@ops: FEASIBLE, 1 step(s)', 'erin@ops'),
    entry('plan', 're-run from step 1.2 by frank@ops as plan v4: runs 1.2 again; keeps 1.1', 'frank@ops', 'rerun'),
    entry('message', 'clarification answered: Shipments from last week (by carol@ops)', 'carol@ops', 'answer'),
    entry('message', 'step 2.1 answered: yes', 'carol@ops', 'answer'),
    entry('message', 'ignored answerClarification signal: option 9 does not exist'),
    entry('message', 'step 1.3 resolved: retry (by gina@ops)', 'gina@ops', 'resolve'),
    entry('approval', 'step 1.3 approved by hal@ops', 'hal@ops', 'approve'),
    entry('approval', 'an approval by no one: a decision all the same', undefined, 'approve'),
    entry('gatekeeper', 'reject: blocking critiques outlast 2 refinements', undefined, 'reject'),
  ];
  expect(decisionsOfAudit('run-1', audit).map((d) => [d.kind, d.by])).toEqual([
    ['approval', 'gatekeeper'],
    ['rejection', 'alice@ops'],
    ['re-plan', 'gatekeeper'],
    ['approval', 'bob@ops'],
    ['budget', 'planner'],
    ['budget', 'dave@ops'],
    ['re-plan', 'planner'],
    ['edit', 'erin@ops'],
    ['re-run', 'frank@ops'],
    ['answer', 'carol@ops'],
    ['answer', 'carol@ops'],
    ['answer', 'gina@ops'],
    ['approval', 'hal@ops'],
    ['approval', 'unknown'],
    ['rejection', 'gatekeeper'],
  ]);
  expect(decisionsOfAudit('run-1', audit)[1]).toEqual({
    workflowId: 'run-1',
    at,
    kind: 'rejection',
    by: 'alice@ops',
    message: 'rejected by alice@ops: only the high-risk ones',
    source: 'audit',
  });
});

test('an entry is a decision by its `decision` alone, never by its wording', () => {
  const worded = [
    entry('approval', 'approved by bob@ops', 'bob@ops'),
    entry('gatekeeper', 'approve: no blocking critique'),
    entry('stage', 'EXECUTING → PLANNING: re-plan 1 of 2 after a step failure'),
  ];
  expect(decisionsOfAudit('run-1', worded)).toEqual([]);
  const reworded = entry('approval', 'ok, go', 'bob@ops', 'approve');
  expect(decisionsOfAudit('run-1', [reworded])).toMatchObject([{ kind: 'approval', by: 'bob@ops', message: 'ok, go' }]);
});

test('`planner history --json` gives each audit entry its `decision`, the field `planner audit` reads, and none to the rest', () => {
  const audit = [
    entry('gatekeeper', 'approve: no blocking critique', undefined, 'approve'),
    entry('approval', 'approved by bob@ops', 'bob@ops', 'approve'),
    entry('budget', 'step 1.1: 1 call(s), 0 tokens, $0.000000'),
    entry('stage', 'EXECUTING → PLANNING: re-plan 1 of 2 after a step failure', undefined, 'replan'),
  ];
  expect(audit.map(auditEntryView)).toEqual([
    { at, source: 'audit', kind: 'gatekeeper', message: 'approve: no blocking critique', decision: 'approve' },
    { at, source: 'audit', kind: 'approval', message: 'approved by bob@ops', by: 'bob@ops', decision: 'approve' },
    { at, source: 'audit', kind: 'budget', message: 'step 1.1: 1 call(s), 0 tokens, $0.000000' },
    {
      at,
      source: 'audit',
      kind: 'stage',
      message: 'EXECUTING → PLANNING: re-plan 1 of 2 after a step failure',
      decision: 'replan',
    },
  ]);
});

describe('decisionsOfRun', () => {
  /** A history in which bob@ops's approval of plan v1 was accepted. */
  const approvedHistory: temporal.api.history.v1.IHistory = {
    events: [
      {
        eventType: temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
        workflowExecutionUpdateAcceptedEventAttributes: {
          acceptedRequest: {
            input: {
              name: 'approve',
              args: { payloads: [defaultPayloadConverter.toPayload({ plan_version: 1, identity: 'bob@ops' })] },
            },
          },
        },
      },
    ],
  };
  const stub = (audit: AuditEntry[] | null, history: temporal.api.history.v1.IHistory | null) => ({
    state: async () => (audit ? ({ audit } as never) : Promise.reject(new Error('no worker answered'))),
    history: async () => history ?? Promise.reject(new Error('history unavailable')),
  });

  test("reads the decisions the run's audit marks, without its history", async () => {
    const audit = [entry('approval', 'approved by bob@ops', 'bob@ops', 'approve')];
    const decisions = await decisionsOfRun(stub(audit, null), 'run-1');
    expect(decisions.map((d) => [d.kind, d.by, d.source])).toEqual([['approval', 'bob@ops', 'audit']]);
  });

  test('reads the history where no worker answers, and where the audit marks no decision (an older worker)', async () => {
    const expected = [['approval', 'bob@ops', 'history']];
    const noWorker = await decisionsOfRun(stub(null, approvedHistory), 'run-1');
    expect(noWorker.map((d) => [d.kind, d.by, d.source])).toEqual(expected);
    const older = [entry('approval', 'approved by bob@ops', 'bob@ops')];
    const fromOlder = await decisionsOfRun(stub(older, approvedHistory), 'run-1');
    expect(fromOlder.map((d) => [d.kind, d.by, d.source])).toEqual(expected);
  });

  test('a run with an audit of no decisions and no history to read has none; with neither, the read fails', async () => {
    expect(await decisionsOfRun(stub([entry('stage', 'CREATED → ANALYZING: run started')], null), 'run-1')).toEqual([]);
    await expect(decisionsOfRun(stub(null, null), 'run-1')).rejects.toThrow('history unavailable');
  });
});
