/**
 * How `planner watch` ends once the run has closed: an update no longer reaches it, so its last events are read by
 * query, which a worker answers by replaying the run. A follower always ends with the run's final stage line.
 */
import type { PlanningOutcome } from '../../../src/api/state';
import type { ProgressBatch } from '../../../src/api/progress';
import type { Output } from '../../../src/cli/context';
import { watchRun } from '../../../src/cli/watch';
import type { PlannerClient } from '../../../src/client';

const workflowId = 'run-1';
const closeTime = new Date('2026-11-27T08:00:01.234Z');
const outcome: Partial<PlanningOutcome> = {
  workflow_id: workflowId,
  stage: 'COMPLETED',
  plan_version: 1,
  plan_status: 'FEASIBLE',
};
const lastEvents: ProgressBatch = {
  events: [
    {
      kind: 'step',
      seq: 8,
      at: '2026-11-27T08:00:01.000Z',
      step_id: '1.1',
      tool: 'shipments',
      status: 'COMPLETED',
      items: 3,
      bytes: 120,
      preview: null,
      error: null,
    },
    {
      kind: 'stage',
      seq: 9,
      at: '2026-11-27T08:00:01.200Z',
      stage: 'COMPLETED',
      plan_version: 1,
      plan_status: 'FEASIBLE',
    },
  ],
  seq: 9,
  truncated: false,
  closed: true,
  stage: 'COMPLETED',
};

/**
 * A run that closes after its follower has seen events up to 7: the first wait hands them out, the next finds the run
 * closed, and the progress query answers with `queryAnswers` in turn (an Error: the query failed, as when no worker
 * replays the run before the query's timeout).
 */
function closedRun(queryAnswers: (ProgressBatch | Error)[]) {
  const queried: number[] = [];
  let waits = 0;
  const client = {
    waitForProgress: async (): Promise<ProgressBatch> => {
      if (waits++ === 0) return { events: [], seq: 7, truncated: false, closed: false, stage: 'EXECUTING' };
      throw new Error('workflow execution already completed');
    },
    progress: async (_id: string, after: number) => {
      queried.push(after);
      const answer = queryAnswers.shift() ?? new Error('query timed out');
      if (answer instanceof Error) throw answer;
      return answer;
    },
    handle: () => ({
      describe: async () => ({ status: { name: 'COMPLETED' }, closeTime }),
      result: async () => outcome,
    }),
  } as unknown as PlannerClient;
  return { client, queried };
}

const quiet: Output = { json: false, line: () => undefined, data: () => undefined, note: () => undefined };

async function follow(client: PlannerClient) {
  const printed: string[] = [];
  const stage = await watchRun(client, workflowId, quiet, { interactive: false, print: (l) => printed.push(l) });
  return { stage, printed };
}

test('a closed run whose progress query keeps failing still ends its follower on its final stage, read from its result', async () => {
  const { client, queried } = closedRun([]);
  const { stage, printed } = await follow(client);
  expect(stage).toBe('COMPLETED');
  expect(queried).toEqual([7, 7, 7]); // asked a bounded number of times
  expect(printed).toEqual([
    expect.stringContaining("(the run's last events could not be read: planner show run-1)"),
    '08:00:01.234  COMPLETED · plan v1 (FEASIBLE)',
  ]);
});

test('a progress query of a closed run that fails once is asked again, and its follower prints the real last events', async () => {
  const { client, queried } = closedRun([new Error('query timed out'), lastEvents]);
  const { stage, printed } = await follow(client);
  expect(stage).toBe('COMPLETED');
  expect(queried).toEqual([7, 7]);
  expect(printed).toEqual([
    expect.stringMatching(/step 1\.1 shipments \[COMPLETED\] · 3 item\(s\)/),
    '08:00:01.200  COMPLETED · plan v1 (FEASIBLE)',
  ]);
});
