/**
 * The message interface is plain JSON: the stock `temporal` CLI (the binary this project installs), not our code,
 * answers a clarification (by update, and by signal) and reads the state of a run.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { getStateQuery } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';
import { testAddress, waitFor } from '../support/temporal';

/** Asynchronous on purpose: the worker answering the query runs in this process and must keep running. */
async function temporal(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.env.TEMPORAL_CLI_PATH!, [
    ...args,
    '--address',
    testAddress(),
    '--namespace',
    'default',
  ]);
  return stdout;
}

const fixtures = useWastePackAndClient();

test('the stock temporal CLI answers a clarification and queries getState', async () => {
  const planner = await startTestPlanner(fixtures.pack(), { prefix: 'stock-cli' });
  try {
    const handle = await fixtures.client().workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `stock-cli-${planner.taskQueue}`,
      args: [{ request: { goal: 'Check the reports' } }],
    });
    await waitFor(
      async () => (await handle.query(getStateQuery)).stage === 'AWAITING_CLARIFICATION',
      30_000,
      'the question',
    );

    const queried = JSON.parse(
      await temporal('workflow', 'query', '--workflow-id', handle.workflowId, '--type', 'getState', '--output', 'json'),
    );
    const state = queried.queryResult?.[0] ?? queried.result?.[0] ?? queried;
    expect(state.stage).toBe('AWAITING_CLARIFICATION');
    expect(state.question.options[0]).toBe('Shipments from last week');

    const updated = await temporal(
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      handle.workflowId,
      '--name',
      'answerClarification',
      '--input',
      '{"option":1}',
    );
    expect(updated).toContain('Shipments from last week');

    expect((await handle.result()).stage).toBe('COMPLETED');
  } finally {
    await planner.stop();
  }
});

test('the stock temporal CLI answers a clarification by signal, and the run goes on with that answer', async () => {
  const planner = await startTestPlanner(fixtures.pack(), { prefix: 'stock-signal' });
  try {
    const handle = await fixtures.client().workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `stock-signal-${planner.taskQueue}`,
      args: [{ request: { goal: 'Check the reports' } }],
    });
    await waitFor(
      async () => (await handle.query(getStateQuery)).stage === 'AWAITING_CLARIFICATION',
      30_000,
      'the question',
    );
    const { question } = await handle.query(getStateQuery);
    // Not the default (option 1): a run that took the default after a timeout would not pass.
    const chosen = question!.options[1]!;
    expect(chosen).not.toBe(question!.options[0]);

    await temporal(
      'workflow',
      'signal',
      '--workflow-id',
      handle.workflowId,
      '--name',
      'answerClarification',
      '--input',
      '{"option":2,"identity":"stock-cli@ops"}',
    );

    const outcome = await handle.result();
    expect(outcome.stage).toBe('COMPLETED');
    const state = await handle.query(getStateQuery);
    expect(state.audit).toContainEqual(
      expect.objectContaining({
        kind: 'message',
        by: 'stock-cli@ops',
        message: `clarification answered: ${chosen} (by stock-cli@ops)`,
      }),
    );
    expect(state.request.context.map((m) => m.content).join('\n')).toContain(chosen);
  } finally {
    await planner.stop();
  }
});
