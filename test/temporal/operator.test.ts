/**
 * The operator at a terminal: `planner start --wait` asks the run's questions where the person is (a clarification,
 * an approval; a refused answer is shown and asked again) and the run completes; without a terminal it prints the
 * exact commands that answer and keeps waiting; `planner watch` is pushed every change, so it shows every stage of a
 * run, even stages the run passes in under 100 ms, which polling twice a second misses.
 */
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { planningWorkflow } from '../../src/workflows';
import { connectClient, waitFor } from '../support/temporal';
import { runPlannerCli, spawnPlannerCli } from '../support/cli';
import { recordHistory, startTestPlanner, type TestPlanner } from '../support/planner-workers';
import type { Client } from '@temporalio/client';
import { getStateQuery, type ProgressEvent } from '../../src/api';
import { loadConfig } from '../../src/config';

let pack: WastePack;
let planner: TestPlanner;
let client: Client;
const env = () => ({ PLANNER_TASK_QUEUE: planner.taskQueue, TEMPORAL_UI_URL: '' });

beforeAll(async () => {
  pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
  planner = await startTestPlanner(pack, { prefix: 'operator' });
  client = await connectClient();
});
afterAll(async () => {
  await planner?.stop();
  await pack?.close();
  await client?.connection.close();
});

test('at a terminal, start --wait asks the clarification and the approval in place, re-asks a refused answer, and the run completes', async () => {
  const id = `operator-tty-${planner.taskQueue}`;
  const cli = spawnPlannerCli(
    ['start', 'Check the reports', '--id', id, '--wait', '--require-approval', '--planner', 'ranking'],
    env(),
    { terminal: true },
  );
  try {
    await cli.waitFor(/question: .+\n[\s\S]*1\. Shipments from last week \(default\)[\s\S]*Answer: a number 1–\d+/);
    expect(cli.output()).not.toContain('answer with:');
    cli.write('9\r');
    await cli.waitFor(/refused: option 9 does not exist[\s\S]*Answer: a number/);
    let mark = cli.output().length;
    cli.write('1\r');
    await cli.waitFor(/Approve plan v1\?/, 60_000, mark);
    // The plan to review is shown before the question.
    expect(cli.output().slice(mark)).toMatch(
      /plan v1 \(FEASIBLE, \d+ step\(s\)\) awaits approval\s+1\.1 shipments \{.*\} — /,
    );
    mark = cli.output().length;
    cli.write('n\r');
    await cli.waitFor(/Why reject it\?/, 30_000, mark);
    cli.write('only last week please\r');
    await cli.waitFor(/Approve plan v2\?/, 60_000, mark);
    cli.write('y\r');
    expect(await cli.exited).toBe(0);
  } finally {
    cli.kill();
  }
  const out = cli.output();
  expect(out).toContain('Shipments from last week');
  expect(out).toContain('plan v1 rejected; refining');
  expect(out).toContain('plan v2 approved');
  expect(out).toMatch(/COMPLETED · plan v2/);
  const state = await client.workflow.getHandle(id).query(getStateQuery);
  expect(state.stage).toBe('COMPLETED');
  expect(state.clarifications).toEqual([expect.objectContaining({ answer: 'Shipments from last week', by: 'user' })]);
  expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'human_rejection']);
});

test('without a terminal, start --wait prints the commands that answer and keeps waiting until they are used', async () => {
  const id = `operator-pipe-${planner.taskQueue}`;
  const cli = spawnPlannerCli(
    ['start', 'Check the reports', '--id', id, '--wait', '--require-approval', '--planner', 'ranking'],
    env(),
  );
  try {
    await cli.waitFor(
      new RegExp(`answer with: planner answer ${id} 1\\n.*answer with: planner answer ${id} "<your own answer>"`),
    );
    expect(cli.output()).toMatch(/question: .+\n\s+1\. Shipments from last week \(default\)/);
    expect(await runPlannerCli(['answer', id, '1'], env())).toEqual(expect.objectContaining({ code: 0 }));
    await cli.waitFor(
      new RegExp(
        `answer with: planner approve ${id} --version 1\\n.*answer with: planner reject ${id} --version 1 --reason "<why>"`,
      ),
    );
    expect(await runPlannerCli(['approve', id, '--version', '1'], env())).toEqual(expect.objectContaining({ code: 0 }));
    expect(await cli.exited).toBe(0);
  } finally {
    cli.kill();
  }
  expect(cli.output()).toMatch(/COMPLETED · plan v1 \(FEASIBLE\)/);
});

test('planner watch shows every stage of a run, including those passed in under 100 ms, each as it happens', async () => {
  const handle = await client.workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId: `operator-watch-${planner.taskQueue}`,
    args: [
      {
        request: {
          goal: 'Get contaminated shipments from last week and show me the contaminant details',
          planner: 'ranking',
        },
        options: { require_approval: true },
      },
    ],
  });
  await waitFor(
    async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL',
    60_000,
    'the run to await approval',
  );
  const json = spawnPlannerCli(['watch', handle.workflowId, '--json'], env());
  const text = spawnPlannerCli(['watch', handle.workflowId, '--no-prompt'], env());
  try {
    await json.waitFor(/"stage":"AWAITING_APPROVAL"/);
    await text.waitFor(/AWAITING_APPROVAL · plan v1/);
    await handle.executeUpdate('approve', { args: [{ plan_version: 1 }] });
    expect(await json.exited).toBe(0);
    expect(await text.exited).toBe(0);
    // Its history, with waitForProgress updates and their timers, joins those the replay test replays.
    await recordHistory(handle, 'progress-watched');
  } finally {
    json.kill();
    text.kill();
  }
  const events = json
    .output()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ProgressEvent);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const stages = events.flatMap((e) => (e.kind === 'stage' ? [{ stage: e.stage, at: Date.parse(e.at) }] : []));
  expect(stages.map((s) => s.stage)).toEqual([
    'ANALYZING',
    'PLANNING',
    'CRITIQUING',
    'AWAITING_APPROVAL',
    'APPROVED',
    'ROUTED',
    'EXECUTING',
    'COMPLETED',
  ]);
  const lasted = (stage: string) =>
    stages[stages.findIndex((s) => s.stage === stage) + 1]!.at - stages.find((s) => s.stage === stage)!.at;
  expect(lasted('ROUTED')).toBeLessThan(100);
  expect(lasted('APPROVED')).toBeLessThan(100);
  expect(events.filter((e) => e.kind === 'step' && e.status === 'COMPLETED')).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        step_id: '1.1',
        tool: 'shipments',
        items: expect.any(Number),
        preview: expect.any(String),
      }),
    ]),
  );
  expect(events.some((e) => e.kind === 'question' && e.pending.kind === 'approval')).toBe(true);
  // The text watcher printed the same stages, one line each.
  for (const s of stages) expect(text.output()).toMatch(new RegExp(`\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  ${s.stage}\\b`));
  expect(text.output()).toMatch(
    /step 1\.1 shipments \[RUNNING\]\n.*step 1\.1 shipments \[COMPLETED\] · \d+ item\(s\) · /,
  );
});

test('the event sequence goes on across continue-as-new: a watcher sees every event once, numbered without a gap', async () => {
  const workflowId = `operator-can-${planner.taskQueue}`;
  await client.workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId,
    // So few events per run that the run continues as new before every stage.
    args: [
      {
        request: {
          goal: 'Get contaminated shipments from last week and show me the contaminant details',
          planner: 'ranking',
        },
        options: { require_approval: true, continue_as_new_after_events: 12 },
      },
    ],
  });
  const handle = client.workflow.getHandle(workflowId); // the latest run, whichever it is
  await waitFor(
    async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL',
    60_000,
    'the run to await approval',
  );
  const watch = spawnPlannerCli(['watch', workflowId, '--json'], env());
  let before: number;
  try {
    await watch.waitFor(/"kind":"question"/);
    before = (await handle.query(getStateQuery)).continued_as_new;
    await handle.executeUpdate('approve', { args: [{ plan_version: 1 }] });
    expect(await watch.exited).toBe(0);
  } finally {
    watch.kill();
  }
  const state = await handle.query(getStateQuery);
  expect(state.continued_as_new).toBeGreaterThan(before);
  // The watcher came after earlier continue-as-news, so it starts where this run's buffer starts (told on stderr).
  const events = watch
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as ProgressEvent);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => events[0]!.seq + i));
  expect(events.flatMap((e) => (e.kind === 'stage' ? [e.stage] : [])).slice(-4)).toEqual([
    'APPROVED',
    'ROUTED',
    'EXECUTING',
    'COMPLETED',
  ]);
  expect(state.progress_seq).toBe(events[events.length - 1]!.seq);
});
