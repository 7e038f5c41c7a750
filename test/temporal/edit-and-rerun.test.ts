/**
 * People in control of a run (issue 37), items 1 and 4: a person edits the plan awaiting approval (editPlan, `planner
 * edit`): the edit is validated as a generated plan, recorded as a version with its diff, critiqued and approved
 * again, and under four_eyes its editor may not approve it; a closed run is re-run from a step (`planner rerun`) as a
 * new run that keeps the steps upstream of it by reference and runs and charges only the step and its cone. A
 * three-step pack (fetch → enrich → notify, the last side-effecting) and the LLM planner scripted, on the real server.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { getStateQuery, readFailure, type PlanningState } from '../../src/api';
import { cliIdentity } from '../../src/cli/context';
import { StepOutcomeUnknownError } from '../../src/domain/errors';
import { defineTool, defineToolPack } from '../../src/tools/define-tool';
import { runPlannerCli, spawnPlannerCli } from '../support/cli';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';
import { plannerReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { awaitingApproval, refusal, usePeople } from '../support/people';
import { waitFor } from '../support/temporal';

/** Each tool's calls, in order, with their params; the notification's idempotency keys. */
const calls: { tool: string; params: unknown }[] = [];
const notified = new Set<string>();
/** When set, the next notification's outcome is unknown (PLAN-014): the run asks a person to decide on it. */
let unknownOutcomeNext = false;
const COST = 0.01;

const tool = (name: string, description: string, idempotent: boolean) =>
  defineTool({
    name,
    description,
    params: z.object({ region: z.string().optional(), limit: z.number().int().optional() }),
    result: z.object({ ok: z.boolean() }),
    idempotent,
    ...(idempotent ? {} : { keyed: true }),
    cost: { cost_per_call_usd: COST },
    tags: name.split('_'),
    run: async (params, ctx) => {
      calls.push({ tool: name, params });
      if (!idempotent && unknownOutcomeNext) {
        unknownOutcomeNext = false;
        throw new StepOutcomeUnknownError('the mail server dropped the connection after the request was sent');
      }
      if (!idempotent) notified.add(ctx.idempotencyKey);
      return { ok: true };
    },
  });

const pack = defineToolPack('orders', [
  tool('fetch_orders', 'Fetch the open orders.', true),
  tool('enrich_orders', 'Add customer details to orders.', true),
  tool('notify_customers', 'Email customers about their orders.', false),
]);

const step = (i: number, name: string, params: object, depends_on: number[]) => ({
  id: `1.${i + 1}`,
  title: name.replace('_', ' '),
  action: 'tool_call',
  tool: name,
  params,
  depends_on,
  parallel: false,
});
const STEPS = [
  step(0, 'fetch_orders', { region: 'north' }, []),
  step(1, 'enrich_orders', { limit: 10 }, [0]),
  step(2, 'notify_customers', {}, [1]),
];

let llm: ScriptedLlmServer;
let planner: TestPlanner;
const people = usePeople({ alice: 'alice@ops', bob: 'bob@ops', carol: 'carol@ops' });

beforeAll(async () => {
  llm = await startScriptedLlmServer({
    reply: plannerReplies({
      steps: ['Fetch the open orders', 'Add customer details', 'Email the customers'],
      capabilities: ['fetch_orders', 'enrich_orders', 'notify_customers'],
      plan: () =>
        JSON.stringify({
          status: 'FEASIBLE',
          tasks: [{ id: '1', title: 'Orders', steps: STEPS }],
          complexity: 2,
          estimate: { cost_usd: 3 * COST, tokens: 0, calls: 3, duration_ms: 1000 },
        }),
    }),
  });
  planner = await startTestPlanner(pack, { prefix: 'edit', env: llm.env });
});

afterAll(async () => {
  await planner?.stop();
  await llm?.close();
});

const request = {
  goal: 'Email the customers about their open orders',
  tool_catalog: 'orders',
  planner: 'llm',
} as const;

async function start(id: string, options: Record<string, unknown>) {
  return await people.alice.start(
    { request, options: { search_attributes: false, plan_cache: 'off', ...options } },
    { workflowId: `${id}-${planner.taskQueue}`, taskQueue: planner.taskQueue },
  );
}

describe('editPlan', () => {
  test("a patch changing a step's params and removing a step is validated, recorded as v2 (human_edit) with its diff and editor, critiqued and awaits approval again; the edited plan is the one that runs", async () => {
    calls.length = 0;
    const handle = await start('edit', { approval: 'always' });
    await awaitingApproval(people.alice, handle.workflowId, 1);
    const reply = await people.bob.editPlan(handle.workflowId, {
      plan_version: 1,
      comment: 'south only, no emails',
      patch: [
        { op: 'add', path: '/tasks/0/steps/0/params/region', value: 'south' },
        { op: 'remove', path: '/tasks/0/steps/2' },
      ],
    });
    expect(reply).toBe('plan v2 recorded from your edit of v1; it is critiqued and awaits approval again');
    const state = await awaitingApproval(people.alice, handle.workflowId, 2);
    const v2 = state.versions.find((v) => v.version === 2)!;
    expect(v2).toMatchObject({
      reason: 'human_edit',
      parent_version: 1,
      by: 'bob@ops',
      explanation: 'edited by bob@ops: south only, no emails',
      diff: { added: [], removed: ['1.3'], changed: [{ id: '1.1', fields: ['params'] }] },
      // The criterion the system derived for the removed step went with it.
      json_changes: ['/tasks/0/acceptance_criteria/0', '/tasks/0/steps/0/params/region', '/tasks/0/steps/2'],
    });
    expect(state.audit.find((a) => a.message.startsWith('plan v1 edited'))).toMatchObject({
      kind: 'plan',
      decision: 'edit',
      by: 'bob@ops',
      message:
        'plan v1 edited by bob@ops into v2: /tasks/0/acceptance_criteria/0, /tasks/0/steps/0/params/region, /tasks/0/steps/2',
    });
    expect(state.audit.map((a) => a.message)).toContain(
      'CRITIQUING → AWAITING_APPROVAL: a person must approve plan v2: a person edited it',
    );
    // v1 is decided: a late approval of it is refused, naming the edit.
    const late = await refusal(people.alice.approve(handle.workflowId, undefined, 1));
    expect(readFailure(late).message).toMatch(
      /plan v1 was already edited by an earlier update; the plan awaiting approval is v2/,
    );
    await people.alice.approve(handle.workflowId, undefined, 2);
    expect((await handle.result()).stage).toBe('COMPLETED');
    expect(calls).toEqual([
      { tool: 'fetch_orders', params: { region: 'south' } },
      { tool: 'enrich_orders', params: {} },
    ]);
  });

  test('an invalid edit is refused naming the issue, and the run is unchanged: still v1 awaiting approval', async () => {
    const handle = await start('invalid-edit', { approval: 'always' });
    const before = await awaitingApproval(people.alice, handle.workflowId, 1);
    const unknownTool = await refusal(
      people.bob.editPlan(handle.workflowId, {
        plan_version: 1,
        patch: [{ op: 'replace', path: '/tasks/0/steps/1/tool', value: 'delete_orders' }],
      }),
    );
    expect(unknownTool).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(readFailure(unknownTool)).toMatchObject({
      code: 'PLAN-003',
      message: expect.stringMatching(/\[UNKNOWN_TOOL\].*delete_orders/),
    });
    const badDependency = await refusal(
      people.bob.editPlan(handle.workflowId, {
        plan_version: 1,
        patch: [{ op: 'replace', path: '/tasks/0/steps/1/depends_on', value: [7] }],
      }),
    );
    expect(readFailure(badDependency).message).toMatch(/plan failed validation with \d+ issue\(s\):\n\[/);
    const badPatch = await refusal(
      people.bob.editPlan(handle.workflowId, { plan_version: 1, patch: [{ op: 'remove', path: '/tasks/0/steps/9' }] }),
    );
    expect(readFailure(badPatch)).toMatchObject({
      code: 'PLAN-006',
      message: 'patch operation 0 (remove /tasks/0/steps/9): index "9" is out of the array\'s range (length 3)',
    });
    const wrongVersion = await refusal(
      people.bob.editPlan(handle.workflowId, { plan_version: 2, patch: [{ op: 'remove', path: '/tasks/0/steps/2' }] }),
    );
    expect(readFailure(wrongVersion).message).toBe(
      'editPlan refused: the edit is of plan v2, but the plan awaiting approval is v1',
    );
    const after = await people.alice.state(handle.workflowId);
    expect(after.stage).toBe('AWAITING_APPROVAL');
    expect(after.versions.map((v) => v.version)).toEqual([1]);
    expect(after.plan).toEqual(before.plan);
    await people.alice.reject(handle.workflowId, 'not now', 1).catch(() => undefined);
    await people.alice.cancel(handle.workflowId);
  });

  test('four_eyes refuses an approval by the last editor, and by the starter; a third person approves', async () => {
    const handle = await start('four-eyes-edit', { approval: 'always', four_eyes: true });
    const { workflowId } = handle;
    await awaitingApproval(people.alice, workflowId, 1);
    await people.bob.editPlan(workflowId, {
      plan_version: 1,
      patch: [{ op: 'add', path: '/tasks/0/steps/1/params/limit', value: 3 }],
    });
    await awaitingApproval(people.alice, workflowId, 2);
    const byEditor = await refusal(people.bob.approve(workflowId, 'mine', 2));
    expect(readFailure(byEditor)).toMatchObject({
      code: 'PLAN-006',
      message:
        'approve refused by four_eyes: bob@ops made the last edit of this plan, so another person must approve plan v2',
    });
    const byStarter = await refusal(people.alice.approve(workflowId, undefined, 2));
    expect(readFailure(byStarter).message).toMatch(/alice@ops started this run/);
    await people.carol.approve(workflowId, 'checked', 2);
    expect((await handle.result()).stage).toBe('COMPLETED');
  });
});

describe('re-run from a step', () => {
  test('a closed run re-run from step 2 of 3 is a new run that keeps step 1 by reference, runs steps 2 and 3 only, charges only them, and gives the side effect a new idempotency key', async () => {
    calls.length = 0;
    notified.clear();
    const first = await start('closed', { approval: 'never' });
    expect((await first.result()).stage).toBe('COMPLETED');
    const old = await first.query(getStateQuery);
    expect(calls.map((c) => c.tool)).toEqual(['fetch_orders', 'enrich_orders', 'notify_customers']);
    const stepCharges = (state: PlanningState) =>
      state.audit.filter((a) => a.kind === 'budget' && a.message.startsWith('step ')).map((a) => a.message);
    expect(stepCharges(old)).toHaveLength(3);

    // A closed run takes no update: Temporal itself refuses rerunFrom, and a re-run is a new run.
    const refused = await refusal(people.alice.rerunFrom(first.workflowId, '1.2'));
    expect(String(refused)).toMatch(/already completed/);

    calls.length = 0;
    const rerun = await people.alice.rerunClosed(
      first.workflowId,
      { from: '1.2', patch: [{ op: 'add', path: '/tasks/0/steps/1/params/limit', value: 5 }] },
      { workflowId: `rerun-${planner.taskQueue}`, taskQueue: planner.taskQueue },
    );
    expect((await rerun.result()).stage).toBe('COMPLETED');
    const state = await rerun.query(getStateQuery);
    expect(calls).toEqual([
      { tool: 'enrich_orders', params: { limit: 5 } },
      { tool: 'notify_customers', params: {} },
    ]);
    expect(stepCharges(state)).toEqual([
      'step 1.2: 1 call(s), 0 tokens, $0.010000',
      'step 1.3: 1 call(s), 0 tokens, $0.010000',
    ]);
    // No plan was generated for it: the only LLM charge is the pre-mortem of the given plan (it has a side-effecting
    // step); the rules analysed the clear goal alone.
    expect(state.audit.filter((a) => a.kind === 'budget').map((a) => a.message.split(':')[0])).toEqual([
      'critique',
      'step 1.2',
      'step 1.3',
    ]);
    expect(state.budget.spent.cost_usd).toBeLessThan(old.budget.spent.cost_usd - COST);
    expect(state.rerun_of).toEqual({ workflow_id: first.workflowId, from: '1.2' });
    const kept = state.steps.find((s) => s.id === '1.1')!;
    expect(kept).toMatchObject({ status: 'COMPLETED', result: old.steps[0]!.result });
    expect(state.steps.map((s) => s.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(notified.size).toBe(2); // the notification happened again, under a key of its own
    expect(state.versions[0]!.explanation).toBe(
      `re-run of ${first.workflowId} from step 1.2: runs 1.2, 1.3 again under this run's own idempotency keys (their effects are meant to happen again); keeps 1.1 (results by reference)`,
    );
  });
});

describe('re-run an open run from a step', () => {
  test('a step awaiting a decision: rerunFrom step 2 of 3 records v2 (rerun) that keeps step 1 by reference, runs steps 2 and 3 only, charges only them, and gives the re-run side effect a new idempotency scope', async () => {
    calls.length = 0;
    notified.clear();
    unknownOutcomeNext = true;
    const handle = await start('open-rerun', { approval: 'never' });
    const { workflowId } = handle;
    let state: PlanningState | undefined;
    await waitFor(
      async () => (state = await people.alice.state(workflowId)).steps[2]?.waiting?.for === 'decision',
      30_000,
      'step 1.3 awaiting a decision',
    );
    expect(calls.map((c) => c.tool)).toEqual(['fetch_orders', 'enrich_orders', 'notify_customers']);
    const kept = state!.steps[0]!.result;
    const before = state!.audit.length;
    calls.length = 0;

    const reply = await people.bob.rerunFrom(workflowId, '1.2', [
      { op: 'add', path: '/tasks/0/steps/1/params/limit', value: 5 },
    ]);
    expect(reply).toBe('plan v2 re-runs 1.2, 1.3 from step 1.2; kept: 1.1');
    expect((await handle.result()).stage).toBe('COMPLETED');
    const after = await handle.query(getStateQuery);
    expect(calls).toEqual([
      { tool: 'enrich_orders', params: { limit: 5 } },
      { tool: 'notify_customers', params: {} },
    ]);
    expect(after.versions.map((v) => [v.version, v.reason, v.by ?? null])).toEqual([
      [1, 'initial', null],
      [2, 'rerun', 'bob@ops'],
    ]);
    expect(after.versions[1]!.diff).toMatchObject({ changed: [{ id: '1.2', fields: ['params'] }] });
    expect(after.steps.map((s) => [s.id, s.status, s.completed_in_version])).toEqual([
      ['1.1', 'COMPLETED', 1],
      ['1.2', 'COMPLETED', 2],
      ['1.3', 'COMPLETED', 2],
    ]);
    expect(after.steps[0]!.result).toEqual(kept);
    const since = after.audit.slice(before);
    expect(since.filter((a) => a.kind === 'budget').map((a) => a.message.split(':')[0])).toEqual([
      'critique',
      'step 1.2',
      'step 1.3',
    ]);
    expect(since.find((a) => a.message.startsWith('re-run from step 1.2'))).toMatchObject({
      decision: 'rerun',
      by: 'bob@ops',
      message:
        're-run from step 1.2 by bob@ops as plan v2: runs 1.2, 1.3 again; keeps 1.1 (results by reference); side-effecting step(s) 1.3 get a new idempotency scope: their effects are meant to happen again; patched: /tasks/0/steps/1/params/limit',
    });
    expect([...notified]).toHaveLength(1);
    expect([...notified][0]).toMatch(/:1\.3:rerun-1:/);
  });
});

describe('the CLI', () => {
  test('`planner edit --patch` records the edit; `planner edit --plan` with an invalid plan exits 2 naming the issue; at a terminal `planner edit` opens $EDITOR; `planner rerun` re-runs a closed run', async () => {
    const handle = await start('cli-edit', { approval: 'always' });
    await awaitingApproval(people.alice, handle.workflowId, 1);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'edit-'));
    const patchFile = path.join(dir, 'patch.json');
    writeFileSync(patchFile, JSON.stringify([{ op: 'add', path: '/tasks/0/steps/1/params/limit', value: 2 }]));
    const edited = await runPlannerCli(['edit', handle.workflowId, '--version', '1', '--patch', patchFile]);
    expect(edited.stderr).toBe('');
    expect(edited.code).toBe(0);
    expect(edited.stdout).toContain('plan v2 recorded from your edit of v1');
    const v2 = await awaitingApproval(people.alice, handle.workflowId, 2);
    const planFile = path.join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify({ ...v2.plan, tasks: [] }));
    const invalid = await runPlannerCli(['edit', handle.workflowId, '--version', '2', '--plan', planFile]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/plan failed validation with \d+ issue\(s\): \[/);
    // At a terminal without --patch or --plan, the plan opens in $EDITOR (here a sed script), as `git commit` does.
    const editor = spawnPlannerCli(
      ['edit', handle.workflowId, '--version', '2', '--comment', 'four will do'],
      { EDITOR: `sed -i 's/"limit": 2/"limit": 4/'` },
      { terminal: true },
    );
    expect(await editor.exited).toBe(0);
    expect(editor.output()).toContain('plan v3 recorded from your edit of v2');
    const v3 = await awaitingApproval(people.alice, handle.workflowId, 3);
    expect(v3.versions.at(-1)).toMatchObject({
      reason: 'human_edit',
      by: cliIdentity(),
      explanation: `edited by ${cliIdentity()}: four will do`,
      json_changes: ['/tasks/0/steps/1/params/limit'],
    });
    await people.bob.approve(handle.workflowId, undefined, 3);
    expect((await handle.result()).stage).toBe('COMPLETED');

    const rerun = await runPlannerCli([
      'rerun',
      handle.workflowId,
      '--from',
      '1.3',
      '--id',
      `cli-rerun-${planner.taskQueue}`,
      '--task-queue',
      planner.taskQueue,
    ]);
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain(`re-runs ${handle.workflowId} from step 1.3`);
  });
});
