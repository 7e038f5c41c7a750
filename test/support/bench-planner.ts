/**
 * The bench pack's planner for one test file (bench/bench-pack.ts: its BENCH_GOAL plans ten steps by ranking, a goal
 * without its words asks a question first), for tests of the messages a waiting run takes.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { createBenchPack } from '../../bench/bench-pack';
import { getStateQuery } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, type TestPlanner } from './planner-workers';
import { connectClient, waitFor } from './temporal';

export interface BenchPlanner {
  /** Read inside tests: they exist once beforeAll has run. */
  client(): Client;
  planner(): TestPlanner;
  /** A run of `goal` that asks for approval of its plan, once it waits in `stage`; its id is `name` and the queue. */
  startWaiting(
    name: string,
    goal: string,
    stage: 'AWAITING_APPROVAL' | 'AWAITING_CLARIFICATION',
  ): Promise<WorkflowHandle<typeof planningWorkflow>>;
}

/** A client and a planner serving the bench pack: started before the file's tests, stopped after them. */
export function useBenchPlanner(prefix: string): BenchPlanner {
  let client: Client | undefined;
  let planner: TestPlanner | undefined;
  beforeAll(async () => {
    client = await connectClient();
    planner = await startTestPlanner(createBenchPack(), { prefix });
  });
  afterAll(async () => {
    await planner?.stop();
    await client?.connection.close();
  });
  return {
    client: () => client!,
    planner: () => planner!,
    async startWaiting(name, goal, stage) {
      const handle = await client!.workflow.start(planningWorkflow, {
        taskQueue: planner!.taskQueue,
        workflowId: `${name}-${planner!.taskQueue}`,
        args: [{ request: { goal, tool_catalog: 'bench', planner: 'ranking' }, options: { require_approval: true } }],
      });
      await waitFor(
        async () => (await handle.query(getStateQuery)).stage === stage,
        30_000,
        `${handle.workflowId} in ${stage}`,
      );
      return handle;
    },
  };
}
