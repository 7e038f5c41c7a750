import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z } from 'zod';
import { StepFailedError } from '../../../src/domain/errors';
import {
  INLINE_RESULT_BYTES,
  StepResultSchema,
  type StepExecutionInput,
  type StepResult,
} from '../../../src/domain/step-execution';
import { pathParam, toolSpecFromZod } from '../../../src/domain/tool-spec';
import { createToolActivities, idempotencyKey } from '../../../src/activities/tools';
import { LocalContentStore } from '../../../src/store/content-store';
import { createRecordNoteTool, readNotes } from '../../fixtures/demo-pack';
import { FileIdempotencyLedger, ledgerBeside } from '../../../src/store/idempotency';
import type { ToolContext, ToolImplementation } from '../../../src/tools/tool';
import { failureOf } from '../../support/failures';

const QUEUE = 'test-tools';
/** An activity context that logs errors only (the per-step info line would flood the test output). */
const mockEnv = (info?: { attempt: number }) =>
  new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });

/** Records what it was called with; returns `rows` copies of a row. */
function lookupTool(calls: { params: unknown; ctx: ToolContext }[]): ToolImplementation {
  const params = z.object({
    ids: z.array(z.string()),
    rows: z.number().int().min(0).default(1),
    path: pathParam().optional(),
  });
  return {
    spec: toolSpecFromZod({
      name: 'lookup',
      description: 'Look things up by id',
      params,
      task_queue: QUEUE,
      idempotent: true,
      cost_per_call_usd: 0.002,
      tokens_per_call: 50,
    }),
    paramsSchema: params,
    resultSchema: z.array(z.object({ id: z.string(), n: z.number() })),
    async run(p: z.output<typeof params>, ctx) {
      calls.push({ params: p, ctx });
      return {
        data: Array.from({ length: p.rows }, (_, n) => ({ id: p.ids[n % Math.max(1, p.ids.length)] ?? 'none', n })),
      };
    },
  };
}

/** Takes ONE id (a one-value param): a list given by a `.*` template fans out to one call per id. */
function byIdTool(calls: { params: unknown; ctx: ToolContext }[]): ToolImplementation {
  const params = z.object({ site_id: z.string(), status: z.string().optional() });
  return {
    spec: toolSpecFromZod({
      name: 'by-site',
      description: 'Rows of one site',
      params,
      task_queue: QUEUE,
      idempotent: true,
      cost_per_call_usd: 0.001,
      tokens_per_call: 10,
    }),
    paramsSchema: params,
    async run(p: z.output<typeof params>, ctx) {
      calls.push({ params: p, ctx });
      return { data: [{ id: `${p.site_id}-row`, site_id: p.site_id }] };
    },
  };
}

function simpleTool(name: string, run: ToolImplementation['run'], resultSchema?: z.ZodType): ToolImplementation {
  const params = z.object({ q: z.string().optional() });
  return {
    spec: toolSpecFromZod({ name, description: name, params, task_queue: QUEUE, idempotent: true }),
    paramsSchema: params,
    ...(resultSchema ? { resultSchema } : {}),
    run,
  };
}

let dir: string;
let store: LocalContentStore;
let calls: { params: unknown; ctx: ToolContext }[];
let activities: ReturnType<typeof createToolActivities>;
let notesDir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'planner-tools-'));
  store = new LocalContentStore(path.join(dir, 'store'));
  notesDir = path.join(dir, 'notes');
  calls = [];
  activities = createToolActivities({
    tools: [
      lookupTool(calls),
      byIdTool(calls),
      createRecordNoteTool(notesDir),
      simpleTool('usage-reporter', async () => ({ data: { ok: true }, usage: { cost_usd: 0.5, tokens: 1234 } })),
      simpleTool('garbage', async () => ({ data: [{ id: 42 }] }), z.array(z.object({ id: z.string() }))),
      simpleTool('flaky', async () => Promise.reject(new Error('connection reset'))),
      simpleTool('refuser', async () =>
        Promise.reject(new StepFailedError('record is locked forever', { retryable: false })),
      ),
      simpleTool('nothing', async () => ({ data: undefined })),
    ],
    store,
    ledger: ledgerBeside(store, dir),
    workspaceRoots: [dir],
  });
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function input(overrides: Partial<StepExecutionInput> = {}): StepExecutionInput {
  return {
    workflow_id: 'wf-1',
    plan_id: 'plan-1',
    plan_version: 1,
    step_index: 1,
    step_id: 'step-b',
    tool: 'lookup',
    tool_catalog: 'test',
    params: { ids: ['A'] },
    inputs: {},
    idempotency_scope: 'wf-1/step-b',
    ...overrides,
  };
}

async function run(i: StepExecutionInput, env = mockEnv()): Promise<StepResult> {
  return (await env.run(activities.executeStep, i)) as StepResult;
}

describe('executeStep', () => {
  test('resolves ${step[0].data.*.id} from a dependency given by ref (not inline), loading it from the store', async () => {
    const upstream = [{ id: 'SHP-0001' }, { id: 'SHP-0002' }, { id: 'SHP-0003' }];
    const { ref } = await store.put(upstream);
    const result = await run(input({ params: { ids: '${step[0].data.*.id}', rows: 3 }, inputs: { '0': { ref } } }));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params).toEqual({ ids: ['SHP-0001', 'SHP-0002', 'SHP-0003'], rows: 3 });
    expect(StepResultSchema.parse(result)).toEqual(result);
    expect(result.data).toEqual([
      { id: 'SHP-0001', n: 0 },
      { id: 'SHP-0002', n: 1 },
      { id: 'SHP-0003', n: 2 },
    ]);
    expect(await store.get(result.ref)).toEqual(result.data);
  });

  test('runs a step once per id when a .* template gives a list to a param that takes one id, and returns the rows of every call', async () => {
    const sites = [{ id: 'S1' }, { id: 'S2' }, { id: 'S1' }];
    const result = await run(
      input({
        tool: 'by-site',
        params: { site_id: '${step[0].data.*.id}', status: 'open' },
        inputs: { '0': { data: sites } },
      }),
    );
    expect(calls.map((c) => c.params)).toEqual([
      { site_id: 'S1', status: 'open' },
      { site_id: 'S2', status: 'open' },
    ]);
    expect(new Set(calls.map((c) => c.ctx.idempotencyKey)).size).toBe(2);
    expect(result.data).toEqual([
      { id: 'S1-row', site_id: 'S1' },
      { id: 'S2-row', site_id: 'S2' },
    ]);
    expect(result.items).toBe(2);
    expect(result.usage).toEqual({ cost_usd: 0.002, tokens: 20, calls: 2 });
  });

  test('a lookup that found nothing fans out to no call: the step returns no rows', async () => {
    const result = await run(
      input({ tool: 'by-site', params: { site_id: '${step[0].data.*.id}' }, inputs: { '0': { data: [] } } }),
    );
    expect(calls).toEqual([]);
    expect(result.data).toEqual([]);
  });

  test('prefers inline dependency data and only reads the steps the templates reference', async () => {
    const missing = 'sha256:' + '0'.repeat(64); // not in the store: reading it would fail
    await run(
      input({
        params: { ids: ['${step[2].data[0].id}'] },
        inputs: { '0': { ref: missing }, '2': { ref: missing, data: [{ id: 'X' }] } },
      }),
    );
    expect(calls[0]!.params).toEqual({ ids: ['X'], rows: 1 });
  });

  test("a lean input names only what the worker cannot know: the workflow id is the activity's, the scope its default", async () => {
    const env = mockEnv();
    const lean: StepExecutionInput = {
      plan_version: 1,
      step_index: 1,
      step_id: 'step-b',
      tool: 'lookup',
      params: { ids: '${step[0].data.*.id}' },
      inputs: { '0': { data: [{ id: 'X' }] } },
    };
    const result = await run(lean, env);
    expect(calls[0]!.params).toEqual({ ids: ['X'], rows: 1 });
    expect(env.context.info.workflowExecution!.workflowId).toBe('test');
    expect(result.idempotency_key).toBe(idempotencyKey('test:step-b', 'lookup', { ids: ['X'], rows: 1 }));
  });

  test('inlines data only when it is at most INLINE_RESULT_BYTES; the store always has it', async () => {
    const small = await run(input({ params: { ids: ['A'], rows: 2 } }));
    expect(small.bytes).toBeLessThanOrEqual(INLINE_RESULT_BYTES);
    expect(small.data).toEqual([
      { id: 'A', n: 0 },
      { id: 'A', n: 1 },
    ]);
    expect(small.items).toBe(2);

    const large = await run(input({ params: { ids: ['A'], rows: 500 } }));
    expect(large.bytes).toBeGreaterThan(INLINE_RESULT_BYTES);
    expect(large).not.toHaveProperty('data');
    expect(large.items).toBe(500);
    expect(large.preview.length).toBeLessThanOrEqual(300);
    expect(large.preview.startsWith('[{"id":"A","n":0}')).toBe(true);
    expect((await store.get(large.ref)) as unknown[]).toHaveLength(500);
  });

  test("usage is one call at the spec's per-call estimates, or what the tool reported", async () => {
    expect((await run(input())).usage).toEqual({ calls: 1, cost_usd: 0.002, tokens: 50 });
    expect((await run(input({ tool: 'usage-reporter', params: {} }))).usage).toEqual({
      calls: 1,
      cost_usd: 0.5,
      tokens: 1234,
    });
  });

  test('a tool returning undefined stores null; items is null for non-arrays', async () => {
    const result = await run(input({ tool: 'nothing', params: {} }));
    expect(result).toMatchObject({ data: null, items: null, preview: 'null' });
  });

  test('params that violate the tool schema: typed, non-retryable, listing each field as path: message', async () => {
    const failure = await failureOf(run(input({ params: { ids: 'not-a-list', rows: -1 } })));
    expect(failure.type).toBe('StepParamsError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details?.[0]).toMatchObject({ code: 'PLAN-008' });
    expect(failure.message).toMatch(/^PLAN-008 params of tool "lookup" are invalid/);
    expect(failure.message).toMatch(/\nids: /);
    expect(failure.message).toMatch(/\nrows: /);
    expect(calls).toHaveLength(0);
  });

  test('unknown params are rejected, not silently dropped', async () => {
    const failure = await failureOf(run(input({ params: { ids: ['A'], idz: ['B'] } })));
    expect(failure.type).toBe('StepParamsError');
    expect(JSON.stringify(failure.details)).toContain('idz');
  });

  test('a template that resolves to nothing: TemplateResolutionError, non-retryable, naming the template', async () => {
    const { ref } = await store.put([{ name: 'no id here' }]);
    const failure = await failureOf(run(input({ params: { ids: '${step[0].data.*.id}' }, inputs: { '0': { ref } } })));
    expect(failure.type).toBe('TemplateResolutionError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('${step[0].data.*.id}');
    expect(failure.details?.[0]).toMatchObject({
      code: 'PLAN-008',
      details: { failure: 'unresolved_path', step_index: 0 },
    });
    expect(calls).toHaveLength(0);
  });

  test('a template referencing a step with no given result: missing_result, non-retryable', async () => {
    const failure = await failureOf(run(input({ params: { ids: '${step[3].data.*.id}' } })));
    expect(failure.type).toBe('TemplateResolutionError');
    expect(failure.details?.[0]).toMatchObject({ details: { failure: 'missing_result', step_index: 3 } });
  });

  test('an unknown tool: typed, non-retryable, naming the tools and task queue this worker serves', async () => {
    const failure = await failureOf(run(input({ tool: 'teleport' })));
    expect(failure.type).toBe('UnknownToolError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('"teleport"');
    expect(failure.message).toContain(QUEUE);
    expect(failure.message).toContain('lookup, ');
    expect(failure.details?.[0]).toMatchObject({
      details: { tool: 'teleport', task_queues: ['durable-planner-tools-demo', QUEUE] },
    });
  });

  test('input that does not match StepExecutionInputSchema is an InvalidInputError, non-retryable', async () => {
    const failure = await failureOf(run({ ...input(), plan_version: 0, inputs: { '0': {} } } as never));
    expect(failure.type).toBe('InvalidInputError');
    expect(failure.nonRetryable).toBe(true);
    expect(JSON.stringify(failure.details)).toContain('plan_version');
    expect(JSON.stringify(failure.details)).toContain('inputs.0.ref');
  });

  test('file params must stay inside workspace_root (more in workspace-paths.test.ts)', async () => {
    const ws = path.join(dir, 'ws');
    await fs.mkdir(ws);
    const ok = await run(input({ params: { ids: ['A'], path: 'reports/a.json' }, workspace_root: ws }));
    expect(ok.items).toBe(1);
    const failure = await failureOf(
      run(input({ params: { ids: ['A'], path: '../../etc/passwd' }, workspace_root: ws })),
    );
    expect(failure.type).toBe('PathOutsideWorkspaceError');
    expect(failure.nonRetryable).toBe(true);
    expect(calls.map((c) => c.ctx.workspaceRoot)).toEqual([await fs.realpath(ws)]);
  });

  test("a result that violates the tool's result schema is a non-retryable ToolResultError", async () => {
    const failure = await failureOf(run(input({ tool: 'garbage', params: {} })));
    expect(failure.type).toBe('ToolResultError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/\[0\]\.id: /);
  });

  test('ordinary tool errors pass through untouched (Temporal retries them); a StepFailedError(retryable=false) does not retry', async () => {
    const err = await run(input({ tool: 'flaky', params: {} })).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ApplicationFailure);
    expect((err as Error).message).toBe('connection reset');
    const failure = await failureOf(run(input({ tool: 'refuser', params: {} })));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/^PLAN-008 record is locked forever/);
  });

  test('the idempotency key is scope:sha256(tool + canonical resolved params): stable across attempts, new when params change', async () => {
    const first = await run(input({ params: { ids: ['A'], rows: 1 } }));
    const again = await run(input({ params: { rows: 1, ids: ['A'] } }), mockEnv({ attempt: 2 }));
    const other = await run(input({ params: { ids: ['B'], rows: 1 } }));
    expect(first.idempotency_key).toMatch(/^wf-1\/step-b:[0-9a-f]{64}$/);
    expect(again.idempotency_key).toBe(first.idempotency_key);
    expect(other.idempotency_key).not.toBe(first.idempotency_key);
    expect(first.idempotency_key).toBe(idempotencyKey('wf-1/step-b', 'lookup', { ids: ['A'], rows: 1 }));
    // The key covers the RESOLVED params: the same template against different upstream data is a different call.
    const a = await store.put([{ id: 'A' }]);
    const b = await store.put([{ id: 'B' }]);
    const viaA = await run(input({ params: { ids: '${step[0].data.*.id}' }, inputs: { '0': { ref: a.ref } } }));
    const viaB = await run(input({ params: { ids: '${step[0].data.*.id}' }, inputs: { '0': { ref: b.ref } } }));
    expect(viaA.idempotency_key).toBe(first.idempotency_key);
    expect(viaB.idempotency_key).toBe(other.idempotency_key);
    expect(calls.map((c) => c.ctx.idempotencyKey)).toContain(first.idempotency_key);
  });
});

describe('executeStep with a side-effecting tool (record-note, not idempotent)', () => {
  const note = (params: Record<string, unknown>) =>
    input({ tool: 'record-note', tool_catalog: 'demo', params, idempotency_scope: 'wf-1/note' });

  test('the same step twice (a retry) appends once; the second returns the first result with replayed = true', async () => {
    const first = await run(note({ text: 'hello' }));
    const retry = await run(note({ text: 'hello' }), mockEnv({ attempt: 2 }));
    expect(first.replayed).toBe(false);
    expect(retry.replayed).toBe(true);
    expect(retry.ref).toBe(first.ref);
    expect(retry.data).toEqual(first.data);
    expect(await readNotes(notesDir)).toEqual([{ key: first.idempotency_key, text: 'hello' }]);
    await run(note({ text: 'another' }));
    expect((await readNotes(notesDir)).map((n) => n.text)).toEqual(['hello', 'another']);
  });

  test('a crash after the effect but before the ledger write does not repeat the effect on retry', async () => {
    const key = idempotencyKey('wf-1/note', 'record-note', { text: 'crash' });
    // The first attempt appended its line and died before recording in the ledger.
    const tool = createRecordNoteTool(notesDir);
    const abort = new AbortController();
    await tool.run({ text: 'crash' }, { idempotencyKey: key, heartbeat: () => undefined, signal: abort.signal });
    expect(await new FileIdempotencyLedger(path.join(store.dir, 'ledger')).get(key)).toBeUndefined();
    const retry = await run(note({ text: 'crash' }), mockEnv({ attempt: 2 }));
    expect(retry.idempotency_key).toBe(key);
    expect(retry.data).toEqual({ key, text: 'crash', line: 1 });
    expect(await readNotes(notesDir)).toHaveLength(1);
  });

  test('a slow note heartbeats while it waits, and cancellation stops it before the effect', async () => {
    const env = mockEnv();
    let beats = 0;
    env.on('heartbeat', () => {
      beats++;
      if (beats === 3) env.cancel();
    });
    const err = await run(note({ text: 'slow', delay_ms: 60_000 }), env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledFailure);
    expect(beats).toBe(3);
    expect(await readNotes(notesDir)).toEqual([]);
  });
});
