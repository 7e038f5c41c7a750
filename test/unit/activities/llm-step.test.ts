/** The `runLlmStep` activity's refusals: a worker without an LLM passes the step on; input it cannot read is refused. */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createLlmStepActivities, type LlmStepInput } from '../../../src/step-kinds/llm/activities';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';

const store = { put: async () => ({ ref: 'sha256:x', bytes: 0 }), get: async () => null };
const input: LlmStepInput = {
  workflow_id: 'w',
  step_id: 'k.1',
  goal: 'g',
  title: 'Summarize',
  instruction: 'Summarize',
  inputs: {},
  max_input_tokens: 1_000,
};

test('a worker without an LLM fails the step retryably (PLAN-013), so a worker with one can take it', async () => {
  const { runLlmStep } = createLlmStepActivities({ store, ledger: new MemoryIdempotencyLedger() });
  const err = await runLlmStep(input).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect(err).toMatchObject({
    type: 'WorkerFailureError',
    nonRetryable: false,
    message: expect.stringMatching(/no LLM configured/),
  });
});

test('input the worker does not understand is refused with PLAN-006, before any call', async () => {
  const complete = jest.fn();
  const { runLlmStep } = createLlmStepActivities({
    client: { complete },
    store,
    ledger: new MemoryIdempotencyLedger(),
  });
  const err = await runLlmStep({ ...input, max_input_tokens: 5 }).catch((e: unknown) => e);
  expect(err).toMatchObject({ type: 'InvalidInputError', nonRetryable: true });
  expect(complete).not.toHaveBeenCalled();
});

test("the model's answer is stored and returned with its secrets redacted", async () => {
  const stored: unknown[] = [];
  const store = {
    put: async (value: unknown) => (stored.push(value), { ref: 'sha256:x', bytes: 10 }),
    get: async () => null,
  };
  const usage = { model: 'm', prompt_tokens: 1, completion_tokens: 1, cached_tokens: 0, cost_usd: 0 };
  const complete = jest.fn(async () => ({
    content: ' Connect with postgres://app:s3cretPassw0rd@db:5432/ops and key sk_live_51HabcdefghijklmnopQRST ',
    usage,
  }));
  const { runLlmStep } = createLlmStepActivities({
    client: { complete },
    store,
    ledger: new MemoryIdempotencyLedger(),
  });
  const result = await new MockActivityEnvironment().run(runLlmStep, input);
  const redacted = 'Connect with postgres://app:[redacted]@db:5432/ops and key [redacted]';
  expect(stored).toEqual([redacted]);
  expect(result).toMatchObject({ data: redacted, preview: JSON.stringify(redacted) });
});
