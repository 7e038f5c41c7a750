/**
 * An MCP catalog that is unavailable when the worker starts becomes available without a restart (issue 13): the
 * server is started again in the background with backoff; until it starts, a run naming its catalog gets the
 * retryable CatalogUnavailableError (PLAN-006) and waits in its activity retries; once it starts, its catalog is
 * registered and a tool worker serves its queue, and the same run completes.
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createPlanningDependencies } from '../../src/activities';
import { loadConfig } from '../../src/config';
import { CatalogUnavailableError } from '../../src/domain/errors';
import { projectRoot } from '../../src/project-root';
import { LocalContentStore } from '../../src/store/content-store';
import { createMcpPacks, mcpTaskQueue } from '../../src/tools/mcp';
import { catalogsOf, createLocalWorkers } from '../../src/worker';
import { planningWorkflow } from '../../src/workflows';
import { oneSlowStepReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import {
  connectClient,
  quietRuntime,
  testAddress,
  uniqueTaskQueue,
  waitFor,
  workflowBundle,
} from '../support/temporal';

const ROOT = projectRoot();
const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-retry-'));

let llm: ScriptedLlmServer;
let client: Client;
beforeAll(async () => {
  quietRuntime();
  llm = await startScriptedLlmServer({
    reply: oneSlowStepReplies('apply_effect', 'Apply the effect', { text: 'late' }),
  });
  client = await connectClient();
});
afterAll(async () => {
  await llm?.close();
  await client?.connection.close();
});

jest.setTimeout(180_000);

test('a catalog whose server starts only after the worker is retried in the background; a run waiting on it completes', async () => {
  const server = uniqueTaskQueue('late');
  const canStart = path.join(dir, 'can-start');
  const effects = path.join(dir, 'effects.jsonl');
  const logged: string[] = [];
  const packs = await createMcpPacks(
    {
      mcpServers: {
        [server]: {
          command: process.execPath,
          args: ['--require', 'tsx/cjs', path.join(ROOT, 'test/fixtures/effect-mcp-server.ts')],
          env: { START_WHEN_FILE: canStart, EFFECTS_FILE: effects },
          cwd: ROOT,
        },
      },
    },
    { log: (m) => logged.push(m), retry: { first_ms: 200, max_ms: 400 } },
  );
  const [pack] = packs;
  expect(pack!.unavailable).toBeDefined();
  const catalogs = catalogsOf(packs);
  expect(() => catalogs.get(server)).toThrow(CatalogUnavailableError);

  const connection = await NativeConnection.connect({ address: testAddress() });
  const store = new LocalContentStore(path.join(dir, 'store'));
  const taskQueue = uniqueTaskQueue('mcp-retry');
  const config = loadConfig(llm.env);
  const local = await createLocalWorkers({
    connection,
    namespace: 'default',
    packs,
    taskQueue,
    workflowBundle: workflowBundle(),
    store,
    planning: createPlanningDependencies({ catalogs, config, store }),
  });
  expect(local.workers.map((w) => w.options.taskQueue)).not.toContain(mcpTaskQueue(server));
  try {
    const outcome = await local.runUntil(
      (async () => {
        const handle = await client.workflow.start(planningWorkflow, {
          taskQueue,
          workflowId: `mcp-retry-${taskQueue}`,
          args: [
            {
              request: { goal: 'Apply the effect once the server is up', tool_catalog: server, planner: 'llm' },
              options: { max_replans: 0 },
            },
          ],
        });
        // The run's planning activity fails with the retryable PLAN-006 while the server cannot start.
        let lastFailure = '';
        await waitFor(
          async () => {
            const pending = (await handle.describe()).raw.pendingActivities ?? [];
            lastFailure = pending[0]?.lastFailure?.message ?? '';
            return lastFailure !== '';
          },
          30_000,
          'the planning activity to fail once',
        );
        expect(lastFailure).toMatch(
          new RegExp(`^PLAN-006 tool catalog "${server}" is unavailable: MCP server "${server}"`),
        );
        expect(existsSync(effects)).toBe(false);

        writeFileSync(canStart, '');
        await waitFor(
          () => logged.some((m) => m.includes(`MCP server "${server}" has started`)),
          30_000,
          'the background start',
        );
        expect(catalogs.get(server).map((t) => t.name)).toContain('apply_effect');
        return await handle.result();
      })(),
    );
    expect(outcome.stage).toBe('COMPLETED');
    expect(readFileSync(effects, 'utf8').trim().split('\n')).toHaveLength(1);
  } finally {
    await local.close();
    await connection.close();
  }
});
