/**
 * The run's progress log and its Web UI view, as pure functions of the state: every change becomes a numbered event
 * (every stage, however short), the buffer stays bounded and says when a watcher fell behind, numbering continues
 * across continue-as-new, and the markdown plan view stays within its size bound.
 */
import { PROGRESS_EVENTS_KEPT, PROGRESS_PREVIEW_CHARS, type ProgressEvent } from '../../../src/api/progress';
import type { PlanningState, StepRecord } from '../../../src/api/state';
import { CURRENT_DETAILS_MAX_CHARS, planDetails } from '../../../src/workflows/details';
import { initialState } from '../../../src/workflows/initial-state';
import { ProgressLog } from '../../../src/workflows/progress';
import { rankingPlan } from '../../support/planning';

function newState(): PlanningState {
  return initialState(
    { request: { goal: 'Get contaminated shipments from last week', now: '2026-11-23T10:00:00Z' } },
    'wf-progress',
  );
}

function step(id: string, status: StepRecord['status'], preview = ''): StepRecord {
  const result =
    status === 'COMPLETED'
      ? {
          ref: 'sha256:x',
          bytes: 2048,
          items: 3,
          preview,
          usage: { cost_usd: 0, tokens: 0, calls: 1 },
          idempotency_key: 'k',
          replayed: false,
        }
      : undefined;
  return { index: 0, id, title: `step ${id}`, tool: 'shipments', queue: 'q', status, ...(result ? { result } : {}) };
}

test('every stage is an event, in order, even stages the run passes without waiting', () => {
  const state = newState();
  const log = new ProgressLog(state);
  for (const stage of [
    'ANALYZING',
    'PLANNING',
    'CRITIQUING',
    'APPROVED',
    'ROUTED',
    'EXECUTING',
    'COMPLETED',
  ] as const) {
    state.stage = stage;
    log.observe(state);
  }
  const batch = log.after(0, state.stage);
  expect(batch.events.map((e) => (e.kind === 'stage' ? e.stage : e.kind))).toEqual([
    'ANALYZING',
    'PLANNING',
    'CRITIQUING',
    'APPROVED',
    'ROUTED',
    'EXECUTING',
    'COMPLETED',
  ]);
  expect(batch.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(batch).toEqual(expect.objectContaining({ seq: 7, truncated: false, closed: true, stage: 'COMPLETED' }));
  expect(log.after(7, 'COMPLETED').events).toEqual([]);
});

test('plan versions, step starts and ends with a clipped preview, budget charges and questions are events', () => {
  const state = newState();
  const log = new ProgressLog(state);
  state.stage = 'AWAITING_CLARIFICATION';
  state.question = {
    text: 'Which reports?',
    options: ['Shipments', 'Inspections'],
    default_option: 1,
    asked_at: 'now',
  };
  log.observe(state);
  state.stage = 'EXECUTING';
  state.question = null;
  state.plan = rankingPlan('Get contaminated shipments from last week');
  state.steps = [step('1.1', 'RUNNING')];
  log.observe(state);
  state.steps = [step('1.1', 'COMPLETED', 'x'.repeat(1000))];
  state.budget = { ...state.budget, spent: { cost_usd: 0, tokens: 0, calls: 1 } };
  log.observe(state);
  const kinds = log.after(0, state.stage).events.map((e: ProgressEvent) => e.kind);
  expect(kinds).toEqual(['stage', 'question', 'plan', 'stage', 'step', 'step', 'budget']);
  const events = log.after(0, state.stage).events;
  expect(events[1]).toEqual(
    expect.objectContaining({
      kind: 'question',
      pending: {
        kind: 'clarification',
        text: 'Which reports?',
        options: ['Shipments', 'Inspections'],
        default_option: 1,
      },
    }),
  );
  expect(events[5]).toEqual(
    expect.objectContaining({ kind: 'step', step_id: '1.1', status: 'COMPLETED', items: 3, bytes: 2048 }),
  );
  expect((events[5] as { preview: string }).preview).toHaveLength(PROGRESS_PREVIEW_CHARS);
  // Nothing changed: nothing recorded.
  log.observe(state);
  expect(log.lastSeq).toBe(7);
});

test('the buffer keeps the latest events; a watcher further behind is told it missed some', () => {
  const state = newState();
  const log = new ProgressLog(state);
  for (let i = 1; i <= PROGRESS_EVENTS_KEPT + 50; i++) {
    state.budget = { ...state.budget, spent: { cost_usd: 0, tokens: i, calls: 0 } };
    log.observe(state);
  }
  const fromStart = log.after(0, state.stage);
  expect(fromStart.events).toHaveLength(PROGRESS_EVENTS_KEPT);
  expect(fromStart.events[0]!.seq).toBe(51);
  expect(fromStart.truncated).toBe(true);
  expect(log.after(50, state.stage).truncated).toBe(false);
  expect(log.after(240, state.stage)).toEqual(expect.objectContaining({ truncated: false, seq: 250 }));
  expect(log.after(240, state.stage).events.map((e) => e.seq)).toEqual([
    241, 242, 243, 244, 245, 246, 247, 248, 249, 250,
  ]);
});

test('after continue-as-new the sequence goes on and what the carried state shows is not repeated', () => {
  const state = newState();
  state.stage = 'EXECUTING';
  state.steps = [step('1.1', 'COMPLETED')];
  state.progress_seq = 41;
  const log = new ProgressLog(state);
  log.observe(state);
  expect(log.lastSeq).toBe(41);
  state.stage = 'COMPLETED';
  log.observe(state);
  expect(log.after(41, state.stage).events).toEqual([
    expect.objectContaining({ seq: 42, kind: 'stage', stage: 'COMPLETED' }),
  ]);
  // A watcher from before the continue-as-new that had not seen #41 learns it missed events.
  expect(log.after(30, state.stage).truncated).toBe(true);
});

test('a run continued as new while it waits for an answer restates the question first, so a watcher joining it sees it', () => {
  const state = newState();
  state.stage = 'AWAITING_CLARIFICATION';
  state.question = {
    text: 'Which reports?',
    options: ['Shipments', 'Inspections'],
    default_option: 1,
    asked_at: 'now',
  };
  state.progress_seq = 5;
  const log = new ProgressLog(state);
  expect(log.after(5, state.stage).events).toEqual([
    expect.objectContaining({ seq: 6, kind: 'question', pending: expect.objectContaining({ kind: 'clarification' }) }),
  ]);
  log.observe(state); // nothing changed since: nothing more is recorded
  expect(log.lastSeq).toBe(6);
});

test('the Web UI view: stage, plan, a steps table with result sizes, budget, the pending approval; clipped to its bound', () => {
  const state = newState();
  state.stage = 'AWAITING_APPROVAL';
  state.plan = rankingPlan('Get contaminated shipments from last week');
  state.steps = [step('1.1', 'COMPLETED'), step('1.2', 'PENDING')];
  const md = planDetails(state);
  expect(md).toContain('**Stage:** AWAITING_APPROVAL');
  expect(md).toContain(`**Plan:** v1 (${state.plan.status}), 1 step(s)`);
  expect(md).toContain('| 1.1 step 1.1 | shipments | COMPLETED | 3 item(s), 2.0 KB |');
  expect(md).toContain('| 1.2 step 1.2 | shipments | PENDING | – |');
  expect(md).toContain('**Budget:** 0/100 calls · 0/200000 tokens · 0.0000/1.00 USD (block)');
  expect(md).toContain('**Waiting for approval** of plan v1');
  expect(md).toContain('planner approve wf-progress --version 1');
  // Before routing, the plan's own steps are the table.
  state.steps = [];
  expect(planDetails(state)).toContain('| 1.1 Query shipments | shipments | PLANNED | – |');

  state.steps = Array.from({ length: 500 }, (_, i) => ({
    ...step(`${i}`, 'FAILED'),
    title: 'a | b\n'.repeat(100),
    error: { code: 'PLAN-008', type: 'T', message: 'e'.repeat(5000) },
  }));
  const big = planDetails(state);
  expect(big.length).toBeLessThanOrEqual(CURRENT_DETAILS_MAX_CHARS);
  expect(big).toMatch(/… and \d+ more step\(s\)/);
  expect(big).toContain('**Waiting for approval**');
  expect(
    big
      .split('\n')
      .filter((l) => l.startsWith('| '))
      .every((l) => l.split(/(?<!\\)\|/).length === 6),
  ).toBe(true);
});

test("the details show the plan's estimate and, once made, its cost forecast; after a rejection that changed nothing, why", () => {
  const state = newState();
  state.stage = 'AWAITING_APPROVAL';
  state.plan = { ...rankingPlan('Get contaminated shipments from last week'), version: 2 };
  const { estimate } = state.plan;
  const record = {
    version: 2,
    plan: state.plan,
    parent_version: 1,
    reason: 'human_rejection' as const,
    diff: { added: [], removed: [], changed: [], summary: 'v1 → v2: no step changes' },
    explanation: 'rejected by a person: use the archive',
    created_at: '2026-11-23T10:00:00Z',
    unhonoured_rejection:
      'plan v2 has no step changes from the rejected v1: the ranking planner cannot honour the reason (use the archive)',
  };
  state.versions = [record];
  let md = planDetails(state);
  expect(md).toContain(
    `**Estimate:** ${estimate.calls} calls · ${estimate.tokens} tokens · ${estimate.cost_usd.toFixed(4)} USD`,
  );
  expect(md).not.toContain('**Forecast:**');
  expect(md).toContain(`After the rejection of v1: ${record.unhonoured_rejection}.`);
  const figures = { calls: 1, tokens: 300, cost_usd: 0.0001, seconds: 0.4 };
  state.versions = [
    {
      ...record,
      forecast: { p50: figures, p90: { ...figures, seconds: 1.5 }, from_history: 1, from_estimate: 0, basis: [] },
    },
  ];
  md = planDetails(state);
  expect(md).toContain(
    '**Forecast:** p50 1 calls · 300 tokens · 0.0001 USD · 0.4 s; p90 1 calls · 300 tokens · 0.0001 USD · 1.5 s',
  );
});

test("the details' suggested commands shell-quote a workflow id and step id, in a code span a backtick cannot end", () => {
  const id = 'q2;touch pwned;echo `id`';
  const state = initialState(
    { request: { goal: 'Get contaminated shipments from last week', now: '2026-11-23T10:00:00Z' } },
    id,
  );
  state.stage = 'AWAITING_APPROVAL';
  state.plan = rankingPlan('Get contaminated shipments from last week');
  expect(planDetails(state)).toContain("Approve: `` planner approve 'q2;touch pwned;echo `id`' --version 1 ``");
  state.stage = 'EXECUTING';
  state.steps = [
    {
      ...step('1;rm x', 'WAITING'),
      waiting: {
        for: 'decision',
        question: 'Did it happen?',
        since: '2026-11-23T10:00:00Z',
        until: '2026-11-24T10:00:00Z',
      },
    },
  ];
  expect(planDetails(state)).toContain(
    "Decide: `` planner resolve 'q2;touch pwned;echo `id`' '1;rm x' retry|done|fail ``",
  );
  state.stage = 'BUDGET_EXHAUSTED';
  Object.assign(state, { workflow_id: "it's" });
  expect(planDetails(state)).toContain("Raise: `planner raise-budget 'it'\\''s' --calls 10`");
});
