/**
 * Retention against live runs: `planner gc` never collects what an open run still needs, however long it has waited.
 */
import { readdirSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { approveUpdate, getStateQuery } from '../../src/api';
import { StepFailedError } from '../../src/domain/errors';
import { LocalContentStore } from '../../src/store/content-store';
import type { ToolImplementation } from '../../src/tools/tool';
import { planningWorkflow } from '../../src/workflows';
import { runPlannerCli } from '../support/cli';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';
import { waitFor } from '../support/temporal';

const SCENARIO = 'Get shipments from last week and show me the contaminant details';
const fixtures = useWastePackAndClient();

/** Every file under `dir`, its times moved `ms` into the past: the run has waited that long. */
function age(dir: string, ms: number): number {
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const at = new Date(statSync(file).mtimeMs - ms);
    utimesSync(file, at, at);
    files++;
  }
  return files;
}

/** contaminants-detected fails its first run: the run re-plans v2, which waits for approval after step 1 stored its rows. */
function failingOnce(tool: ToolImplementation): ToolImplementation {
  let failed = false;
  return {
    ...tool,
    async run(params, ctx) {
      if (tool.spec.name === 'contaminants-detected' && !failed) {
        failed = true;
        throw new StepFailedError('lab database offline', { retryable: false });
      }
      return await tool.run(params, ctx);
    },
  };
}

test('`planner gc --older-than 1m` while a re-planned run has waited 10 minutes for approval keeps what it needs: approved, it completes', async () => {
  const planner = await startTestPlanner(fixtures.pack(), { wrap: failingOnce });
  try {
    const handle = await fixtures.client().workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `gc-open-${planner.taskQueue}`,
      args: [{ request: { goal: SCENARIO }, options: { require_approval: true } }],
    });
    await waitFor(
      async () => (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL',
      30_000,
      'approval of v1',
    );
    await handle.executeUpdate(approveUpdate, { args: [{}] });
    await waitFor(
      async () =>
        (await handle.query(getStateQuery)).plan?.version === 2 &&
        (await handle.query(getStateQuery)).stage === 'AWAITING_APPROVAL',
      30_000,
      'approval of v2',
    );
    const shipments = (await handle.query(getStateQuery)).steps[0]!;
    expect(shipments).toMatchObject({ status: 'COMPLETED', result: { ref: expect.stringMatching(/^sha256:/) } });
    const orphan = await new LocalContentStore(planner.storeDir).put({ left: 'by a run long closed' });
    expect(age(planner.storeDir, 10 * 60_000)).toBeGreaterThan(1);

    const gc = await runPlannerCli(['gc', '--older-than', '1m', '--json'], { PLANNER_STORE_DIR: planner.storeDir });
    expect(gc.code).toBe(0);
    expect(JSON.parse(gc.stdout)).toMatchObject({ storage: 'local', values: 1 });
    await expect(new LocalContentStore(planner.storeDir).get(orphan.ref)).rejects.toThrow(/no value stored/);

    await handle.executeUpdate(approveUpdate, { args: [{}] });
    await waitFor(
      async () => ['COMPLETED', 'FAILED'].includes((await handle.query(getStateQuery)).stage),
      30_000,
      'the run to end',
    ).catch(() => undefined);
    const state = await handle.query(getStateQuery);
    expect(state.steps.map((s) => [s.id, s.status, s.error?.message ?? null])).toEqual([
      ['1.1', 'COMPLETED', null],
      ['2.1', 'COMPLETED', null],
    ]);
    expect(state.stage).toBe('COMPLETED');
  } finally {
    await planner.stop();
  }
});
