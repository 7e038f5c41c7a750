/**
 * The table of questions a run can wait on: each kind shows itself, names the commands that answer it, and turns
 * what a person types into the run's update (a fake client records what would be sent).
 */
import type { PlannerClient } from '../../../src/client';
import { CliError } from '../../../src/cli/context';
import { PENDING_PROMPTS, asksForOwnWords, parseRaise, promptFor, type Ask } from '../../../src/cli/prompts';
import type { PendingInput } from '../../../src/api/progress';

const sent: unknown[][] = [];
const client = {
  answer: async (...a: unknown[]) => (sent.push(['answer', ...a]), 'answered'),
  approve: async (...a: unknown[]) => (sent.push(['approve', ...a]), 'approved'),
  reject: async (...a: unknown[]) => (sent.push(['reject', ...a]), 'rejected'),
  completeStep: async (...a: unknown[]) => (sent.push(['completeStep', ...a]), 'completed'),
  resolveStep: async (...a: unknown[]) => (sent.push(['resolveStep', ...a]), 'resolved'),
  raiseBudget: async (...a: unknown[]) => (
    sent.push(['raiseBudget', ...a]),
    { limit: { calls: 20, tokens: 0, cost_usd: 0 } }
  ),
} as unknown as PlannerClient;
/** Answers the prompts with `replies`, in order. */
const typing =
  (...replies: (string | null)[]): Ask =>
  async () =>
    replies.shift() ?? null;

const clarification: PendingInput = { kind: 'clarification', text: 'Which?', options: ['A', 'B'], default_option: 2 };
const approval: PendingInput = { kind: 'approval', plan_version: 3, plan_status: 'FEASIBLE', steps: 2 };
const budget: PendingInput = {
  kind: 'budget',
  needed: { calls: 1, tokens: 0, cost_usd: 0 },
  spent: { calls: 10, tokens: 0, cost_usd: 0 },
  limit: { calls: 10, tokens: 0, cost_usd: 0 },
};
const humanStep: PendingInput = {
  kind: 'step',
  step_id: '2.1',
  for: 'answer',
  question: 'Which bin?',
  until: '2026-11-24T10:00:00Z',
};
const unknownOutcome: PendingInput = {
  kind: 'step',
  step_id: '1.1',
  for: 'decision',
  question: 'Did it send?',
  until: '2026-11-24T10:00:00Z',
};

beforeEach(() => (sent.length = 0));

test('every kind of pending input has its prompt, and its commands answer that run', () => {
  expect(Object.keys(PENDING_PROMPTS).sort()).toEqual(['approval', 'budget', 'clarification', 'step']);
  for (const pending of [clarification, approval, budget, humanStep, unknownOutcome]) {
    const prompt = promptFor(pending);
    expect(prompt.show(pending, null).length).toBeGreaterThan(0);
    for (const command of prompt.commands(pending, 'plan-1'))
      expect(command).toMatch(/^planner (answer|approve|reject|raise-budget|complete|resolve) plan-1 /);
  }
  expect(promptFor(clarification).show(clarification, null)).toEqual([
    'question: Which?',
    '  1. A',
    '  2. B (default)',
  ]);
  expect(promptFor(approval).commands(approval, 'plan-1')).toEqual([
    'planner approve plan-1 --version 3',
    'planner reject plan-1 --version 3 --reason "<why>"',
  ]);
});

test('a clarification: a number picks an option, words are free text, Enter takes the default', async () => {
  const prompt = promptFor(clarification);
  await prompt.answer(clarification, typing('1'), client, 'plan-1');
  await prompt.answer(clarification, typing('only the big ones'), client, 'plan-1');
  await prompt.answer(clarification, typing(''), client, 'plan-1');
  expect(await prompt.answer(clarification, typing(null), client, 'plan-1')).toBeNull();
  expect(sent).toEqual([
    ['answer', 'plan-1', { option: 1 }],
    ['answer', 'plan-1', { text: 'only the big ones' }],
    ['answer', 'plan-1', { option: 2 }],
  ]);
});

test('"Something else (describe it)" asks for the words at the terminal and sends them as the answer, never the option', async () => {
  const open: PendingInput = {
    kind: 'clarification',
    text: 'Which report?',
    options: ['Shipments', 'Inspections', 'Something else (describe it)'],
    default_option: 1,
  };
  const asked: string[] = [];
  const replies = ['3', 'rejected inspections in Hannover'];
  const recording: Ask = async (question) => (asked.push(question), replies.shift() ?? null);
  const prompt = promptFor(open);
  await prompt.answer(open, recording, client, 'plan-1');
  expect(asked[1]).toBe('Something else (describe it): your words > ');
  await expect(prompt.answer(open, typing('3', '   '), client, 'plan-1')).rejects.toThrow(
    'describe it in a few words, or pick another option',
  );
  expect(await prompt.answer(open, typing('3', null), client, 'plan-1')).toBeNull(); // the terminal closed: later
  await prompt.answer(open, typing('2'), client, 'plan-1');
  expect(sent).toEqual([
    ['answer', 'plan-1', { text: 'rejected inspections in Hannover' }],
    ['answer', 'plan-1', { option: 2 }],
  ]);
});

test('which options stand for your own words', () => {
  for (const o of [
    'Something else (describe it)',
    'Other (please specify)',
    'Other',
    'None of the above',
    'A custom range (describe it)',
  ])
    expect(asksForOwnWords(o)).toBe(true);
  for (const o of [
    'Shipments from last week',
    'Otherwise rejected loads',
    'Describe the facilities',
    'Facilities (sorting, recycling)',
  ])
    expect(asksForOwnWords(o)).toBe(false);
});

test('an approval: y approves the version shown, n asks why and rejects it, anything else is asked again', async () => {
  const prompt = promptFor(approval);
  expect(await prompt.answer(approval, typing('y'), client, 'plan-1')).toBe('approved');
  expect(await prompt.answer(approval, typing('n', 'too broad'), client, 'plan-1')).toBe('rejected');
  await expect(prompt.answer(approval, typing('maybe'), client, 'plan-1')).rejects.toBeInstanceOf(CliError);
  await expect(prompt.answer(approval, typing('n', '  '), client, 'plan-1')).rejects.toThrow(
    'a rejection needs a reason',
  );
  expect(await prompt.answer(approval, typing(''), client, 'plan-1')).toBeNull();
  expect(sent).toEqual([
    ['approve', 'plan-1', undefined, 3],
    ['reject', 'plan-1', 'too broad', 3],
  ]);
});

test('a budget raise: amounts by name, sent as the raiseBudget payload; malformed ones refused before sending', async () => {
  expect(parseRaise('calls 10 tokens 20000 cost 0.5')).toEqual({ calls: 10, tokens: 20_000, cost_usd: 0.5 });
  expect(parseRaise('calls=5')).toEqual({ calls: 5, tokens: 0, cost_usd: 0 });
  expect(() => parseRaise('more please')).toThrow(CliError);
  expect(() => parseRaise('calls 0')).toThrow(/raise at least one/);
  expect(await promptFor(budget).answer(budget, typing('calls 10'), client, 'plan-1')).toBe(
    'limits raised to 20 calls · 0 tokens · $0.0000',
  );
  expect(sent).toEqual([['raiseBudget', 'plan-1', { calls: 10, tokens: 0, cost_usd: 0 }]]);
});

test('a waiting step: a human step takes the typed answer, an unknown outcome takes retry, done [text] or fail [why]', async () => {
  expect(promptFor(humanStep).commands(humanStep, 'plan-1')).toEqual(['planner complete plan-1 2.1 "<answer>"']);
  expect(promptFor(unknownOutcome).commands(unknownOutcome, 'plan-1')).toEqual([
    'planner resolve plan-1 1.1 retry|done|fail ["<text>"]',
  ]);
  await promptFor(humanStep).answer(humanStep, typing('the blue one'), client, 'plan-1');
  await promptFor(unknownOutcome).answer(unknownOutcome, typing('done it was sent'), client, 'plan-1');
  await promptFor(unknownOutcome).answer(unknownOutcome, typing('retry'), client, 'plan-1');
  await expect(
    promptFor(unknownOutcome).answer(unknownOutcome, typing('perhaps'), client, 'plan-1'),
  ).rejects.toBeInstanceOf(CliError);
  expect(sent).toEqual([
    ['completeStep', 'plan-1', '2.1', 'the blue one'],
    ['resolveStep', 'plan-1', { step: '1.1', decision: 'done', text: 'it was sent' }],
    ['resolveStep', 'plan-1', { step: '1.1', decision: 'retry' }],
  ]);
});
