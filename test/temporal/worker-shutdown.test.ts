/**
 * SIGTERM stops a worker that serves a stdio MCP pack gracefully (issue 13): a real worker process
 * (test/fixtures/planner-worker-process.ts, which stops as `planner worker` does) exits 0 within its shutdown grace,
 * and its MCP server's process group is gone, whether the worker is idle or a call to the server is in flight; a run
 * whose step was cut short by the shutdown completes on the next worker with its effect applied exactly once. An
 * LLM call in flight is cancelled too (issue 33), not waited for.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getStateQuery } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import { oneSlowStepReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { plannerProcessEnv } from '../support/planner-process';
import {
  connectClient,
  killProcess,
  livingInGroup,
  spawnFixtureWorker,
  uniqueTaskQueue,
  waitFor,
} from '../support/temporal';

/** How long a worker may take from SIGTERM to exit: the MCP server's close grace (2 s) twice, plus the worker's own. */
const SHUTDOWN_LIMIT_MS = 15_000;

let llm: ScriptedLlmServer;
let client: Client;
beforeAll(async () => {
  llm = await startScriptedLlmServer({
    reply: oneSlowStepReplies('apply_effect', 'Apply the effect', { text: 'once', delay_after_ms: 4000 }),
  });
  client = await connectClient();
});
afterAll(async () => {
  await llm?.close();
  await client?.connection.close();
});

const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => killProcess(c, 'SIGKILL')));
});

function tmp(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
}

async function startWorker(taskQueue: string, effects: string) {
  const pidFile = path.join(tmp('mcp-pid-'), 'server.pid');
  const worker = await spawnFixtureWorker(
    'planner-worker-process.ts',
    plannerProcessEnv(taskQueue, llm, { MCP_EFFECTS_FILE: effects, MCP_HONOUR_KEYS: '1', MCP_PID_FILE: pidFile }),
  );
  children.push(worker);
  const server = Number(readFileSync(pidFile, 'utf8').trim().split(' ')[0]);
  expect(livingInGroup(server)).toContain(server);
  return { worker, server };
}

/** Sends SIGTERM and resolves with the exit code and how long the exit took (null code: still running at the limit). */
async function terminate(worker: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const began = Date.now();
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  worker.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), SHUTDOWN_LIMIT_MS))]);
  return { code, ms: Date.now() - began };
}

test('an idle worker serving a stdio MCP pack exits 0 on SIGTERM and leaves no MCP process behind', async () => {
  const { worker, server } = await startWorker(
    uniqueTaskQueue('sigterm-idle'),
    path.join(tmp('effects-'), 'effects.jsonl'),
  );
  const { code } = await terminate(worker);
  expect(code).toBe(0);
  expect(livingInGroup(server)).toEqual([]);
});

jest.setTimeout(240_000);

test('SIGTERM during an MCP call: the worker exits 0, its MCP server is reaped, and the next worker completes the run with one effect', async () => {
  const taskQueue = uniqueTaskQueue('sigterm-busy');
  const effects = path.join(tmp('effects-'), 'effects.jsonl');
  const { worker, server } = await startWorker(taskQueue, effects);
  const handle = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `sigterm-${taskQueue}`,
    args: [
      {
        request: { goal: 'Apply the effect exactly once', tool_catalog: 'effects', planner: 'llm' },
        options: { step_heartbeat_ms: 1_500, max_replans: 0 },
      },
    ],
  });
  await waitFor(() => lines(effects).length > 0, 60_000, 'the side effect');
  expect((await handle.query(getStateQuery)).steps[0]!.status).toBe('RUNNING');

  const { code } = await terminate(worker);
  expect(code).toBe(0);
  expect(livingInGroup(server)).toEqual([]);

  await startWorker(taskQueue, effects);
  const outcome = await handle.result();
  expect(outcome.stage).toBe('COMPLETED');
  expect(lines(effects)).toHaveLength(1);
});

test('SIGTERM during an LLM call that would take minutes: the call is cancelled and the worker exits 0 within seconds', async () => {
  const slow = await startScriptedLlmServer({ reply: () => ({ content: '{}', delay_ms: 300_000 }) });
  try {
    const taskQueue = uniqueTaskQueue('sigterm-llm');
    const worker = await spawnFixtureWorker('planner-worker-process.ts', plannerProcessEnv(taskQueue, slow));
    children.push(worker);
    const handle = await client.workflow.start(planningWorkflow, {
      taskQueue,
      workflowId: `sigterm-llm-${taskQueue}`,
      args: [{ request: { goal: 'Record a note that the deploy finished', tool_catalog: 'demo', planner: 'llm' } }],
    });
    await waitFor(() => slow.requests.length > 0, 60_000, 'the LLM call');

    const { code, ms } = await terminate(worker);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
    expect(slow.requests.map((r) => r.outcome)).toEqual(['undelivered']);
    await handle.terminate('test over');
  } finally {
    await slow.close();
  }
});
