/**
 * Traces and metrics of real runs, the LLM planner talking to the scripted chat-completions server:
 *   - `planner worker --metrics-port` serves Prometheus metrics; after runs, the planner's counters have moved (plans
 *     by outcome, LLM calls, tokens and cost by model, tool calls, a step failure by tool, a clarification's wait, a
 *     budget pause) next to the Temporal runtime's own;
 *   - with an in-memory span exporter, a run is one trace whose spans cover each stage it passed, each LLM call
 *     (model, tokens, cost) and each tool call, under the activities that made them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { answerClarificationUpdate, getStateQuery, raiseBudgetUpdate } from '../../src/api';
import { projectRoot } from '../../src/project-root';
import { startTracing, tracingPlugins } from '../../src/telemetry/tracing';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { planningWorkflow } from '../../src/workflows';
import { spawnPlannerCli, type LiveCli } from '../support/cli';
import { LLM_GOAL, MODEL, planReply, requirements } from '../support/llm';
import { startTestPlanner } from '../support/planner-workers';
import { plannerReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { connectClient, testAddress, uniqueTaskQueue, waitFor } from '../support/temporal';
import { loadConfig } from '../../src/config';

/** The plan for LLM_GOAL; for the Bielefeld goal, one whose second step reads the first facility found, of none. */
const BIELEFELD_GOAL = 'Contaminants detected in Bielefeld';
const bielefeldPlan = JSON.stringify({
  status: 'FEASIBLE',
  missing_capabilities: [],
  steps: [
    { title: 'Facilities in Bielefeld', tool: 'facilities', params: { location: 'Bielefeld' }, depends_on: [] },
    {
      title: 'Their contaminants',
      tool: 'contaminants-detected',
      params: { facility_id: '${step[0].data[0].id}' },
      depends_on: [0],
    },
  ],
});
const llmReply = plannerReplies({
  steps: requirements.steps,
  capabilities: requirements.required_capabilities,
  plan: (body) => (JSON.stringify(body.messages).includes('Bielefeld') ? bielefeldPlan : planReply()),
});

let llm: ScriptedLlmServer;
beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: llmReply });
});
afterAll(async () => {
  await llm?.close();
});

function llmEnv(): NodeJS.ProcessEnv {
  // Every kind of LLM call is made and counted (analysis, plan, pre-mortem), and no warm-up call adds to the counts.
  return {
    OPENAI_BASE_URL: llm.baseURL,
    OPENAI_API_KEY: 'test-key',
    PLANNER_MODEL: MODEL,
    PLANNER_LLM_ANALYSIS: 'always',
    PLANNER_LLM_PREMORTEM: 'always',
    PLANNER_LLM_PLAN: 'always',
    PLANNER_LLM_WARM_UP: 'off',
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Prometheus text: the sum of the samples of `name` whose labels include every one of `labels`. */
function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) sum += Number(match[3]);
  }
  return sum;
}

test('planner worker --metrics-port serves the runtime metrics and the planner counters, which move with the runs', async () => {
  const taskQueue = uniqueTaskQueue('metrics');
  const port = await freePort();
  const env = { ...llmEnv(), PLANNER_STORE_DIR: mkdtempSync(path.join(os.tmpdir(), 'store-')) };
  let worker: LiveCli | undefined;
  const client = await connectClient();
  try {
    worker = spawnPlannerCli(['worker', '--task-queue', taskQueue, '--metrics-port', String(port)], env);
    await worker.waitFor(/Workers polling/);
    const scrape = async () => await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

    // An LLM-planned run that completes: 3 LLM calls (analysis, plan, pre-mortem) and 2 tool calls.
    const llmRun = await client.workflow.start(planningWorkflow, {
      taskQueue,
      workflowId: `metrics-llm-${taskQueue}`,
      args: [{ request: { goal: LLM_GOAL, planner: 'llm' } }],
    });
    expect((await llmRun.result()).stage).toBe('COMPLETED');

    // A ranking run that asks a question, is answered, then pauses for budget until raised.
    const paused = await client.workflow.start(planningWorkflow, {
      taskQueue,
      workflowId: `metrics-paused-${taskQueue}`,
      args: [
        {
          request: {
            goal: 'Check the reports',
            planner: 'ranking',
            budget: { cost_usd: 1, tokens: 100, calls: 10, policy: 'block' },
          },
        },
      ],
    });
    await waitFor(
      async () => (await paused.query(getStateQuery)).stage === 'AWAITING_CLARIFICATION',
      60_000,
      'the question',
    );
    await paused.executeUpdate(answerClarificationUpdate, { args: [{ option: 1 }] });
    await waitFor(
      async () => (await paused.query(getStateQuery)).stage === 'BUDGET_EXHAUSTED',
      60_000,
      'the budget pause',
    );
    await paused.executeUpdate(raiseBudgetUpdate, { args: [{ tokens: 10_000 }] });
    expect((await paused.result()).stage).toBe('COMPLETED');

    // An LLM run whose second step fails (no facility is in Bielefeld: its template `[0]` resolves to nothing) and,
    // with no re-plans allowed, fails the run: 3 more LLM calls.
    const failing = await client.workflow.start(planningWorkflow, {
      taskQueue,
      workflowId: `metrics-failing-${taskQueue}`,
      args: [{ request: { goal: BIELEFELD_GOAL, planner: 'llm' }, options: { max_replans: 0 } }],
    });
    expect(
      await failing.result().then(
        () => 'completed',
        () => 'failed',
      ),
    ).toBe('failed');

    // Workflow metrics leave through a sink after the workflow task: give the last one a moment.
    await waitFor(
      async () => sampleSum(await scrape(), 'planner_plans_total', { taskQueue }) === 3,
      15_000,
      'the three plans counted',
    );
    const text = await scrape();
    mkdirSync(path.join(projectRoot(), 'test-output'), { recursive: true });
    writeFileSync(path.join(projectRoot(), 'test-output', 'metrics.prom'), text); // a real scrape, for reading
    expect(sampleSum(text, 'planner_plans_total', { outcome: 'COMPLETED', taskQueue })).toBe(2);
    expect(sampleSum(text, 'planner_plans_total', { outcome: 'FAILED', code: 'PLAN-008', taskQueue })).toBe(1);
    expect(sampleSum(text, 'planner_step_failures_total', { tool: 'contaminants-detected', code: 'PLAN-008' })).toBe(1);
    expect(sampleSum(text, 'planner_llm_calls_total', { model: MODEL, outcome: 'ok' })).toBe(6);
    expect(sampleSum(text, 'planner_llm_tokens_total', { model: MODEL, kind: 'prompt' })).toBeGreaterThan(0);
    expect(sampleSum(text, 'planner_llm_tokens_total', { model: MODEL, kind: 'completion' })).toBeGreaterThan(0);
    expect(sampleSum(text, 'planner_llm_cost_usd_count', { model: MODEL })).toBe(6);
    expect(sampleSum(text, 'planner_llm_cost_usd_sum', { model: MODEL })).toBeGreaterThan(0);
    expect(sampleSum(text, 'planner_llm_call_duration_ms_count', { model: MODEL })).toBe(6);
    expect(sampleSum(text, 'planner_tool_calls_total', { tool: 'shipments', outcome: 'ok' })).toBe(2);
    expect(sampleSum(text, 'planner_tool_calls_total', { tool: 'contaminants-detected', outcome: 'ok' })).toBe(1);
    expect(sampleSum(text, 'planner_clarification_wait_ms_count', { by: 'user' })).toBe(1);
    expect(sampleSum(text, 'planner_budget_pauses_total', { stage: 'EXECUTING' })).toBe(1);
    // The runtime's own worker metrics are on the same endpoint.
    expect(sampleSum(text, 'temporal_workflow_completed', { task_queue: taskQueue })).toBe(2);
    expect(sampleSum(text, 'temporal_workflow_failed', { task_queue: taskQueue })).toBe(1);
  } finally {
    worker?.kill();
    await worker?.exited;
    await client.connection.close();
  }
});

describe('traces', () => {
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing(new SimpleSpanProcessor(exporter));
  let pack: WastePack;
  afterAll(async () => {
    await pack?.close();
    await tracing.shutdown();
  });

  test('one run is one trace: spans for each stage it passed, each LLM call (model, tokens, cost) and each tool call', async () => {
    pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
    const planner = await startTestPlanner(pack, { prefix: 'traces', env: llmEnv(), plugins: tracingPlugins(tracing) });
    const client = new Client({
      connection: await Connection.connect({ address: testAddress() }),
      namespace: 'default',
      plugins: tracingPlugins(tracing),
    });
    const callsBefore = llm.calls;
    try {
      const handle = await client.workflow.start(planningWorkflow, {
        taskQueue: planner.taskQueue,
        workflowId: `traces-${planner.taskQueue}`,
        args: [{ request: { goal: LLM_GOAL, planner: 'llm' } }],
      });
      expect((await handle.result()).stage).toBe('COMPLETED');
      const state = await handle.query(getStateQuery);
      const llmCalls = llm.calls - callsBefore;
      expect(llmCalls).toBe(3);

      await waitFor(
        () => exporter.getFinishedSpans().some((s) => s.name === 'RunWorkflow:planningWorkflow'),
        15_000,
        'the workflow span',
      );
      // A query is an operation of its own (a trace of its own); everything else belongs to the run.
      const spans = exporter.getFinishedSpans().filter((s) => !/Query/.test(s.name));
      const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
      const parentOf = (s: ReadableSpan) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);

      // One trace, rooted at the client's start.
      expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
      expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(['StartWorkflow:planningWorkflow']);

      // A span per stage the run passed (from its audit), each under the workflow's span.
      const passed = state.audit
        .filter((a) => a.kind === 'stage')
        .map((a) => /^(\w+) →/.exec(a.message)![1]!)
        .filter((s) => s !== 'CREATED');
      const stageSpans = spans.filter((s) => s.name.startsWith('stage '));
      expect(stageSpans.map((s) => s.name).sort()).toEqual(passed.map((s) => `stage ${s}`).sort());
      for (const s of stageSpans) expect(parentOf(s)?.name).toBe('RunWorkflow:planningWorkflow');
      // The planning activities are children of their stage's span.
      const analysis = spans.find((s) => s.name === 'StartActivity:analyzeRequirements')!;
      expect(parentOf(analysis)?.name).toBe('stage ANALYZING');

      // Every LLM call the server answered: a span with model, tokens and cost, under the activity that made it.
      const llmSpans = spans.filter((s) => s.name === `llm chat ${MODEL}`);
      expect(llmSpans).toHaveLength(llmCalls);
      for (const s of llmSpans) {
        expect(s.attributes['gen_ai.request.model']).toBe(MODEL);
        expect(s.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
        expect(s.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
        expect(s.attributes['planner.llm.cost_usd']).toBeGreaterThan(0);
        expect(parentOf(s)?.name).toMatch(/^RunActivity:(analyzeRequirements|generatePlan|critiquePlan)$/);
      }

      // Every tool call: a span under its executeStep activity, which sits under the EXECUTING stage.
      const toolSpans = spans.filter((s) => s.name.startsWith('tool '));
      expect(toolSpans.map((s) => s.name).sort()).toEqual(state.steps.map((s) => `tool ${s.tool}`).sort());
      for (const s of toolSpans) {
        const run = parentOf(s)!;
        expect(run.name).toBe('RunActivity:executeStep');
        const scheduled = parentOf(run)!;
        expect(scheduled.name).toBe('StartActivity:executeStep');
        expect(parentOf(scheduled)?.name).toBe('stage EXECUTING');
      }
    } finally {
      await planner.stop();
      await client.connection.close();
    }
  });
});
