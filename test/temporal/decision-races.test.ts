/**
 * Concurrent decisions on one run: ten `approve` / `reject` updates for the same plan version, or ten clarification
 * answers, sent at once. Exactly one wins; every other caller is refused (PLAN-006) naming the decision that won, and
 * the run does what the winner was told: an approved v1 runs, a rejected v1 is followed by v2, the winning answer is
 * the one the next analysis reads.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { BENCH_GOAL } from '../../bench/bench-pack';
import { answerClarificationUpdate, approveUpdate, getStateQuery, rejectUpdate } from '../../src/api';
import { readFailure } from '../../src/api/failures';
import { useBenchPlanner, type BenchPlanner } from '../support/bench-planner';
import { waitFor } from '../support/temporal';

const ROUNDS = 20;

const bench = useBenchPlanner('races');

/** `count` runs of `goal`, each waiting in `stage` when this returns. */
function runsWaitingIn(name: string, goal: string, count: number, stage: Parameters<BenchPlanner['startWaiting']>[2]) {
  return Promise.all(Array.from({ length: count }, (_, i) => bench.startWaiting(`${name}-${i}`, goal, stage)));
}

/** The one fulfilled call of a round and the refusals of all the others (each must be a typed PLAN-006). */
function oneWinner<T>(settled: PromiseSettledResult<T>[]): { winner: number; value: T; refusals: string[] } {
  const won = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [{ i, value: s.value }] : []));
  expect(won).toHaveLength(1);
  const refusals = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  for (const err of refusals) {
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(readFailure(err).code).toBe('PLAN-006');
  }
  return { winner: won[0]!.i, value: won[0]!.value, refusals: refusals.map((e) => readFailure(e).message) };
}

test(`${ROUNDS} rounds of five approvals and five rejections of v1 at once: one wins, the others are refused naming it, and the run does what the winner was told`, async () => {
  const handles = await runsWaitingIn('approval-race', BENCH_GOAL, ROUNDS, 'AWAITING_APPROVAL');
  const told: string[] = [];
  for (const handle of handles) {
    const decisions = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1, comment: `approver ${i}` }] })
        : handle.executeUpdate(rejectUpdate, { args: [{ plan_version: 1, reason: `rejecter ${i}` }] }),
    );
    const { value, refusals } = oneWinner(await Promise.allSettled(decisions));
    told.push(value);
    const won = value === 'plan v1 approved' ? 'approved' : 'rejected';
    expect(value).toMatch(/^plan v1 (approved|rejected; refining)$/);
    for (const refusal of refusals) expect(refusal).toContain(`plan v1 was already ${won}`);
  }
  await Promise.all(
    handles.map(async (handle, round) => {
      if (told[round] === 'plan v1 approved') {
        const outcome = await handle.result();
        expect(outcome).toMatchObject({ stage: 'COMPLETED', plan_version: 1 });
        return;
      }
      await waitFor(
        async () => (await handle.query(getStateQuery)).plan?.version === 2,
        30_000,
        `${handle.workflowId}: plan v2`,
      );
      const state = await handle.query(getStateQuery);
      expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'human_rejection']);
      expect(state.steps.every((s) => s.status !== 'COMPLETED')).toBe(true); // v1 never ran
      await handle.cancel();
    }),
  );
}, 120_000);

test(`${ROUNDS} rounds of ten clarification answers at once: one wins, the others are refused naming it, and the winning answer is the one taken`, async () => {
  const handles = await runsWaitingIn('answer-race', 'Add validation', ROUNDS, 'AWAITING_CLARIFICATION');
  const winners: string[] = [];
  for (const handle of handles) {
    const answers = Array.from({ length: 10 }, (_, i) =>
      handle.executeUpdate(answerClarificationUpdate, { args: [{ text: `${BENCH_GOAL} (answer ${i})` }] }),
    );
    const { value, refusals } = oneWinner(await Promise.allSettled(answers));
    winners.push(value);
    for (const refusal of refusals) expect(refusal).toContain(`already answered by an earlier answer: ${value}`);
  }
  await Promise.all(
    handles.map(async (handle, round) => {
      await waitFor(
        async () => (await handle.query(getStateQuery)).clarifications.length === 1,
        30_000,
        `${handle.workflowId}: the answer taken`,
      );
      expect((await handle.query(getStateQuery)).clarifications[0]).toMatchObject({
        answer: winners[round],
        by: 'user',
      });
      await handle.cancel();
    }),
  );
}, 120_000);
