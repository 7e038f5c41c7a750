/**
 * Step kinds on the tests' dev server, through the real pieces a user meets: an `llm` step that summarizes the
 * previous step's rows runs the real `runLlmStep` activity against the scripted LLM server (HTTP, the `openai`
 * client), its input loaded by reference and cut to the run's token budget, its calls charged; and a person drives
 * a `human` step and an unknown outcome with `planner complete` and `planner resolve`, as printed by `planner show`.
 * The other planning activities and the tools are stubs.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { PlanningWorkflowInput } from '../../src/api/input';
import { createLlmStepActivities } from '../../src/step-kinds/llm/activities';
import { StepOutcomeUnknownError } from '../../src/domain/errors';
import { LocalContentStore } from '../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../src/store/idempotency';
import { planningWorkflow } from '../../src/workflows';
import { runPlannerCli } from '../support/cli';
import { LlmHarness } from '../support/llm';
import { recordHistory } from '../support/planner-workers';
import { withExtraSteps } from '../support/step-kinds';
import { activityFailure, SCENARIO, stubActivities, type StubScript } from '../support/stub-activities';
import { settle, stepWaiting, uniqueTaskQueue, useDevServer, workflowWorker } from '../support/temporal';

type Handle = WorkflowHandle<typeof planningWorkflow>;

const devServer = useDevServer();
const llm = new LlmHarness();

afterEach(() => llm.close());

/** Runs one workflow against stubs (plus `extra` real activities) and drives it while the worker runs. */
async function runWith<T>(
  script: StubScript,
  options: PlanningWorkflowInput['options'],
  extra: object,
  drive: (handle: Handle) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueTaskQueue('kinds-live');
  const { client, connection } = devServer();
  const stubs = stubActivities(script, taskQueue);
  const worker = await workflowWorker(connection, taskQueue, { ...stubs.activities, ...extra });
  const handle = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `kinds-live-${taskQueue}`,
    args: [{ request: { goal: SCENARIO }, options: { search_attributes: false, ...options } }],
  });
  return await worker.runUntil(drive(handle));
}

// Shipped in the goal's week ("last week" of the stub's day): the verifier checks the shipments task's rows are.
const SHIPMENTS = [
  { id: 'S1', hauler: 'Acme', contaminant: 'lead', kg: 12, shipped_on: '2026-11-16' },
  { id: 'S2', hauler: 'Acme', contaminant: 'lead', kg: 3, shipped_on: '2026-11-18' },
  { id: 'S3', hauler: 'Borealis', contaminant: 'mercury', kg: 1, shipped_on: '2026-11-22' },
];

/** Step 0 (shipments) returns `rows`; one llm step summarizes them. */
function summaryScript(rows: unknown[]): StubScript {
  return {
    plan: (p) =>
      withExtraSteps(p, [
        {
          action: 'llm',
          title: 'Summarize the shipments',
          description: 'Summarize the contaminated shipments by contaminant',
          depends_on: [0],
        },
      ]),
    step: (input) =>
      input.step_id === '1.1'
        ? { data: rows, items: rows.length, preview: JSON.stringify(rows).slice(0, 300) }
        : undefined,
  };
}

function llmStepActivities() {
  return createLlmStepActivities({
    client: llm.client,
    store: new LocalContentStore(mkdtempSync(path.join(os.tmpdir(), 'planner-store-'))),
    ledger: new MemoryIdempotencyLedger(),
  });
}

describe('an llm step', () => {
  test("summarizes the previous step's rows through the real activity; the answer is its stored result and its call is charged", async () => {
    await llm.start({
      script: [
        {
          content: 'Two shipments (15 kg) carried lead, one (1 kg) mercury.',
          usage: { prompt_tokens: 300, completion_tokens: 20 },
        },
      ],
    });
    const { state, failure } = await runWith(summaryScript(SHIPMENTS), {}, llmStepActivities(), async (handle) => {
      const settled = await settle(handle);
      await recordHistory(handle, 'step-kinds-llm');
      return settled;
    });
    expect(failure).toBeNull();
    expect(state.stage).toBe('COMPLETED');
    const prompt = llm.messages(0);
    expect(prompt[1]!.content).toContain('Instruction: Summarize the contaminated shipments by contaminant');
    expect(prompt[1]!.content).toContain(JSON.stringify(SHIPMENTS, null, 1));
    expect(prompt[1]!.content).not.toContain('[truncated');
    const summary = state.steps.find((s) => s.id === 'k.1')!;
    expect(summary).toMatchObject({
      status: 'COMPLETED',
      result: {
        data: 'Two shipments (15 kg) carried lead, one (1 kg) mercury.',
        ref: expect.stringMatching(/^sha256:/),
        usage: { calls: 1, tokens: 320 },
      },
    });
    // Two stub tool calls (1 call each, no tokens) and the LLM call.
    expect(state.budget.spent).toMatchObject({ calls: 3, tokens: 320 });
    expect(state.audit.map((a) => a.message)).toContain(
      `step k.1 (llm) completed: 1 LLM call(s), ${summary.result!.bytes} bytes`,
    );
    expect(summary.result!.bytes).toBe(JSON.stringify(summary.result!.data).length);
  });

  test('reads at most llm_step_input_tokens of its inputs, and the prompt says what was cut', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({
      id: `S${i}`,
      contaminant: 'lead',
      kg: i,
      shipped_on: '2026-11-16',
    }));
    await llm.start({ script: ['Lead in every shipment shown.'] });
    const { failure } = await runWith(summaryScript(rows), { llm_step_input_tokens: 200 }, llmStepActivities(), settle);
    expect(failure).toBeNull();
    expect(llm.messages(0)[1]!.content).toMatch(
      /\[truncated: 200 of \d+ tokens shown; the full data is sha256:0{64}\]/,
    );
  });
});

describe('the CLI', () => {
  const cli = (...args: string[]) => runPlannerCli(args);

  test('`planner show` prints the waiting human step and `planner complete` answers it; a wrong step is refused (exit 2)', async () => {
    const script: StubScript = {
      plan: (p) =>
        withExtraSteps(p, [
          { action: 'human', title: 'Confirm', params: { question: 'Ship the report?' }, depends_on: [1] },
        ]),
    };
    const result = await runWith(script, {}, {}, async (handle) => {
      await stepWaiting(handle, 'k.1');
      const shown = await cli('show', handle.workflowId);
      const wrong = await cli('complete', handle.workflowId, '1.1', 'yes');
      const done = await cli('complete', handle.workflowId, 'k.1', 'Yes,', 'ship', 'it');
      const settled = await settle(handle);
      await recordHistory(handle, 'step-kinds-human');
      return { shown, wrong, done, ...settled };
    });
    expect(result.shown.stdout).toContain(`Waits for a person until `);
    expect(result.shown.stdout).toContain(
      `Ship the report? (planner complete ${result.state.workflow_id} k.1 <answer>)`,
    );
    expect(result.wrong.code).toBe(2);
    expect(result.wrong.stderr).toMatch(/step 1\.1 is COMPLETED, so it cannot take completeStep/);
    expect(result.done.code).toBe(0);
    expect(result.done.stdout.trim()).toBe(`${result.state.workflow_id}: step k.1 answered: Yes, ship it`);
    expect(result.failure).toBeNull();
    expect(result.state.steps.find((s) => s.id === 'k.1')!.result!.data).toBe('Yes, ship it');
  });

  test('`planner resolve <id> <step> retry` runs a step whose outcome is unknown again, under a fresh scope', async () => {
    const scopes: string[] = [];
    const script: StubScript = {
      step: (input) => {
        if (input.step_id !== '1.1') return;
        scopes.push(input.idempotency_scope);
        if (scopes.length === 1) throw activityFailure(new StepOutcomeUnknownError('the worker died after the effect'));
      },
    };
    const result = await runWith(script, {}, {}, async (handle) => {
      await stepWaiting(handle, '1.1');
      const bad = await cli('resolve', handle.workflowId, '1.1', 'maybe');
      const retried = await cli('resolve', handle.workflowId, '1.1', 'retry', '--json');
      const settled = await settle(handle);
      await recordHistory(handle, 'step-kinds-outcome-unknown-retried');
      return { bad, retried, ...settled };
    });
    expect(result.bad.code).toBe(2);
    expect(result.bad.stderr).toMatch(/invalid decision/);
    expect(result.retried.code).toBe(0);
    expect(JSON.parse(result.retried.stdout)).toEqual({
      workflowId: result.state.workflow_id,
      step: '1.1',
      decision: 'retry',
      result: 'step 1.1 resolved: retry',
    });
    expect(result.failure).toBeNull();
    expect(scopes).toEqual([
      `${result.state.effect_chain}/${result.state.workflow_id}:1.1`,
      expect.stringMatching(/:1\.1:retry-/),
    ]);
  });
});
