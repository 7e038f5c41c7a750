/**
 * The CLI tells the truth about a run (issue #13): a crash-looping, terminated or failed run is not "no worker
 * answered"; `history` shows workflow-task failures and terminations; run-provided text never reaches the terminal
 * with its escape sequences; `start --id` refuses an existing id unless --reuse-id; `list --limit n` is the n newest.
 * Spawned `node bin/planner.js …` processes against the test dev server, as in cli.test.ts.
 */
import { Worker, NativeConnection } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { plannerCliJson, runPlannerCli, type CliRun } from '../support/cli';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { connectClient, testAddress, uniqueTaskQueue, waitFor } from '../support/temporal';
import { loadConfig } from '../../src/config';

const ESC = '\x1b';

let pack: WastePack;
let planner: TestPlanner;
let client: Client;

const cli = (...args: string[]): Promise<CliRun> =>
  runPlannerCli(args, { TEMPORAL_UI_URL: '', PLANNER_TASK_QUEUE: planner.taskQueue, PLANNER_QUERY_TIMEOUT_MS: '3000' });
const json = <T = any>(...args: string[]): Promise<T> =>
  plannerCliJson<T>(args, {
    TEMPORAL_UI_URL: '',
    PLANNER_TASK_QUEUE: planner.taskQueue,
    PLANNER_QUERY_TIMEOUT_MS: '3000',
  });

/** No raw control character but the newline reaches the terminal. */
function expectNoRawControls(text: string): void {
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
}

beforeAll(async () => {
  pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
  planner = await startTestPlanner(pack, { prefix: 'cli-truth' });
  client = await connectClient();
});
afterAll(async () => {
  await planner?.stop();
  await pack?.close();
  await client?.connection.close();
});

test('a crash-looping run: show names the failing workflow task, history lists it, escapes are printed escaped', async () => {
  const queue = uniqueTaskQueue('crash');
  const connection = await NativeConnection.connect({ address: testAddress() });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: queue,
    workflowsPath: require.resolve('../fixtures/crashing-workflows'),
  });
  const running = worker.run();
  try {
    const id = `truth-crash-${queue}`;
    expect((await cli('start', 'Check the reports', '--id', id, '--task-queue', queue)).code).toBe(0);
    await waitFor(
      async () =>
        ((await client.workflow.getHandle(id).fetchHistory()).events ?? []).some(
          (e) => e.workflowTaskFailedEventAttributes,
        ),
      30_000,
      'the first WorkflowTaskFailed event',
    );
    const shown = await cli('show', id);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(
      /^error: the run's workflow task keeps failing: .*boom \\x1b\[31mred\\x1b\[0m in workflow code \(hint: /,
    );
    expect(shown.stderr).not.toContain('no worker answered');
    expect(shown.stderr.trim().split('\n')).toHaveLength(1);
    expectNoRawControls(shown.stderr);

    const history = await cli('history', id);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/workflow task failed.*boom \\x1b\[31mred/);
    expectNoRawControls(history.stdout);
    const historyJson = await json('history', id);
    expect(historyJson.entries.some((e: any) => e.message.includes(`boom ${ESC}[31mred`))).toBe(true);
    await client.workflow.getHandle(id).terminate('test over');
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
});

test('a terminated run without a worker: show and history give the reason, escaped; --json keeps it as JSON', async () => {
  const queue = `${planner.taskQueue}-nobody`;
  const id = `truth-terminated-${planner.taskQueue}`;
  expect((await cli('start', `Stop me ${ESC}[2J please`, '--id', id, '--task-queue', queue)).code).toBe(0);
  await client.workflow.getHandle(id).terminate(`operator said stop ${ESC}]0;pwned\x07`);

  const shown = await cli('show', id);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/^Run truth-terminated-\S+ · TERMINATED/);
  expect(shown.stdout).toContain('Goal: Stop me \\x1b[2J please');
  expect(shown.stdout).toContain('Terminated: operator said stop \\x1b]0;pwned\\x07');
  expectNoRawControls(shown.stdout);

  const view = await cli('show', id, '--json');
  expect(view.code).toBe(0);
  expectNoRawControls(view.stdout);
  expect(JSON.parse(view.stdout)).toEqual(
    expect.objectContaining({
      workflowId: id,
      source: 'history',
      status: 'TERMINATED',
      goal: `Stop me ${ESC}[2J please`,
      termination: expect.objectContaining({ reason: `operator said stop ${ESC}]0;pwned\x07` }),
    }),
  );

  const history = await cli('history', id);
  expect(history.stdout).toContain('terminated: operator said stop \\x1b]0;pwned\\x07');
  expectNoRawControls(history.stdout);

  const versions = await cli('show', id, '--diff', '1', '2');
  expect(versions.code).toBe(1);
  expect(versions.stderr).toMatch(/^error: run \S+ was terminated: operator said stop \\x1b\]0;pwned\\x07/);
});

test('a failed run whose worker is gone: show falls back to the typed failure from the history', async () => {
  const worker = await startTestPlanner(pack, { prefix: 'cli-truth-failing' });
  const queue = worker.taskQueue;
  const id = `truth-failed-${queue}`;
  const handle = await client.workflow.start('planningWorkflow', {
    taskQueue: queue,
    workflowId: id,
    args: [{ request: { goal: 'x', budget: { cost_usd: -1, tokens: 0, calls: 0 } } }],
    memo: { goal: 'x' },
  });
  await expect(handle.result()).rejects.toThrow();
  await worker.stop();

  const shown = await cli('show', id);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/^Run truth-failed-\S+ · FAILED/);
  expect(shown.stdout).toMatch(/\nFailure: PLAN-006 /);
  expect(shown.stdout).toMatch(/\nHint: /);
  const view = await json('show', id);
  expect(view).toEqual(
    expect.objectContaining({
      status: 'FAILED',
      failure: expect.objectContaining({ type: 'InvalidInputError', code: 'PLAN-006' }),
    }),
  );
});

test('a run refused at input while its worker runs (no state query registered): show and history say what its history does', async () => {
  const id = `truth-refused-${planner.taskQueue}`;
  const handle = await client.workflow.start('planningWorkflow', {
    taskQueue: planner.taskQueue,
    workflowId: id,
    args: [{ request: { goal: 'Check the reports' }, options: { max_replans: -1 } }],
  });
  await expect(handle.result()).rejects.toThrow();

  const shown = await cli('show', id);
  expect(shown.stderr).toBe('');
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/^Run truth-refused-\S+ · FAILED/);
  expect(shown.stdout).toMatch(/\nFailure: PLAN-006 invalid planning options: max_replans/);
  const view = await json('show', id);
  expect(view).toEqual(
    expect.objectContaining({
      status: 'FAILED',
      stage: 'FAILED',
      failure: expect.objectContaining({
        type: 'InvalidInputError',
        code: 'PLAN-006',
        message: expect.stringMatching(/max_replans/),
      }),
    }),
  );

  const history = await cli('history', id);
  expect(history.code).toBe(0);
  expect(history.stdout).not.toMatch(/no worker/);
  expect(history.stdout).toMatch(
    /\(no decision audit, only Temporal events: the run kept no state: it failed: PLAN-006 invalid planning options: max_replans/,
  );
  const entries = await json('history', id);
  expect(entries).toMatchObject({
    auditAvailable: false,
    auditUnavailable: expect.stringMatching(
      /^the run kept no state: it failed: PLAN-006 invalid planning options: max_replans/,
    ),
  });
});

test('start --id refuses an existing id, closed or running, unless --reuse-id (closed only)', async () => {
  const queue = `${planner.taskQueue}-nobody`;
  const id = `truth-reuse-${planner.taskQueue}`;
  expect((await cli('start', 'first', '--id', id, '--task-queue', queue)).code).toBe(0);
  const whileRunning = await cli('start', 'second', '--id', id, '--task-queue', queue, '--reuse-id');
  expect(whileRunning.code).toBe(2);
  expect(whileRunning.stderr).toMatch(/^error: a run with id "truth-reuse-\S+" already exists \(RUNNING\) \(hint: /);
  await client.workflow.getHandle(id).terminate('done');

  const again = await cli('start', 'second', '--id', id, '--task-queue', queue);
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(
    /^error: a run with id "truth-reuse-\S+" already exists \(TERMINATED\) \(hint: .*--reuse-id/,
  );
  expect(again.stderr.trim().split('\n')).toHaveLength(1);

  const reused = await json('start', 'second', '--id', id, '--task-queue', queue, '--reuse-id');
  expect(reused.workflowId).toBe(id);
  await client.workflow.getHandle(id).terminate('done');
});

test('list --limit n gives the n newest runs by start time, whatever order visibility returns them in', async () => {
  const queue = `${planner.taskQueue}-nobody`;
  const ids = [1, 2, 3].map((n) => `truth-list-${n}-${planner.taskQueue}`);
  for (const id of ids) {
    expect((await cli('start', `list ${id}`, '--id', id, '--task-queue', queue)).code).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The newest (3) closes first, the oldest (1) last, 2 keeps running: the server lists 2, 1, 3.
  await client.workflow.getHandle(ids[2]!).terminate('listed');
  await client.workflow.getHandle(ids[0]!).terminate('listed');
  await waitFor(
    async () =>
      (await json<any[]>('list', '--limit', '10000')).filter(
        (r) => ids.includes(r.workflowId) && r.status === 'TERMINATED',
      ).length === 2,
    30_000,
    'the terminated runs in visibility',
  );
  const newest = await client.workflow.getHandle(ids[2]!).describe();
  const [first] = await json<any[]>('list', '--limit', '1');
  expect(first.workflowId).not.toBe(ids[1]);
  expect(Date.parse(first.startTime)).toBeGreaterThanOrEqual(newest.startTime.getTime());
  const three = await json<any[]>('list', '--limit', '3');
  expect(three).toHaveLength(3);
  const starts = three.map((r) => Date.parse(r.startTime));
  expect([...starts].sort((a, b) => b - a)).toEqual(starts);
  await client.workflow.getHandle(ids[1]!).terminate('listed');
});
