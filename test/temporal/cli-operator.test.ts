/**
 * An operator's basics in the `planner` CLI, driven as a person would (spawned processes against the test dev server,
 * the planner and tool workers in this process): what a catalog offers, terminate and a cancellation's reason, a
 * warning when no worker polls a run's task queue, each step's elapsed time and attempts, SIGTERM and Ctrl-C ending
 * `watch` and `demo` at once, and the option that asks for your own words.
 */
import { Context } from '@temporalio/activity';
import type { ToolImplementation } from '../../src/tools/tool';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { plannerCliJson, runPlannerCli, spawnPlannerCli, type CliRun } from '../support/cli';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { uniqueTaskQueue, waitFor } from '../support/temporal';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';

function failsFirstAttempt(name: string) {
  return (tool: ToolImplementation): ToolImplementation =>
    tool.spec.name !== name
      ? tool
      : {
          ...tool,
          async run(params, ctx) {
            if (Context.current().info.attempt === 1) throw new Error(`${name} is down for a moment`);
            return await tool.run(params, ctx);
          },
        };
}

let pack: WastePack;
let planner: TestPlanner;

const env = () => ({ TEMPORAL_UI_URL: '', PLANNER_TASK_QUEUE: planner.taskQueue });
const cli = (...args: string[]): Promise<CliRun> => runPlannerCli(args, env());
const json = <T = any>(...args: string[]): Promise<T> => plannerCliJson<T>(args, env());

beforeAll(async () => {
  pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
  // The shipments tool fails its first attempt of every step: Temporal retries it (the step's elapsed time and attempts).
  planner = await startTestPlanner(pack, { prefix: 'ops', wrap: failsFirstAttempt('shipments') });
});
afterAll(async () => {
  await planner?.stop();
  await pack?.close();
});
jest.setTimeout(300_000);

/** A run that waits on a clarifying question (a vague goal), until something ends it. */
async function waitingRun(id: string): Promise<void> {
  const started = await cli('start', 'Check the reports', '--id', id);
  expect(started.code).toBe(0);
  expect(started.stderr).toBe(''); // a worker polls the queue: no warning
  await waitFor(
    async () => (await json('show', id)).stage === 'AWAITING_CLARIFICATION',
    60_000,
    `${id} to ask its question`,
  );
}

test('planner tools lists what a catalog offers: params with type, required and enum values, side effects, task queue', async () => {
  const waste = await json('tools', '--catalog', 'waste');
  expect(waste.catalog).toBe('waste');
  expect(waste.unavailable).toBeNull();
  const shipments = waste.tools.find((t: any) => t.name === 'shipments');
  expect(shipments).toEqual(
    expect.objectContaining({
      idempotent: true,
      sideEffects: false,
      taskQueue: planner.taskQueue,
      description: expect.stringContaining('shipments'),
    }),
  );
  expect(shipments.params).toContainEqual({
    name: 'status',
    type: 'string',
    required: false,
    enum: ['pending', 'in_transit', 'delivered', 'rejected'],
    description: 'Shipment status',
  });

  const all = await json<any[]>('tools');
  expect(all.map((c) => c.catalog)).toEqual(expect.arrayContaining(['waste']));

  const text = await cli('tools', '--catalog', 'waste');
  expect(text.code).toBe(0);
  expect(text.stdout).toContain(`shipments  [idempotent] queue ${planner.taskQueue}`);
  expect(text.stdout).toContain('status?: string one of "pending", "in_transit", "delivered", "rejected"');

  const unknown = await cli('tools', '--catalog', 'nope');
  expect(unknown.code).toBe(3);
  expect(unknown.stderr).toMatch(/^error: no tool catalog "nope" here \(hint: the catalogs are waste/);
});

test('planner cancel --reason: the run ends CANCELLED and its history keeps the reason', async () => {
  const id = `ops-cancel-${planner.taskQueue}`;
  await waitingRun(id);
  const cancelled = await cli('cancel', id, '--reason', 'the report moved to next week');
  expect(cancelled).toEqual(
    expect.objectContaining({
      code: 0,
      stdout: `Cancellation requested for ${id} (reason: the report moved to next week)\n`,
    }),
  );
  await waitFor(async () => (await json('show', id)).stage === 'CANCELLED', 60_000, `${id} to end CANCELLED`);
  const history = await json('history', id);
  expect(history.entries).toContainEqual(
    expect.objectContaining({
      source: 'history',
      kind: 'message',
      message: 'cancellation requested: the report moved to next week',
    }),
  );

  const again = await cli('cancel', id, '--reason', 'twice');
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`run ${id} is already CANCELLED`);
  expect((await cli('cancel', id, '--reason', '  ')).code).toBe(2);
});

test('planner terminate ends a run at once with its reason, which show and history print', async () => {
  const id = `ops-terminate-${planner.taskQueue}`;
  await waitingRun(id);
  const terminated = await json('terminate', id, '--reason', 'stuck on a bad deploy');
  expect(terminated).toEqual({ workflowId: id, terminated: true, reason: 'stuck on a bad deploy' });
  const shown = await cli('show', id);
  expect(shown.stdout).toContain('Terminated: stuck on a bad deploy');
  const history = await json('history', id);
  expect(history.entries).toContainEqual(
    expect.objectContaining({ kind: 'workflow', message: expect.stringMatching(/^terminated: stuck on a bad deploy/) }),
  );
  const again = await cli('terminate', id);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`run ${id} is already TERMINATED`);
  expect((await cli('terminate', 'ops-no-such-run')).code).toBe(3);
});

test("start, watch and show warn when no worker polls the run's task queue, naming it and the command that serves it", async () => {
  const queue = `${planner.taskQueue}-nobody`;
  const warning = `warning: no worker polls task queue ${queue}: the run waits until one starts there (\`durable-planner worker --task-queue ${queue}\``;
  const started = await cli('start', 'Get me shipments from last week', '--task-queue', queue, '--json');
  expect(started.code).toBe(0);
  expect(started.stderr).toContain(warning);
  const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
  try {
    const watching = spawnPlannerCli(['watch', workflowId, '--no-prompt'], env());
    try {
      await watching.waitFor(new RegExp(warning.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 60_000);
    } finally {
      watching.kill();
      await watching.exited;
    }
    // show needs a worker to answer its query: its error names the queue and how to serve it.
    const shown = await cli('show', workflowId);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(`no worker polls its task queue ${queue}`);
    expect(shown.stderr).toContain(`start one with \`planner worker --task-queue ${queue}\``);
  } finally {
    await cli('terminate', workflowId, '--reason', 'test cleanup');
  }
  // Closed, its plan versions need a worker to replay it: the hint names its queue too.
  const version = await cli('show', workflowId, '--version', '1');
  expect(version.code).toBe(1);
  expect(version.stderr).toContain(
    `(hint: start one with \`planner worker --task-queue ${queue}\`, or see its status without options)`,
  );
});

test('show and watch give each step its elapsed time and, when Temporal retried it, its attempts', async () => {
  const id = `ops-timing-${planner.taskQueue}`;
  await json('start', 'Get me shipments from last week', '--id', id);
  const watched = await cli('watch', id, '--no-prompt');
  expect(watched.code).toBe(0);
  // The step's line once it ended: its items, how long it took (the retry waited a second), its attempts.
  expect(watched.stdout).toMatch(/step \S+ shipments \[COMPLETED\] · \d+ item\(s\) · \d+\.\d s · 2 attempts/);

  const state = await json('show', id);
  expect(state.stage).toBe('COMPLETED');
  const steps = state.plan.tasks.flatMap((t: any) => t.steps);
  const shipments = steps.find((s: any) => s.tool === 'shipments');
  expect(shipments).toEqual(
    expect.objectContaining({
      status: 'COMPLETED',
      attempts: 2,
      startedAt: expect.any(String),
      endedAt: expect.any(String),
    }),
  );
  expect(shipments.elapsedMs).toBe(Date.parse(shipments.endedAt) - Date.parse(shipments.startedAt));
  expect(shipments.elapsedMs).toBeGreaterThanOrEqual(1_000); // the retry's initial interval
  const text = await cli('show', id);
  expect(text.stdout).toMatch(/\[COMPLETED\] .* → shipments .* · \d+\.\d s · 2 attempts\n/);
});

/** Sends `signal` (or types Ctrl-C at its terminal) and resolves with the exit code and how long the exit took. */
async function stop(
  live: ReturnType<typeof spawnPlannerCli>,
  how: () => void,
): Promise<{ code: number | null; ms: number }> {
  const from = Date.now();
  how();
  const code = await Promise.race([live.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
  if (code === 'hung') {
    live.kill();
    throw new Error(`still running 20 s after the signal:\n${live.output()}`);
  }
  return { code, ms: Date.now() - from };
}

test('SIGTERM ends `planner watch` at once while the run waits on a question, and Ctrl-C at its terminal does too', async () => {
  const id = `ops-sigterm-watch-${planner.taskQueue}`;
  await waitingRun(id);
  const piped = spawnPlannerCli(['watch', id], env());
  await piped.waitFor(/answer with: planner answer/);
  const byTerm = await stop(piped, () => piped.kill());
  expect(byTerm.code).toBe(143);
  expect(byTerm.ms).toBeLessThan(5_000);
  expect(piped.output()).toContain('stopped watching (SIGTERM); the run goes on');

  const atTerminal = spawnPlannerCli(['watch', id], env(), { terminal: true });
  await atTerminal.waitFor(/Answer: a number 1–\d+, or your own words/);
  const byCtrlC = await stop(atTerminal, () => atTerminal.write('\x03'));
  expect(byCtrlC.code).toBe(130);
  expect(byCtrlC.ms).toBeLessThan(5_000);
  // The run itself goes on, waiting.
  expect((await json('show', id)).stage).toBe('AWAITING_CLARIFICATION');
  await cli('terminate', id, '--reason', 'test cleanup');
});

test('SIGTERM ends `planner demo --task-queue q` at once while its run waits on a question', async () => {
  const queue = uniqueTaskQueue('ops-demo');
  const demoEnv = { PLANNER_STORE_DIR: mkdtempSync(path.join(os.tmpdir(), 'ops-demo-store-')), TEMPORAL_UI_URL: '' };
  const demo = spawnPlannerCli(['demo', 'Check the reports', '--task-queue', queue], demoEnv);
  let id = '';
  try {
    const text = await demo.waitFor(/answer with: planner answer/, 120_000);
    id = /Started (\S+) on .* \(task queue (\S+)\)/.exec(text)![1]!;
    expect(text).toContain(`(task queue ${queue})`);
    const stopped = await stop(demo, () => demo.kill());
    expect(stopped.ms).toBeLessThan(5_000);
    expect(stopped.code).toBe(143);
    expect(demo.output()).toContain(
      `Stopped (SIGTERM). Run ${id} stays on the server, waiting for workers: \`planner dev --task-queue ${queue}\``,
    );
  } finally {
    demo.kill();
    if (id) await cli('terminate', id, '--reason', 'test cleanup');
  }
});

test("Ctrl-C at its terminal ends `planner demo` at once while it asks the run's question", async () => {
  const queue = uniqueTaskQueue('ops-demo-ctrl-c');
  const demoEnv = { PLANNER_STORE_DIR: mkdtempSync(path.join(os.tmpdir(), 'ops-demo-store-')), TEMPORAL_UI_URL: '' };
  const demo = spawnPlannerCli(['demo', 'Check the reports', '--task-queue', queue], demoEnv, { terminal: true });
  let id = '';
  try {
    const text = await demo.waitFor(/Answer: a number 1–\d+, or your own words/, 120_000);
    id = /Started (\S+) on /.exec(text)![1]!;
    const stopped = await stop(demo, () => demo.write('\x03')); // stop() fails if it is still running 20 s later
    expect(stopped.code).toBe(130);
    expect(demo.output()).toContain(`Stopped (SIGINT). Run ${id} stays on the server`);
  } finally {
    demo.kill();
    // The run itself stays open (terminate refuses a run that is not running).
    if (id) expect((await cli('terminate', id, '--reason', 'test cleanup')).code).toBe(0);
  }
});

test('"Something else (describe it)" asks for the words at the terminal, and the run plans with them', async () => {
  const id = `ops-own-words-${planner.taskQueue}`;
  await waitingRun(id);
  const state = await json('show', id);
  const own = (state.question.options as string[]).indexOf('Something else (describe it)') + 1;
  expect(own).toBeGreaterThan(0);

  // From anywhere: the option alone is refused, saying how to give the words.
  const bare = await cli('answer', id, String(own));
  expect(bare.code).toBe(2);
  expect(bare.stderr).toContain(
    `option ${own} ("Something else (describe it)") asks for your own words (hint: answer with them: planner answer ${id} "<what you need>")`,
  );

  const terminal = spawnPlannerCli(['watch', id], env(), { terminal: true });
  try {
    await terminal.waitFor(/Answer: a number 1–\d+, or your own words/);
    terminal.write(`${own}\r`);
    await terminal.waitFor(/Something else \(describe it\): your words > /);
    terminal.write('Shipments from last week\r');
    expect(await terminal.exited).toBe(0);
  } finally {
    terminal.kill();
  }
  const done = await json('show', id);
  expect(done.stage).toBe('COMPLETED');
  const history = await json('history', id);
  expect(JSON.stringify(history.entries)).toContain('Shipments from last week');
});
