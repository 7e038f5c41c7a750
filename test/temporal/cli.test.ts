/**
 * The `planner` CLI as a user drives it: spawned `node bin/planner.js …` processes against the test dev server,
 * with the planner and tool workers running in this process (so every spawn is asynchronous: blocking this event
 * loop would stall the workers that answer the CLI's queries and updates).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { plannerCliJson, runPlannerCli, type CliRun } from '../support/cli';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { connectClient, testAddress, waitFor } from '../support/temporal';
import { loadConfig } from '../../src/config';

let pack: WastePack;
let planner: TestPlanner;

const cli = (...args: string[]): Promise<CliRun> =>
  runPlannerCli(args, {
    TEMPORAL_UI_URL: process.env.TEMPORAL_TEST_UI_URL ?? '',
    PLANNER_TASK_QUEUE: planner.taskQueue,
  });
const json = <T = any>(...args: string[]): Promise<T> =>
  plannerCliJson<T>(args, {
    TEMPORAL_UI_URL: process.env.TEMPORAL_TEST_UI_URL ?? '',
    PLANNER_TASK_QUEUE: planner.taskQueue,
  });

beforeAll(async () => {
  pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
  planner = await startTestPlanner(pack, { prefix: 'cli' });
});
afterAll(async () => {
  await planner?.stop();
  await pack?.close();
});
// Each test drives a dozen CLI processes (a Node start each): minutes on a busy 2-core machine.
jest.setTimeout(300_000);

test('start a vague goal, find it waiting, answer it, show the plan tree and JSON, read the decision history', async () => {
  const id = `cli-${planner.taskQueue}`;
  const started = await json('start', 'Check the reports', '--id', id);
  expect(started).toEqual(expect.objectContaining({ workflowId: id, runId: expect.any(String) }));
  expect(started.webUiUrl).toContain(`/workflows/${id}/`);

  // Visibility is eventually consistent: poll until the run shows up in its stage.
  let listed: { workflowId: string; stage: string }[] = [];
  await waitFor(
    async () => {
      listed = await json('list', '--stage', 'AWAITING_CLARIFICATION');
      return listed.some((r) => r.workflowId === id);
    },
    30_000,
    'the run in `planner list --stage AWAITING_CLARIFICATION`',
  );
  expect(listed.find((r) => r.workflowId === id)).toEqual(
    expect.objectContaining({ stage: 'AWAITING_CLARIFICATION', goal: 'Check the reports' }),
  );

  const waiting = await json('show', id);
  expect(waiting.stage).toBe('AWAITING_CLARIFICATION');
  expect(waiting.question).toEqual({
    text: expect.any(String),
    options: expect.any(Array),
    default: expect.any(Number),
    askedAt: expect.any(String),
  });
  expect(waiting.question.options[0]).toBe('Shipments from last week');
  const waitingText = await cli('show', id);
  expect(waitingText.stdout).toContain('1. Shipments from last week');
  expect(waitingText.stdout).toContain(`planner answer ${id}`);

  // An option that does not exist: the workflow's update validator refuses it; one line, a hint, no stack.
  const invalid = await cli('answer', id, '9');
  expect(invalid.code).toBe(2);
  expect(invalid.stderr.trim().split('\n')).toHaveLength(1);
  expect(invalid.stderr).toMatch(
    /^error: the run refused it: option 9 does not exist; choose 1–\d+: 1\. Shipments from last week/,
  );
  expect(invalid.stderr).toContain(`; see the run's stage and question with \`planner show ${id}\`)`);
  expect(invalid.stderr).not.toMatch(/\n\s+at /);

  const answered = await cli('answer', id, '1');
  expect(answered).toEqual(expect.objectContaining({ code: 0, stdout: `Answered ${id}: Shipments from last week\n` }));

  let state: any;
  await waitFor(
    async () => ['COMPLETED', 'FAILED'].includes((state = await json('show', id)).stage),
    60_000,
    'the run to end',
  );
  expect(state.stage).toBe('COMPLETED');

  // show --json: the documented camelCase contract.
  expect(state).toEqual(
    expect.objectContaining({
      workflowId: id,
      stage: 'COMPLETED',
      question: null,
      budget: {
        policy: 'block',
        limit: expect.objectContaining({ calls: 100 }),
        spent: expect.objectContaining({ calls: expect.any(Number) }),
      },
      versions: [expect.objectContaining({ version: 1, reason: 'initial', explanation: expect.any(String) })],
    }),
  );
  // "Check the reports" itself matches no tool: the plan covers the answer and names what it cannot do.
  expect(state.plan).toEqual(expect.objectContaining({ version: 1, status: 'FEASIBLE', missingCapabilities: [] }));
  const steps = state.plan.tasks.flatMap((t: any) => t.steps);
  expect(steps.length).toBeGreaterThan(0);
  for (const step of steps) {
    expect(step).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        tool: expect.any(String),
        params: expect.any(Object),
        dependsOn: expect.any(Array),
        status: 'COMPLETED',
      }),
    );
  }
  expect(steps[0].tool).toBe('shipments');

  // show: the plan tree.
  const shown = await cli('show', id);
  expect(shown.code).toBe(0);
  const text = shown.stdout;
  expect(text).toMatch(
    /^Task Plan \(v1\) · FEASIBLE · stage COMPLETED\nGoal: Check the reports\. Shipments from last week\nBudget: \d+\/100 calls/,
  );
  expect(text).toContain('Tasks:\n1. [DONE] ');
  expect(text).toMatch(/\n {3}1\.1 \[COMPLETED\] .+ → shipments \{/);
  const onlyTask = await cli('show', id, '--task', '1');
  expect(onlyTask.stdout).toContain('1. [DONE]');
  expect(onlyTask.stdout).not.toContain('\n2. [');

  // history: the decision audit, with times, from the workflow's audit and its event history.
  const history = await json('history', id);
  expect(history.auditAvailable).toBe(true);
  const kinds = new Set(history.entries.map((e: any) => e.kind));
  for (const kind of ['clarification', 'analysis', 'plan', 'critique', 'gatekeeper', 'routing', 'step', 'activity'])
    expect(kinds).toContain(kind);
  expect(history.entries.every((e: any) => !Number.isNaN(Date.parse(e.at)))).toBe(true);
  const historyText = await cli('history', id);
  expect(historyText.stdout).toMatch(/^Decisions of /);
  expect(historyText.stdout).toMatch(/gatekeeper/);
  expect(historyText.stdout).toMatch(/executeStep/);

  // The finished run is in the list too (other test files start runs on this server meanwhile: look past the 50 newest).
  await waitFor(
    async () =>
      (await json<any[]>('list', '--limit', '10000')).some((r) => r.workflowId === id && r.stage === 'COMPLETED'),
    30_000,
    'the completed run listed',
  );
  // --task-queue: only the runs of this worker's queue (this file's), none of another queue's.
  const onQueue = await json<any[]>('list', '--task-queue', planner.taskQueue, '--limit', '10000');
  expect(onQueue.map((r) => r.workflowId)).toContain(id);
  expect(onQueue.every((r) => r.workflowId.startsWith('cli-'))).toBe(true);
  expect(await json<any[]>('list', '--task-queue', `${planner.taskQueue}-nobody's`)).toEqual([]);
});

test('start --wait follows a run to its end and --json prints the final state', async () => {
  const id = `cli-wait-${planner.taskQueue}`;
  const goal = 'Get contaminated shipments from last week and show me the contaminant details';
  const run = await cli('start', goal, '--id', id, '--wait', '--json', '--budget-calls', '20', '--planner', 'ranking');
  expect(run.code).toBe(0);
  const final = JSON.parse(run.stdout);
  expect(final).toEqual(
    expect.objectContaining({
      workflowId: id,
      stage: 'COMPLETED',
      budget: expect.objectContaining({ limit: expect.objectContaining({ calls: 20 }) }),
    }),
  );
  expect(run.stderr).toMatch(/step 1\.1 shipments \[COMPLETED\]/);
  expect(run.stderr).toMatch(/COMPLETED · plan v1 \(FEASIBLE\)/);

  const shown = await cli('show', id);
  // The goal's two parts are two tasks; the second reads the first's ids (step 2.1 depends on 1.1).
  expect(shown.stdout).toMatch(/\n {3}2\.1 \[COMPLETED\] .+ → contaminants-detected .+\n {7}Depends: 1\.1\n/);

  const diffless = await cli('show', id, '--diff', '1', '2');
  expect(diffless.code).toBe(3);
  expect(diffless.stderr).toContain('has no plan version 2 (hint: its versions are v1)');
});

test('errors: unknown id, bad arguments, unreachable server — one line, exit codes 3, 2, 1', async () => {
  const unknown = await cli('show', 'no-such-run');
  expect(unknown.code).toBe(3);
  expect(unknown.stderr).toBe(
    'error: no planning run with id "no-such-run" (hint: list the runs with `planner list`)\n',
  );
  expect((await cli('answer', 'no-such-run', '1')).code).toBe(3);

  const badStage = await cli('list', '--stage', 'SLEEPING');
  expect(badStage.code).toBe(2);
  expect(badStage.stderr).toMatch(/^error: invalid option: stage: .+\(hint: stages are CREATED, /);

  const badBudget = await cli('start', 'x', '--budget-calls', '-3');
  expect(badBudget.code).toBe(2);
  expect(badBudget.stderr.split('\n')).toHaveLength(2);

  // A run no worker polls for: show says so at once instead of hanging on the query.
  const orphan = await json<{ workflowId: string }>(
    'start',
    'Get me shipments from last week',
    '--task-queue',
    `${planner.taskQueue}-nobody`,
  );
  const unanswered = await cli('show', orphan.workflowId);
  expect(unanswered.code).toBe(1);
  expect(unanswered.stderr).toMatch(
    /^error: no worker answered for run .*\(hint: start one with `planner worker --task-queue .*-nobody`/,
  );
  await cli('cancel', orphan.workflowId);

  const down = await cli('show', 'x', '--address', '127.0.0.1:1');
  expect(down.code).toBe(1);
  expect(down.stderr).toMatch(
    /^error: cannot reach Temporal at 127\.0\.0\.1:1 .*\(hint: start a local server with `planner dev`/,
  );
  expect(down.stderr.trim().split('\n')).toHaveLength(1);
});

test('approval: reject with a reason makes v2, `show --diff 1 2` says why, approve runs it; raise-budget and cancel', async () => {
  const id = `cli-approval-${planner.taskQueue}`;
  await json('start', 'Get me shipments from last week', '--id', id, '--require-approval');
  await waitFor(async () => (await json('show', id)).stage === 'AWAITING_APPROVAL', 30_000, 'AWAITING_APPROVAL');
  expect((await cli('show', id)).stdout).toContain(`planner approve ${id}`);

  const noReason = await cli('reject', id, '--reason', ' ');
  expect(noReason.code).toBe(2);
  expect((await cli('reject', id, '--reason', 'only last week, please')).code).toBe(0);
  await waitFor(
    async () => {
      const s = await json('show', id);
      return s.stage === 'AWAITING_APPROVAL' && s.plan?.version === 2;
    },
    30_000,
    'v2 awaiting approval',
  );

  const diff = await cli('show', id, '--diff', '1', '2');
  expect(diff.code).toBe(0);
  expect(diff.stdout).toMatch(/^Plan v1 → v2: /);
  expect(diff.stdout).toMatch(/Why:\n {2}v2 \(human_rejection\): .*only last week, please/);
  const diffJson = await json('show', id, '--diff', '1', '2');
  expect(diffJson).toEqual(
    expect.objectContaining({ from: 1, to: 2, diff: expect.objectContaining({ summary: expect.any(String) }) }),
  );

  const raised = await json('raise-budget', id, '--calls', '5');
  expect(raised.budget.limit.calls).toBe(105);
  expect((await cli('raise-budget', id)).code).toBe(2);

  expect((await cli('approve', id)).stdout).toBe(`${id}: plan v2 approved\n`);
  await waitFor(async () => (await json('show', id)).stage === 'COMPLETED', 30_000, 'COMPLETED');
  const late = await cli('approve', id);
  expect(late.code).toBe(2);
  expect(late.stderr).toMatch(/^error: run \S+ has already ended \(hint: /);

  const cancelId = `cli-cancel-${planner.taskQueue}`;
  await json('start', 'Check the reports', '--id', cancelId);
  await waitFor(async () => (await json('show', cancelId)).stage === 'AWAITING_CLARIFICATION', 30_000, 'the question');
  expect((await cli('cancel', cancelId)).code).toBe(0);
  await waitFor(async () => (await json('show', cancelId)).stage === 'CANCELLED', 30_000, 'CANCELLED');
  expect((await cli('cancel', cancelId)).code).toBe(2);
});

test("a workflow id with `;` comes out shell-quoted in the commands `planner show` and the Web UI's details suggest; pasted, it approves and runs nothing else", async () => {
  const id = `cli-q2;touch pwned;echo 1-${planner.taskQueue}`;
  await json('start', 'Get me shipments from last week', '--id', id, '--require-approval');
  await waitFor(async () => (await json('show', id)).stage === 'AWAITING_APPROVAL', 30_000, 'AWAITING_APPROVAL');
  const quoted = `'${id}'`;
  const shown = (await cli('show', id)).stdout;
  expect(shown).toContain(`planner approve ${quoted}`);
  const client = await connectClient();
  const details = await client.workflow
    .getHandle(id)
    .query<{ currentDetails: string }>('__temporal_workflow_metadata')
    .finally(() => client.connection.close());
  expect(details.currentDetails).toContain(`\`planner approve ${quoted} --version 1\``);

  // The suggested command, pasted into a shell where `planner` is this CLI, in a folder where `touch pwned` would land.
  const pasted = /planner approve \S.*?(?= {2}\||$)/m.exec(shown)![0];
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'paste-'));
  const cliFunction = `planner() { "${process.execPath}" "${path.resolve('bin/planner.js')}" "$@"; }`;
  const run = await promisify(execFile)('sh', ['-c', `${cliFunction}; ${pasted}`], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), PLANNER_TASK_QUEUE: planner.taskQueue },
  });
  expect({ pasted, stdout: run.stdout, stderr: run.stderr }).toEqual({
    pasted: `planner approve ${quoted}`,
    stdout: `${id}: plan v1 approved\n`,
    stderr: '',
  });
  expect(readdirSync(cwd)).toEqual([]);
  await waitFor(async () => (await json('show', id)).stage === 'COMPLETED', 30_000, 'COMPLETED');
});
