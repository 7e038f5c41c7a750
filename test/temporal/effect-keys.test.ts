/**
 * A side effect belongs to one run: a new run under a reused workflow id (`planner start --id … --reuse-id`, a start
 * with WorkflowIdReusePolicy ALLOW_DUPLICATE after the first run closed) acts again, and so does the same workflow id
 * in a second namespace whose workers share the ledger (the local file ledger, or PostgreSQL), and so does each run
 * of a cron schedule. Continue-as-new keeps the key of the run chain it continues. The real `executeStep` runs a
 * side-effecting tool that counts its effects; the planning activities are stubs.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { approveUpdate, getStateQuery } from '../../src/api/messages';
import type { PlanningState } from '../../src/api/state';
import { createToolActivities } from '../../src/activities/tools';
import { LocalContentStore } from '../../src/store/content-store';
import { PostgresStorage } from '../../src/store/postgres';
import { defineTool } from '../../src/tools/define-tool';
import { FileIdempotencyLedger, type IdempotencyLedger } from '../../src/store/idempotency';
import { planningWorkflow } from '../../src/workflows';
import { usePostgres } from '../support/postgres';
import { withExtraSteps } from '../support/step-kinds';
import { SCENARIO, stubActivities } from '../support/stub-activities';
import {
  connectClient,
  quietRuntime,
  testAddress,
  uniqueTaskQueue,
  waitFor,
  workflowWorker,
} from '../support/temporal';

const OTHER_NAMESPACE = `effects-${process.pid}`;

let client: Client;
let connection: NativeConnection;
const postgres = usePostgres();

beforeAll(async () => {
  quietRuntime();
  client = await connectClient();
  connection = await NativeConnection.connect({ address: testAddress() });
  await client.workflowService.registerNamespace({
    namespace: OTHER_NAMESPACE,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  // The frontend knows a new namespace once its namespace cache has refreshed.
  await waitFor(
    () =>
      client.workflowService.describeNamespace({ namespace: OTHER_NAMESPACE }).then(
        () => true,
        () => false,
      ),
    60_000,
    `namespace ${OTHER_NAMESPACE}`,
  );
}, 90_000);
afterAll(async () => {
  await client?.connection.close();
  await connection?.close();
});

/** A worker in `namespace` whose one tool, `send-report`, has a side effect: each run of it is pushed onto `effects`. */
async function reportWorker(namespace: string, ledger: IdempotencyLedger, effects: string[]) {
  const taskQueue = uniqueTaskQueue('effects');
  const sendReport = defineTool({
    name: 'send-report',
    description: 'Send the weekly report',
    params: z.object({ to: z.string() }),
    result: z.object({ sent: z.number() }),
    idempotent: false,
    run: async ({ to }) => {
      effects.push(to);
      return { sent: effects.length };
    },
  });
  const stubs = stubActivities(
    {
      plan: (p) =>
        withExtraSteps({ ...p, tasks: [] }, [{ action: 'tool_call', tool: 'send-report', params: { to: 'team' } }]),
    },
    taskQueue,
  );
  const store = new LocalContentStore(mkdtempSync(path.join(os.tmpdir(), 'planner-store-')));
  const tools = createToolActivities({ tools: [sendReport], store, ledger, workspaceRoots: [] });
  const worker = await workflowWorker(connection, taskQueue, { ...stubs.activities, ...tools }, namespace);
  return { worker, taskQueue };
}

/** Runs the report workflow `workflowId` to its end, a new run under the id when an earlier one closed (as --reuse-id does). */
async function runReport(
  namespaceClient: Client,
  taskQueue: string,
  workflowId: string,
  options: Record<string, unknown> = {},
) {
  const handle = await namespaceClient.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    args: [{ request: { goal: SCENARIO }, options: { search_attributes: false, ...options } }],
  });
  if (options.require_approval) {
    // A wait for approval makes the history long enough to continue as new before the step runs.
    await waitFor(
      async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL',
      30_000,
      'the approval',
    );
    await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] });
  }
  const outcome = await handle.result();
  const state: PlanningState = await handle.query(getStateQuery);
  return { handle, outcome, state, result: state.steps[0]!.result!, firstRunId: handle.firstExecutionRunId };
}

function fileLedger(): FileIdempotencyLedger {
  return new FileIdempotencyLedger(mkdtempSync(path.join(os.tmpdir(), 'planner-ledger-')));
}

test('a new run under a reused workflow id sends the report again: two effects, the second not replayed', async () => {
  const effects: string[] = [];
  const { worker, taskQueue } = await reportWorker('default', fileLedger(), effects);
  const workflowId = `weekly-report-${taskQueue}`;
  await worker.runUntil(async () => {
    const first = await runReport(client, taskQueue, workflowId);
    expect(first.outcome.stage).toBe('COMPLETED');
    expect(first.result.replayed).toBe(false);
    expect(effects).toEqual(['team']);

    const second = await runReport(client, taskQueue, workflowId);
    expect(second.firstRunId).not.toBe(first.firstRunId);
    expect(second.outcome.stage).toBe('COMPLETED');
    expect(second.result.replayed).toBe(false);
    expect(second.result.data).toEqual({ sent: 2 });
    expect(effects).toEqual(['team', 'team']);
    expect(second.result.idempotency_key).not.toBe(first.result.idempotency_key);
  });
});

test('continue-as-new keeps the run chain: the step, run after it, is keyed by the first run of the chain', async () => {
  const effects: string[] = [];
  const { worker, taskQueue } = await reportWorker('default', fileLedger(), effects);
  await worker.runUntil(async () => {
    const { outcome, state, result, firstRunId } = await runReport(client, taskQueue, `continued-report-${taskQueue}`, {
      continue_as_new_after_events: 10,
      require_approval: true,
    });
    expect(outcome.stage).toBe('COMPLETED');
    expect(state.continued_as_new).toBeGreaterThan(0);
    expect(state.effect_chain).toBe(`default/${firstRunId}`);
    expect(result.idempotency_key.startsWith(`default/${firstRunId}/continued-report-${taskQueue}:k.1:`)).toBe(true);
    expect(effects).toEqual(['team']);
  });
});

test('each run of a cron schedule sends its report: the runs share a first run id, not their effects', async () => {
  const effects: string[] = [];
  const { worker, taskQueue } = await reportWorker('default', fileLedger(), effects);
  const handle = await client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `cron-report-${taskQueue}`,
    cronSchedule: '@every 2s',
    args: [{ request: { goal: SCENARIO }, options: { search_attributes: false } }],
  });
  try {
    await worker.runUntil(waitFor(() => effects.length >= 2, 30_000, 'two cron runs'));
    expect(effects).toEqual(['team', 'team']);
  } finally {
    await handle.terminate('test over');
  }
});

describe.each([
  [
    'the local file ledger',
    async (): Promise<{ ledger: IdempotencyLedger; close(): Promise<void> }> => ({
      ledger: fileLedger(),
      close: async () => {},
    }),
  ],
  [
    'the PostgreSQL ledger',
    async () => {
      const storage = new PostgresStorage(await postgres().freshDatabase());
      return { ledger: storage.ledger, close: () => storage.close() };
    },
  ],
])('two namespaces sharing %s', (_, openLedger) => {
  test('the same workflow id in each sends its own report: one effect per namespace, neither replayed', async () => {
    const shared = await openLedger();
    const otherClient = new Client({ connection: client.connection, namespace: OTHER_NAMESPACE });
    const effects = { default: [] as string[], other: [] as string[] };
    const inDefault = await reportWorker('default', shared.ledger, effects.default);
    const inOther = await reportWorker(OTHER_NAMESPACE, shared.ledger, effects.other);
    const workflowId = `shared-report-${inDefault.taskQueue}`;
    try {
      await inDefault.worker.runUntil(async () => {
        const first = await runReport(client, inDefault.taskQueue, workflowId);
        expect(first.result.replayed).toBe(false);
      });
      await inOther.worker.runUntil(async () => {
        const other = await runReport(otherClient, inOther.taskQueue, workflowId);
        expect(other.outcome.stage).toBe('COMPLETED');
        expect(other.result.replayed).toBe(false);
        expect(other.result.data).toEqual({ sent: 1 });
        expect(other.result.idempotency_key.startsWith(`${OTHER_NAMESPACE}/`)).toBe(true);
      });
      expect(effects).toEqual({ default: ['team'], other: ['team'] });
    } finally {
      await shared.close();
    }
  });
});
