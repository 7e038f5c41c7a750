/**
 * Watchers never starve decisions: Temporal lets a run hold 10 updates in flight and refuses more with
 * RESOURCE_EXHAUSTED, so a run holds at most PROGRESS_WAITERS_MAX `waitForProgress` long-polls and `planner watch`
 * reads the getProgress query beyond that. With ten watchers following a run, an approval goes through at once and
 * every watcher still sees the run to its end.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { BENCH_GOAL, createBenchPack } from '../../bench/bench-pack';
import { readFailure } from '../../src/api/failures';
import { PROGRESS_WAITERS_MAX } from '../../src/api/progress';
import type { Output } from '../../src/cli/context';
import { watchRun } from '../../src/cli/watch';
import { PlannerClient } from '../../src/client';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { testAddress, waitFor } from '../support/temporal';

let client: PlannerClient;
let planner: TestPlanner;
beforeAll(async () => {
  const address = testAddress();
  client = await PlannerClient.connect({ address, namespace: 'default', connectionOptions: { address } });
  planner = await startTestPlanner(createBenchPack(), { prefix: 'watchers' });
});
afterAll(async () => {
  await planner?.stop();
  await client?.close();
});

const quiet: Output = { json: false, line: () => undefined, data: () => undefined, note: () => undefined };

async function runAwaitingApproval(name: string): Promise<string> {
  const workflowId = `${name}-${planner.taskQueue}`;
  await client.start(
    { request: { goal: BENCH_GOAL, tool_catalog: 'bench', planner: 'ranking' }, options: { require_approval: true } },
    { workflowId, taskQueue: planner.taskQueue },
  );
  await waitFor(
    async () => (await client.state(workflowId)).stage === 'AWAITING_APPROVAL',
    30_000,
    `${workflowId} awaiting approval`,
  );
  return workflowId;
}

test('with ten `planner watch` followers holding their polls, an approval is taken at once and every follower sees the run complete', async () => {
  const workflowId = await runAwaitingApproval('watched-approval');
  const printed = Array.from({ length: 10 }, () => [] as string[]);
  const watchers = printed.map((lines) =>
    watchRun(client, workflowId, quiet, { interactive: false, print: (line) => lines.push(line) }),
  );
  await waitFor(
    () => printed.every((lines) => lines.some((l) => l.includes('answer with: planner approve'))),
    30_000,
    'every watcher to show the approval',
  );
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // each watcher asks for its next events and holds that poll

  const started = Date.now();
  expect(await client.approve(workflowId, undefined, 1)).toBe('plan v1 approved');
  expect(Date.now() - started).toBeLessThan(5_000);

  expect(await Promise.all(watchers)).toEqual(Array(10).fill('COMPLETED'));
  // Each ends on the run's final stage line (a step's `[COMPLETED]` is not it).
  for (const lines of printed) expect(lines.filter((l) => /^[\d:.]{12} {2}COMPLETED\b/.test(l))).toHaveLength(1);
}, 90_000);

test(`a long-poll beyond the ${PROGRESS_WAITERS_MAX} a run holds is refused at once, typed, naming the query to read instead`, async () => {
  const workflowId = await runAwaitingApproval('waiters-capped');
  const { seq } = await client.progress(workflowId, 0);
  const holding = Array.from({ length: PROGRESS_WAITERS_MAX }, () => client.waitForProgress(workflowId, seq, 60_000));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const refused = await client.waitForProgress(workflowId, seq, 60_000).then(
    () => null,
    (err: unknown) => err,
  );
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  expect(readFailure(refused)).toMatchObject({
    code: 'PLAN-006',
    details: { watchers_max: PROGRESS_WAITERS_MAX },
    hint: expect.stringContaining('getProgress'),
  });
  expect((await client.waitForProgress(workflowId, seq, 0)).seq).toBe(seq); // an answer at once holds nothing: always taken
  expect(await client.approve(workflowId, undefined, 1)).toBe('plan v1 approved');
  for (const batch of await Promise.all(holding))
    expect(batch.events.some((e) => e.kind === 'stage' && e.stage === 'APPROVED')).toBe(true);
  await client.handle(workflowId).result();
}, 90_000);
