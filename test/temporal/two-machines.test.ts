/**
 * Two workers as on two machines: separate processes, working folders and PLANNER_STORE_DIRs, sharing nothing but
 * TEMPORAL_ADDRESS and DATABASE_URL (a throw-away PostgreSQL cluster). The waste tools are split into two pools
 * (test/fixtures/pool-worker-process.ts): shipments on worker A, contaminants-detected on worker B, so the step that
 * reads the shipments runs on the other worker and must find their result in the shared store. Then the crash drill:
 * the worker holding a side-effecting step is SIGKILLed after the effect; the retry on the other worker finds the
 * intent in the shared ledger and does not act again.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getStateQuery, type PlanningState } from '../../src/api';
import { INLINE_RESULT_BYTES } from '../../src/domain/step-execution';
import { PostgresStorage } from '../../src/store/postgres';
import { planningWorkflow } from '../../src/workflows';
import { runPlannerCli } from '../support/cli';
import { usePostgres } from '../support/postgres';
import { oneSlowStepReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import {
  connectClient,
  killProcess,
  spawnFixtureWorker,
  testAddress,
  uniqueTaskQueue,
  waitFor,
} from '../support/temporal';

const postgres = usePostgres();
const PLANS = 50;
const GOAL = 'Get shipments from last week and show me the contaminant details';

interface Machine {
  name: 'a' | 'b';
  folder: string;
  process: ChildProcess;
  /** The tools this worker started, in order (its "tool <name>" lines). */
  toolsRun: string[];
}

let llm: ScriptedLlmServer;
let client: Client;
let databaseUrl: string;
let taskQueue: string;
let notesDir: string;
let machines: Machine[] = [];

async function startMachine(name: 'a' | 'b'): Promise<Machine> {
  const folder = mkdtempSync(path.join(os.tmpdir(), `machine-${name}-`));
  const child = await spawnFixtureWorker(
    'pool-worker-process.ts',
    {
      TEMPORAL_ADDRESS: testAddress(),
      DATABASE_URL: databaseUrl,
      PLANNER_TASK_QUEUE: taskQueue,
      PLANNER_STORE_DIR: path.join(folder, 'store'),
      POOL: name,
      NOTES_DIR: notesDir,
      ...llm.env,
    },
    { cwd: folder },
  );
  const machine: Machine = { name, folder, process: child, toolsRun: [] };
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.startsWith('tool ')) machine.toolsRun.push(line.slice('tool '.length));
  });
  return machine;
}

beforeAll(async () => {
  llm = await startScriptedLlmServer({
    reply: oneSlowStepReplies('record-note', 'Record the note', { text: 'two-machine note', delay_after_ms: 4000 }),
  });
  client = await connectClient();
  databaseUrl = await postgres().freshDatabase();
  taskQueue = uniqueTaskQueue('machines');
  notesDir = mkdtempSync(path.join(os.tmpdir(), 'notes-'));
  machines = await Promise.all((['a', 'b'] as const).map(startMachine));
}, 90_000);

afterAll(async () => {
  await Promise.all(machines.map((m) => killProcess(m.process, 'SIGTERM')));
  await llm?.close();
  await client?.connection.close();
});

test(`${PLANS} plans whose dependent step runs on the other worker: all COMPLETED, no re-plan, no missing ref; \`planner result\` from a third folder prints the rows`, async () => {
  const started = Date.now();
  const handles = await Promise.all(
    Array.from({ length: PLANS }, (_, i) =>
      client.workflow.start(planningWorkflow, {
        taskQueue,
        workflowId: `machines-${taskQueue}-${i}`,
        args: [{ request: { goal: GOAL, planner: 'ranking' } }],
      }),
    ),
  );
  const outcomes = await Promise.all(handles.map((h) => h.result()));
  console.log(`${PLANS} plans across two worker processes: ${Date.now() - started} ms`);
  const states: PlanningState[] = await Promise.all(handles.map((h) => h.query(getStateQuery)));

  expect(outcomes.filter((o) => o.stage === 'COMPLETED')).toHaveLength(PLANS);
  expect(states.filter((s) => s.plan!.version > 1 || s.versions.length > 1)).toHaveLength(0); // no re-plan
  for (const state of states) {
    expect(state.steps.map((s) => [s.tool, s.queue])).toEqual([
      ['shipments', `${taskQueue}-pool-a`],
      ['contaminants-detected', `${taskQueue}-pool-b`],
    ]);
    // Too large to travel inline: worker B read the shipments from the store by ref.
    expect(state.steps[0]!.result!.bytes).toBeGreaterThan(INLINE_RESULT_BYTES);
    expect(state.steps[0]!.result!.data).toBeUndefined();
  }
  const [a, b] = machines as [Machine, Machine];
  expect(a.toolsRun.filter((t) => t === 'shipments')).toHaveLength(PLANS);
  expect(b.toolsRun.filter((t) => t === 'contaminants-detected')).toHaveLength(PLANS);
  expect([...new Set(a.toolsRun)]).toEqual(['shipments']);
  expect([...new Set(b.toolsRun)]).toEqual(['contaminants-detected']);

  // Every ref any run holds is readable by a reader that is neither worker: none missing.
  const reader = new PostgresStorage(databaseUrl);
  let detections: { id: string; shipment_id: string }[];
  try {
    const refs = states.flatMap((s) => s.steps.map((step) => step.result!.ref));
    const missing = (await Promise.allSettled(refs.map((ref) => reader.store.get(ref)))).filter(
      (r) => r.status === 'rejected',
    );
    expect(refs).toHaveLength(2 * PLANS);
    expect(missing).toHaveLength(0);
    detections = (await reader.store.get(states[0]!.steps[1]!.result!.ref)) as typeof detections;
  } finally {
    await reader.close();
  }

  const third = mkdtempSync(path.join(os.tmpdir(), 'machine-c-'));
  const env = { DATABASE_URL: databaseUrl, PLANNER_STORE_DIR: path.join(third, 'store') };
  const id = handles[0]!.workflowId;
  const [table, json, local, show] = await Promise.all([
    runPlannerCli(['result', id], env, { cwd: third }),
    runPlannerCli(['result', id, '--step', '1', '--json'], env, { cwd: third }),
    // The same folder without DATABASE_URL has only its own (empty) store dir: the shipments are not there.
    runPlannerCli(['result', id, '--step', '1'], { PLANNER_STORE_DIR: env.PLANNER_STORE_DIR }, { cwd: third }),
    runPlannerCli(['show', id], env, { cwd: third }),
  ]);
  expect(table.stderr).toBe('');
  expect(table.code).toBe(0);
  const lines = table.stdout.trim().split('\n');
  expect(lines[0]).toBe(`Results of ${id} · plan v1 · stage COMPLETED`);
  expect(lines[2]).toMatch(
    /^Step 2 \(2\.1\) contaminants-detected \[COMPLETED\] · \d+ item\(s\) · sha256:[0-9a-f]{64}$/,
  );
  // A column per key, in the stored (canonical, sorted) key order; a line per row, every row.
  expect(lines[3]).toMatch(/^CONCENTRATION_PPM +CONTAMINANT +DETECTED_ON +FACILITY_ID +ID +RISK_LEVEL +SHIPMENT_ID$/);
  expect(lines.slice(4)).toHaveLength(detections.length);
  for (const [i, row] of detections.entries())
    expect(lines[4 + i]).toMatch(new RegExp(` ${row.id} +\\S+ +${row.shipment_id}$`));

  expect(json.code).toBe(0);
  const view = JSON.parse(json.stdout) as { steps: { number: number; tool: string; items: number; data: unknown[] }[] };
  expect(view.steps).toHaveLength(1);
  expect(view.steps[0]).toMatchObject({ number: 1, tool: 'shipments' });
  expect(view.steps[0]!.data).toHaveLength(view.steps[0]!.items);
  expect(view.steps[0]!.data.length).toBeGreaterThan(0);

  expect(local.code).toBe(3);
  expect(local.stderr).toMatch(
    /^error: step 1 \(1\.1\) stored its result under sha256:[0-9a-f]{64}, which is not in .*store \(hint: .*DATABASE_URL/,
  );

  expect(show.stdout).toContain(`Full results: planner result ${id}`);
}, 240_000); // about 50 s on an idle 2-core machine; a loaded one takes twice that

test('`planner gc --older-than 30d` from a third folder removes what only old runs wrote and keeps what the recent runs need', async () => {
  const longAgo = new Date(Date.now() - 60 * 86_400_000);
  const old = new PostgresStorage(databaseUrl, { now: () => longAgo });
  const recent = new PostgresStorage(databaseUrl);
  try {
    const { ref } = await old.store.put({ left: 'by a run 60 days ago' }, { workflowId: 'run-60-days-ago' });
    await old.ledger.record('run-60-days-ago:1.1:x', { done: true }, { workflowId: 'run-60-days-ago' });
    const third = mkdtempSync(path.join(os.tmpdir(), 'machine-c-'));
    const run = await runPlannerCli(
      ['gc', '--older-than', '30d', '--json'],
      { DATABASE_URL: databaseUrl },
      { cwd: third },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ storage: 'postgres', values: 1, ledgerEntries: 1 });
    await expect(recent.store.get(ref)).rejects.toThrow(/no value stored/);
    expect(await recent.ledger.get('run-60-days-ago:1.1:x')).toBeUndefined();
    const state = await client.workflow.getHandle(`machines-${taskQueue}-0`).query(getStateQuery);
    expect(await recent.store.get(state.steps[1]!.result!.ref)).toEqual(expect.any(Array));
  } finally {
    await Promise.all([old.close(), recent.close()]);
  }
});

test('SIGKILL the worker holding a side-effecting step after its effect: the retry on the other worker does not act again', async () => {
  const handle = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `machines-crash-${taskQueue}`,
    args: [
      {
        request: { goal: 'Record a note on one of two machines', tool_catalog: 'demo', planner: 'llm' },
        options: { step_heartbeat_ms: 1_500, on_outcome_unknown: 'fail' },
      },
    ],
  });
  const notesFile = path.join(notesDir, 'notes.jsonl');
  await waitFor(
    () => existsSync(notesFile) && readFileSync(notesFile, 'utf8').trim().length > 0,
    60_000,
    'the side effect',
  );
  const holder = machines.find((m) => m.toolsRun.includes('record-note'))!;
  const other = machines.find((m) => m !== holder)!;
  expect((await handle.query(getStateQuery)).steps[0]!.status).toBe('RUNNING');

  await killProcess(holder.process, 'SIGKILL');
  await expect(handle.result()).rejects.toThrow();

  // The other worker took the retry, found the dead attempt's intent in the shared ledger, and did not run the tool:
  // the step's outcome is unknown (PLAN-014) and the effect stays single.
  const state = await handle.query(getStateQuery);
  expect(state.steps[0]).toMatchObject({ status: 'FAILED', error: { code: 'PLAN-014' } });
  expect(other.toolsRun).not.toContain('record-note');
  expect(readFileSync(notesFile, 'utf8').trim().split('\n')).toHaveLength(1);
}, 120_000);
