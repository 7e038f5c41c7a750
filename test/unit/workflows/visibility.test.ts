/**
 * Where a consolidated run publishes its search attributes: only at the stages where it waits for something outside
 * its workflow task (the server sees the task's commands only when it completes), and at its end.
 */
import { STAGES, type Stage } from '../../../src/domain/stages';
import { waitsIn } from '../../../src/workflows/visibility';

const WAITING: Stage[] = [
  'AWAITING_CLARIFICATION',
  'AWAITING_APPROVAL',
  'BUDGET_EXHAUSTED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
];
const LLM_STAGES: Stage[] = ['ANALYZING', 'PLANNING', 'CRITIQUING'];

test('a run waits for a message, a timer or its end in these stages, LLM or not', () => {
  for (const stage of WAITING)
    expect([stage, waitsIn(stage, false), waitsIn(stage, true)]).toEqual([stage, true, true]);
});

test('analysis, planning and critique wait only for an LLM call (a regular activity); as local activities they pass inside the task', () => {
  for (const stage of LLM_STAGES)
    expect([stage, waitsIn(stage, true), waitsIn(stage, false)]).toEqual([stage, true, false]);
});

test('the other stages pass at once, or (EXECUTING) park before each wait for their steps', () => {
  const others = STAGES.filter((s) => !WAITING.includes(s) && !LLM_STAGES.includes(s));
  expect(others).toEqual(expect.arrayContaining(['APPROVED', 'ROUTED', 'EXECUTING']));
  for (const stage of others) expect([stage, waitsIn(stage, true)]).toEqual([stage, false]);
});
