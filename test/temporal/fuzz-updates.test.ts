/**
 * Fuzz against a real run: random payloads sent as answerClarification / approve / reject / raiseBudget /
 * completeStep / resolveStep updates and
 * as answerClarification signals, while the run waits for a clarification and then for approval. Every update is
 * either refused by its validator with an InvalidInputError (nothing enters history) or, when the payload happens
 * to be valid for the stage (a raiseBudget), accepted; every signal is ignored and audited. The run stays in the
 * stage it waits in, the worker keeps running, and the run completes after a valid answer and approval.
 */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import fc from 'fast-check';
import { ApproveSchema, ClarificationAnswerSchema, MESSAGE_LIMITS, RejectSchema } from '../../src/api/messages';
import { readFailure } from '../../src/api/failures';
import { BENCH_GOAL } from '../../bench/bench-pack';
import {
  answerClarificationSignal,
  answerClarificationUpdate,
  approveUpdate,
  completeStepUpdate,
  getStateQuery,
  raiseBudgetUpdate,
  rejectUpdate,
  resolveStepUpdate,
} from '../../src/api';
import type { planningWorkflow } from '../../src/workflows';
import { useBenchPlanner } from '../support/bench-planner';
import { waitFor } from '../support/temporal';

const RUNS_PER_STAGE = 40;

const bench = useBenchPlanner('fuzz');

const payload = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      option: fc.oneof(fc.integer({ min: -3, max: 12 }), fc.double(), fc.string(), fc.constant(null)),
      text: fc.oneof(fc.string(), fc.constant('  '), fc.integer()),
      reason: fc.oneof(fc.string(), fc.constant('')),
      comment: fc.oneof(fc.string(), fc.integer()),
      cost_usd: fc.oneof(fc.double({ noNaN: true }), fc.string()),
      tokens: fc.oneof(fc.integer({ min: -10, max: 10 }), fc.double({ noNaN: true })),
      calls: fc.oneof(fc.integer({ min: -10, max: 10 }), fc.double({ noNaN: true })),
      step: fc.oneof(fc.constantFrom('1.1', '1.2'), fc.string()),
      answer: fc.oneof(fc.string(), fc.integer()),
      decision: fc.oneof(fc.constantFrom('retry', 'done', 'fail'), fc.string()),
      junk: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
);

type Kind = 'answer' | 'approve' | 'reject' | 'raiseBudget' | 'completeStep' | 'resolveStep' | 'answer-signal';
const kind = fc.constantFrom<Kind>(
  'answer',
  'approve',
  'reject',
  'raiseBudget',
  'completeStep',
  'resolveStep',
  'answer-signal',
);

/** Would this message, with this payload, legitimately move the run out of `stage`? Those are not fuzz. */
function movesTheRun(k: Kind, p: unknown, stage: string, options: number): boolean {
  if (k === 'answer' || k === 'answer-signal') {
    const a = ClarificationAnswerSchema.safeParse(p ?? {});
    return stage === 'AWAITING_CLARIFICATION' && a.success && (!('option' in a.data) || a.data.option <= options);
  }
  if (k === 'approve') return stage === 'AWAITING_APPROVAL' && ApproveSchema.safeParse(p ?? {}).success;
  if (k === 'reject') return stage === 'AWAITING_APPROVAL' && RejectSchema.safeParse(p ?? {}).success;
  return false;
}

async function send(
  handle: WorkflowHandle<typeof planningWorkflow>,
  k: Kind,
  p: unknown,
): Promise<'accepted' | 'refused' | 'signalled'> {
  if (k === 'answer-signal') {
    await handle.signal(answerClarificationSignal, p as never);
    return 'signalled';
  }
  const update = {
    answer: answerClarificationUpdate,
    approve: approveUpdate,
    reject: rejectUpdate,
    raiseBudget: raiseBudgetUpdate,
    completeStep: completeStepUpdate,
    resolveStep: resolveStepUpdate,
  }[k];
  try {
    await handle.executeUpdate(update as typeof raiseBudgetUpdate, { args: [p as never] });
    return 'accepted';
  } catch (err) {
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (err as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('InvalidInputError');
    return 'refused';
  }
}

async function fuzzStage(
  handle: WorkflowHandle<typeof planningWorkflow>,
  stage: string,
): Promise<Record<string, number>> {
  const { question } = await handle.query(getStateQuery);
  const options = question?.options.length ?? 0;
  const tally: Record<string, number> = {};
  await fc.assert(
    fc.asyncProperty(kind, payload, async (k, p) => {
      fc.pre(!movesTheRun(k, p, stage, options));
      const result = await send(handle, k, p);
      tally[`${k}:${result}`] = (tally[`${k}:${result}`] ?? 0) + 1;
      if (result === 'accepted') expect(k).toBe('raiseBudget'); // the one message valid in any live stage
      const state = await handle.query(getStateQuery);
      expect(state.stage).toBe(stage);
      expect(state.failure).toBeNull();
    }),
    { numRuns: RUNS_PER_STAGE, maxSkipsPerRun: 100 },
  );
  return tally;
}

test('random updates and signals are refused or ignored; the run stays put, then completes', async () => {
  const handle = await bench.startWaiting('fuzz', 'Add validation', 'AWAITING_CLARIFICATION');
  const beforeClarification = (await handle.fetchHistory()).events!.length;
  const clarifying = await fuzzStage(handle, 'AWAITING_CLARIFICATION');
  expect(Object.keys(clarifying).some((k) => k.endsWith(':refused'))).toBe(true);

  expect(await handle.executeUpdate(answerClarificationUpdate, { args: [{ text: BENCH_GOAL }] })).toBe(BENCH_GOAL);
  await waitFor(async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL', 30_000, 'approval');
  const approving = await fuzzStage(handle, 'AWAITING_APPROVAL');
  expect(Object.keys(approving).some((k) => k.endsWith(':refused'))).toBe(true);

  expect(bench.planner().workers.every((w) => w.getState() === 'RUNNING')).toBe(true);
  await handle.executeUpdate(approveUpdate, { args: [{}] });
  const outcome = await handle.result();
  expect(outcome.stage).toBe('COMPLETED');
  expect(outcome.steps).toHaveLength(10);
  const state = await handle.query(getStateQuery);
  expect(state.versions.map((v) => v.version)).toEqual([1]);
  expect(state.audit.filter((a) => a.message.startsWith('ignored answerClarification signal')).length).toBe(
    (clarifying['answer-signal:signalled'] ?? 0) + (approving['answer-signal:signalled'] ?? 0),
  );
  // Refused updates leave no trace in history; the run's history stays small.
  expect((await handle.fetchHistory()).events!.length).toBeGreaterThan(beforeClarification);
});

test('an update payload over the byte cap, sent by a raw client, is refused by the run naming the cap; such a signal is ignored and audited', async () => {
  const handle = await bench.startWaiting('oversized-updates', 'Add validation', 'AWAITING_CLARIFICATION');
  const oversized = { text: 'x', padding: 'p'.repeat(MESSAGE_LIMITS.payload_bytes) };
  const cap = `over the limit of ${MESSAGE_LIMITS.payload_bytes} bytes`;
  for (const update of [answerClarificationUpdate, raiseBudgetUpdate]) {
    const err = await handle.executeUpdate(update as typeof raiseBudgetUpdate, { args: [oversized as never] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(readFailure(err)).toMatchObject({ code: 'PLAN-006', message: expect.stringContaining(cap) });
  }
  await handle.signal(answerClarificationSignal, oversized as never);
  await waitFor(
    async () =>
      (await handle.query(getStateQuery)).audit.some((a) => a.message.startsWith('ignored answerClarification signal')),
    30_000,
    'the audit entry',
  );
  const state = await handle.query(getStateQuery);
  expect(state.audit.find((a) => a.message.startsWith('ignored answerClarification signal'))!.message).toContain(cap);
  expect(state.stage).toBe('AWAITING_CLARIFICATION');
  await handle.cancel();
});
