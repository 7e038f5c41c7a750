/** What `planner audit` counts as a decision in a run's audit, and of which kind. */
import type { AuditEntry } from '../../../src/api/state';
import { decisionsOfAudit } from '../../../src/cli/decisions';

const at = '2026-11-27T08:00:00.000Z';
const entry = (kind: AuditEntry['kind'], message: string, by?: string): AuditEntry => ({
  at,
  kind,
  message,
  ...(by ? { by } : {}),
});

test('approvals, rejections, budget pauses and raises, re-plans, edits and answers are decisions; the rest is not', () => {
  const audit = [
    entry('analysis', 'planner ranking; intent query (0.9); 2 requirement step(s); clear: true'),
    entry('gatekeeper', 'approve: no blocking critique'),
    entry('approval', 'rejected by alice@ops: only the high-risk ones', 'alice@ops'),
    entry('gatekeeper', 'refine: 1 blocking critique'),
    entry('approval', 'approved by bob@ops', 'bob@ops'),
    entry('budget', 'step 1.1: 1 call(s), 0 tokens, $0.000000'),
    entry('stage', 'EXECUTING → BUDGET_EXHAUSTED: step 1.2 needs 1 call(s)'),
    entry('budget', 'limits raised by 10 call(s), 0 tokens, $0 (by dave@ops)', 'dave@ops'),
    entry('stage', 'EXECUTING → PLANNING: re-plan 1 of 2 after a step failure'),
    entry('stage', 'AWAITING_APPROVAL → PLANNING: rejected: only the high-risk ones'),
    entry('plan', 'plan v2 edited by erin@ops into v3: /tasks/0/steps/1 removed', 'erin@ops'),
    entry('plan', 'v3 (human_edit) given by erin@ops: FEASIBLE, 1 step(s)', 'erin@ops'),
    entry('plan', 're-run from step 1.2 by frank@ops as plan v4: runs 1.2 again; keeps 1.1', 'frank@ops'),
    entry('message', 'clarification answered: Shipments from last week (by carol@ops)', 'carol@ops'),
    entry('message', 'step 2.1 answered: yes', 'carol@ops'),
    entry('message', 'ignored answerClarification signal: option 9 does not exist'),
    entry('gatekeeper', 'reject: blocking critiques outlast 2 refinements'),
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
