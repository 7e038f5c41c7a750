/**
 * Clients refuse what the run would refuse before sending it (issue 13): PlannerClient.start and `planner start`
 * check the workflow input with the workflow's own parse and limits, and PlannerClient checks every update payload
 * with the message schemas and the byte cap. Nothing oversized reaches the server or a worker.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { BUDGET_MAXIMA, MESSAGE_LIMITS, REQUEST_LIMITS } from '../../src/api';
import { PlannerClient } from '../../src/client';
import { InvalidInputError } from '../../src/domain/errors';
import { runPlannerCli } from '../support/cli';
import { testAddress, uniqueTaskQueue } from '../support/temporal';

let planner: PlannerClient;
beforeAll(async () => {
  const address = testAddress();
  planner = await PlannerClient.connect({ address, namespace: 'default', connectionOptions: { address } });
});
afterAll(async () => {
  await planner?.close();
});

async function exists(workflowId: string): Promise<boolean> {
  return await planner
    .handle(workflowId)
    .describe()
    .then(
      () => true,
      (err: unknown) => (err instanceof WorkflowNotFoundError ? false : Promise.reject(err)),
    );
}

const OVERSIZED_CONTEXT = [{ role: 'user' as const, content: 'shipments in Hannover, '.repeat(26_100) }]; // ≈ 600 KB

test('PlannerClient.start refuses a 600 KB context with PLAN-006 naming the limit, and no run is started', async () => {
  const workflowId = uniqueTaskQueue('oversized-start');
  const err = await planner
    .start({ request: { goal: 'Get shipments', context: OVERSIZED_CONTEXT } }, { workflowId })
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(InvalidInputError);
  expect(err).toMatchObject({
    code: 'PLAN-006',
    message: expect.stringContaining(`limit of ${REQUEST_LIMITS.context_chars} characters`),
  });
  expect((err as InvalidInputError).hint).toContain(`context ${REQUEST_LIMITS.context_messages} messages`);
  expect(await exists(workflowId)).toBe(false);
});

test('PlannerClient refuses an update payload over the byte cap or its schema before sending it (no run needed)', async () => {
  const nobody = uniqueTaskQueue('no-such-run');
  const oversized = planner.answer(nobody, {
    text: 'x'.repeat(10_000),
    note: 'y'.repeat(MESSAGE_LIMITS.payload_bytes),
  } as never);
  await expect(oversized).rejects.toThrow(
    new RegExp(
      `invalid answerClarification payload: \\d+ bytes as JSON, over the limit of ${MESSAGE_LIMITS.payload_bytes} bytes`,
    ),
  );
  await expect(planner.reject(nobody, 'r'.repeat(2_001), 1)).rejects.toMatchObject({
    code: 'PLAN-006',
    message: expect.stringMatching(/^invalid reject payload: reason/),
  });
  await expect(planner.raiseBudget(nobody, { calls: 1e300 })).rejects.toBeInstanceOf(InvalidInputError);
  // a well-formed payload does reach the server, which knows no such run
  await expect(planner.raiseBudget(nobody, { calls: 1 })).rejects.toThrow(/not found/i);
});

test('`planner start` with a goal over its limit exits 2 with the limit and hint, without contacting the server', async () => {
  const run = await runPlannerCli(['start', 'g'.repeat(REQUEST_LIMITS.goal_chars + 1), '--address', '127.0.0.1:1']);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(
    new RegExp(
      `^error: invalid planning request: goal: goal is longer than the limit of ${REQUEST_LIMITS.goal_chars} characters \\(hint: .*Limits: goal`,
    ),
  );
  expect(run.stderr).not.toMatch(/cannot reach Temporal/);
});

test('`planner start --catalog` with a name over its limit exits 2; nothing is started under the id', async () => {
  const workflowId = uniqueTaskQueue('cli-oversized');
  const run = await runPlannerCli([
    'start',
    'Get shipments',
    '--id',
    workflowId,
    '--catalog',
    'c'.repeat(REQUEST_LIMITS.name_chars + 1),
  ]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`tool_catalog is longer than the limit of ${REQUEST_LIMITS.name_chars} characters`);
  expect(await exists(workflowId)).toBe(false);
});

test('PlannerClient.start and `planner start` refuse a budget past the maxima a raise keeps; nothing is started', async () => {
  const workflowId = uniqueTaskQueue('budget-past-maxima');
  const err = await planner
    .start({ request: { goal: 'Get shipments', budget: { cost_usd: 2e6, tokens: 1_000, calls: 10 } } }, { workflowId })
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(InvalidInputError);
  expect(err).toMatchObject({
    code: 'PLAN-006',
    message: expect.stringContaining(`budget.cost_usd: 2000000 is past the maximum of ${BUDGET_MAXIMA.cost_usd}`),
  });
  expect(await exists(workflowId)).toBe(false);

  const run = await runPlannerCli([
    'start',
    'Get shipments',
    '--id',
    workflowId,
    '--budget-cost',
    '2000000',
    '--budget-tokens',
    '2000000000000',
  ]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`budget.tokens: 2000000000000 is past the maximum of ${BUDGET_MAXIMA.tokens}`);
  expect(run.stderr).toContain(`budget.cost_usd: 2000000 is past the maximum of ${BUDGET_MAXIMA.cost_usd}`);
  expect(run.stderr).toMatch(/hint: A run's limits stay at most cost_usd 1000000/);
  expect(await exists(workflowId)).toBe(false);
});
