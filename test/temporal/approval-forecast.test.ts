/**
 * What a person sees when asked to approve (issue 37): each step's params, the plan's estimate and a forecast of its
 * cost (p50 and p90 of calls, tokens, dollars and seconds) from the recorded costs of past runs, the estimate where
 * there are none; after a rejection, the diff against the rejected version and why — and, when the planner could
 * change nothing, that it cannot honour the reason (it asks again, never loops). The waste demo pack and the ranking
 * planner, on the real server; the CLI as a person runs it, at a terminal too. A worker given activities without the
 * cost ones still forecasts (from the estimate), and its runs survive a replay.
 */
import { approveUpdate, getStateQuery, rejectUpdate, type PlanningState } from '../../src/api';
import { PENDING_PROMPTS } from '../../src/cli/prompts';
import type { StateView } from '../../src/cli/json-views';
import { pendingInput } from '../../src/api/progress';
import { MIN_SAMPLES } from '../../src/domain/cost-forecast';
import { plannerCliJson, runPlannerCli, spawnPlannerCli } from '../support/cli';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { SCENARIO, stubActivities } from '../support/stub-activities';
import { connectClient, startTestWorker, uniqueTaskQueue, waitFor } from '../support/temporal';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import type { Client } from '@temporalio/client';

const GOAL = 'Get contaminated shipments from last week and show me the contaminant details';

let pack: WastePack;
let planner: TestPlanner;
let client: Client;
const env = () => ({ PLANNER_TASK_QUEUE: planner.taskQueue, TEMPORAL_UI_URL: '' });

beforeAll(async () => {
  pack = await createWastePack({ today: new Date() });
  planner = await startTestPlanner(pack, { prefix: 'forecast' });
  client = await connectClient();
});
afterAll(async () => {
  await planner?.stop();
  await pack?.close();
  await client?.connection.close();
});

function start(id: string, options: Record<string, unknown>, goal = GOAL) {
  return client.workflow.start('planningWorkflow', {
    taskQueue: planner.taskQueue,
    workflowId: `${id}-${planner.taskQueue}`,
    args: [{ request: { goal, planner: 'ranking' }, options: { search_attributes: false, ...options } }],
  });
}

async function awaitingApproval(workflowId: string, version: number): Promise<PlanningState> {
  let state: PlanningState | undefined;
  await waitFor(
    async () => {
      state = await client.workflow.getHandle(workflowId).query(getStateQuery);
      return state.stage === 'AWAITING_APPROVAL' && state.plan?.version === version;
    },
    30_000,
    `${workflowId} awaiting approval of v${version}`,
  );
  return state!;
}

const promptOf = (state: PlanningState) =>
  PENDING_PROMPTS.approval.show(pendingInput(state) as never, state).join('\n');

test('a run waiting for approval has its cost forecast (from the estimate: no history yet); the prompt, show and --json show it with each step’s params and the estimate; at completion the actual cost is checked against p90', async () => {
  const handle = await start('first', { approval: 'always' });
  const waiting = await awaitingApproval(handle.workflowId, 1);
  const steps = waiting.plan!.tasks.flatMap((t) => t.steps);
  const forecast = waiting.versions.at(-1)!.forecast!;
  expect(forecast).toMatchObject({ from_history: 0, from_estimate: steps.length, basis: [] });
  expect(forecast.p50).toMatchObject({
    calls: waiting.plan!.estimate.calls,
    tokens: waiting.plan!.estimate.tokens,
    cost_usd: waiting.plan!.estimate.cost_usd,
  });
  expect(forecast.p90.seconds).toBeGreaterThan(0);
  expect(waiting.audit.map((a) => a.message)).toContainEqual(
    expect.stringMatching(
      /^cost forecast of plan v1: p50 .* \(0 step\(s\) from recorded costs, \d+ from the estimate\)$/,
    ),
  );

  const prompt = promptOf(waiting);
  for (const s of steps) expect(prompt).toContain(`${s.id} ${s.tool} ${JSON.stringify(s.params)}`);
  expect(prompt).toMatch(/^Estimate: \d+ call\(s\), \d+ tokens, \$\d+\.\d{6}, /m);
  expect(prompt).toMatch(/^Forecast: p50 .* · p90 .* \(0 step\(s\) from recorded costs, \d+ from the estimate\)$/m);

  const show = await runPlannerCli(['show', handle.workflowId], env());
  expect(show.code).toBe(0);
  expect(show.stdout).toMatch(/^Estimate: /m);
  expect(show.stdout).toMatch(/^Forecast: p50 /m);
  const json = await plannerCliJson<StateView>(['show', handle.workflowId, '--json'], env());
  expect(json.plan!.estimate).toEqual({
    calls: waiting.plan!.estimate.calls,
    tokens: waiting.plan!.estimate.tokens,
    costUsd: waiting.plan!.estimate.cost_usd,
    durationMs: waiting.plan!.estimate.duration_ms,
  });
  expect(json.versions.at(-1)!.forecast).toMatchObject({ fromHistory: 0, fromEstimate: steps.length });

  await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] });
  expect((await handle.result()).stage).toBe('COMPLETED');
  const done = await handle.query(getStateQuery);
  const spent = done.steps.reduce((sum, s) => sum + (s.result?.usage.calls ?? 0), 0);
  expect(done.forecast_outcome).toMatchObject({ version: 1, actual: { calls: spent } });
  expect(done.forecast_outcome!.within_p90).toBe(done.forecast_outcome!.over.length === 0);
  expect((await runPlannerCli(['show', handle.workflowId], env())).stdout).toMatch(
    /^Cost of v1: .* (within|over \(.*\)) the p90 forecast$/m,
  );
});

test(`once the same tools have ${MIN_SAMPLES} recorded costs, the forecast comes from them`, async () => {
  for (let i = 0; i < MIN_SAMPLES; i++)
    expect((await (await start(`history-${i}`, { approval: 'never' })).result()).stage).toBe('COMPLETED');
  const handle = await start('from-history', { approval: 'always' });
  const waiting = await awaitingApproval(handle.workflowId, 1);
  const tools = [...new Set(waiting.plan!.tasks.flatMap((t) => t.steps.map((s) => s.tool)))];
  const forecast = waiting.versions.at(-1)!.forecast!;
  expect(forecast.from_estimate).toBe(0);
  expect(forecast.basis.map((b) => b.subject).sort()).toEqual(tools.map((t) => `tool:${t}`).sort());
  for (const b of forecast.basis) expect(b.samples).toBeGreaterThanOrEqual(MIN_SAMPLES);
  expect(forecast.p90.seconds).toBeGreaterThanOrEqual(forecast.p50.seconds);
  await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] });
  expect((await handle.result()).stage).toBe('COMPLETED');
});

test('a step run once per facility found is forecast at the facilities earlier runs found, not at one call', async () => {
  const goal = 'Which facilities in Hannover received rejected shipments last week?';
  const spent: number[] = [];
  for (let i = 0; i < MIN_SAMPLES; i++) {
    const handle = await start(`fan-out-${i}`, { approval: 'never' }, goal);
    expect((await handle.result()).stage).toBe('COMPLETED');
    const done = await handle.query(getStateQuery);
    spent.push(done.steps.reduce((sum, s) => sum + (s.result?.usage.calls ?? 0), 0));
  }
  const handle = await start('fan-out', { approval: 'always' }, goal);
  const waiting = await awaitingApproval(handle.workflowId, 1);
  const steps = waiting.plan!.tasks.flatMap((t) => t.steps);
  expect(steps.map((s) => s.params.facility_id)).toContain('${step[0].data.*.id}');
  // Every run found the same facilities: one facilities call, then one shipments call for each.
  expect(new Set(spent).size).toBe(1);
  expect(spent[0]).toBeGreaterThan(steps.length);
  const forecast = waiting.versions.at(-1)!.forecast!;
  expect(forecast.p50.calls).toBe(spent[0]);
  expect(forecast.p90.calls).toBe(spent[0]);
  await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] });
  expect((await handle.result()).stage).toBe('COMPLETED');
  expect((await handle.query(getStateQuery)).forecast_outcome).toMatchObject({ actual: { calls: spent[0] } });
});

test('a rejection the ranking planner cannot honour: v2 has no step changes, the run says it cannot honour the reason and asks again (it does not loop); the prompt and show give the diff and why', async () => {
  const handle = await start('unhonoured', { approval: 'always', max_rejections: 5 });
  await awaitingApproval(handle.workflowId, 1);
  await handle.executeUpdate(rejectUpdate, { args: [{ plan_version: 1, reason: 'use the lab archive instead' }] });
  const again = await awaitingApproval(handle.workflowId, 2);
  const v2 = again.versions.at(-1)!;
  expect(v2).toMatchObject({ reason: 'human_rejection', diff: { added: [], removed: [], changed: [] } });
  expect(v2.unhonoured_rejection).toBe(
    'plan v2 has no step changes from the rejected v1: the ranking planner cannot honour the reason (use the lab archive instead); approve it as it is, reject it again, or cancel the run',
  );
  expect(again.audit.map((a) => a.message)).toContain(v2.unhonoured_rejection);
  expect(again.versions).toHaveLength(2); // it waits: no v3 is made without a person

  const prompt = promptOf(again);
  expect(prompt).toContain('Plan v1 → v2: no step changes');
  expect(prompt).toContain('v2 (human_rejection): rejected by a person: use the lab archive instead');
  expect(prompt).toContain(`Cannot honour the rejection: ${v2.unhonoured_rejection}`);
  const show = await runPlannerCli(['show', handle.workflowId], env());
  expect(show.stdout).toContain(`Cannot honour the rejection: ${v2.unhonoured_rejection}`);
  const json = await plannerCliJson<StateView>(['show', handle.workflowId, '--json'], env());
  expect(json.versions.at(-1)!.unhonouredRejection).toBe(v2.unhonoured_rejection);

  await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 2 }] });
  expect((await handle.result()).stage).toBe('COMPLETED');
});

test('at a terminal, `planner start --wait` shows the forecast, the estimate and each step’s params at the approval prompt', async () => {
  const id = `tty-${planner.taskQueue}`;
  const cli = spawnPlannerCli(
    ['start', GOAL, '--id', id, '--wait', '--approval', 'always', '--planner', 'ranking'],
    env(),
    { terminal: true },
  );
  try {
    await cli.waitFor(/Approve plan v1\?/, 60_000);
    expect(cli.output()).toMatch(
      /awaits approval\n\s+1\.1 shipments \{.*\} — .*\n[\s\S]*Estimate: .*\n\s*Forecast: p50 /,
    );
    cli.write('y\r');
    expect(await cli.exited).toBe(0);
  } finally {
    cli.kill();
  }
  if (process.env.SHOW_PROMPT === '1') console.log(cli.output()); // the excerpt docs/cli.md shows
});

test('a planner worker given activities without forecastCost and recordCosts forecasts from the estimate, says it records nothing, and its run survives a replay on a new worker', async () => {
  const taskQueue = uniqueTaskQueue('no-cost-history');
  const { forecastCost, recordCosts, ...withoutCosts } = stubActivities({}, taskQueue).activities;
  expect([typeof forecastCost, typeof recordCosts]).toEqual(['function', 'function']); // the stubs have them: left out
  const first = await startTestWorker(taskQueue, { activities: withoutCosts });
  const handle = await client.workflow.start('planningWorkflow', {
    taskQueue,
    workflowId: `no-cost-history-${taskQueue}`,
    args: [{ request: { goal: SCENARIO }, options: { search_attributes: false, approval: 'always' } }],
  });
  try {
    const waiting = await awaitingApproval(handle.workflowId, 1);
    expect(waiting.versions[0]!.forecast).toMatchObject({ from_history: 0, basis: [] });
  } finally {
    await first.stop();
  }
  // A new worker has no cached run: the query and the approval replay the history so far.
  const second = await startTestWorker(taskQueue, { activities: withoutCosts });
  try {
    expect((await handle.query(getStateQuery)).stage).toBe('AWAITING_APPROVAL');
    await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] });
    expect((await handle.result()).stage).toBe('COMPLETED');
    expect((await handle.query(getStateQuery)).audit.map((a) => a.message)).toContain(
      'step costs not recorded for later forecasts: this worker keeps no cost history: its activities were given without recordCosts',
    );
  } finally {
    await second.stop();
  }
});
