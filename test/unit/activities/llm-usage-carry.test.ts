/**
 * Every LLM call the provider answered is charged once even when the activity that made it dies: each call's usage
 * is written to the ledger before the call returns, and a retry reports the calls of earlier attempts with its own.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPlanningDependencies } from '../../../src/activities';
import { llmCallsOfFailure } from '../../../src/api/failures';
import { createPlanningActivities } from '../../../src/activities/planning';
import { loadConfig } from '../../../src/config';
import { MemoryContentStore } from '../../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scripted-llm-server';
import { failureOf } from '../../support/failures';
import { request } from '../../support/planning';

const REQUIREMENTS = JSON.stringify({
  is_clear: true,
  clarification: null,
  steps: ['Fetch shipments from the catalog filtered by date range'],
  required_capabilities: ['shipments'],
  intent: { type: 'query', confidence: 0.9 },
});
const EARLIER = { model: 'gpt-4o-mini', prompt_tokens: 900, completion_tokens: 40, cached_tokens: 0, cost_usd: 0.0002 };
const INFO = { workflowExecution: { workflowId: 'wf-1', runId: 'run-1' }, activityId: '7' };
const goal = request('Get shipments from last week', { planner: 'llm' });

let llm: ScriptedLlmServer;
beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: () => REQUIREMENTS });
});
afterAll(() => llm.close());

// The analysis is asked of the model even where the rules would suffice: its calls are what this file charges.
function activities(ledger: MemoryIdempotencyLedger) {
  const config = loadConfig({ OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'k', PLANNER_LLM_ANALYSIS: 'always' });
  return createPlanningActivities(createPlanningDependencies({ config, store: new MemoryContentStore(), ledger }));
}

test('each answered call is in the ledger before the activity goes on', async () => {
  const ledger = new MemoryIdempotencyLedger();
  const result = (await new MockActivityEnvironment({ ...INFO, attempt: 1 }).run(
    activities(ledger).analyzeRequirements,
    { request: goal },
  )) as {
    llm_calls: unknown[];
  };
  expect(result.llm_calls).toHaveLength(1);
  expect(await ledger.get('llm-call:wf-1:run-1:7:1:0')).toEqual(result.llm_calls[0]);
  expect(await ledger.get('llm-call:wf-1:run-1:7:1:1')).toBeUndefined();
});

test('a retry reports the calls of the attempt that died with its own', async () => {
  const ledger = new MemoryIdempotencyLedger();
  await ledger.record('llm-call:wf-1:run-1:7:1:0', EARLIER); // attempt 1 was answered, then its worker died
  const result = (await new MockActivityEnvironment({ ...INFO, attempt: 2 }).run(
    activities(ledger).analyzeRequirements,
    { request: goal },
  )) as {
    llm_calls: (typeof EARLIER)[];
  };
  expect(result.llm_calls).toHaveLength(2);
  expect(result.llm_calls[0]).toEqual(EARLIER);
  expect(result.llm_calls[1]!.prompt_tokens).toBeGreaterThan(0);
});

test('a ledger whose record() throws loses no call: every answered call is still in the result', async () => {
  const ledger = new MemoryIdempotencyLedger();
  let tries = 0;
  ledger.record = async () => {
    tries++;
    throw new Error('ledger down');
  };
  const result = (await new MockActivityEnvironment({ ...INFO, attempt: 1 }).run(
    activities(ledger).analyzeRequirements,
    { request: goal },
  )) as {
    llm_calls: { prompt_tokens: number }[];
  };
  expect(result.llm_calls).toHaveLength(1);
  expect(result.llm_calls[0]!.prompt_tokens).toBeGreaterThan(0);
  expect(tries).toBe(3); // retried before giving up on the durable record
});

test('a failed ledger write is retried: the call ends up in the ledger', async () => {
  const ledger = new MemoryIdempotencyLedger();
  const record = ledger.record.bind(ledger);
  let failures = 1;
  ledger.record = async (key, value) => {
    if (failures-- > 0) throw new Error('ledger blip');
    await record(key, value);
  };
  const result = (await new MockActivityEnvironment({ ...INFO, attempt: 1 }).run(
    activities(ledger).analyzeRequirements,
    { request: goal },
  )) as { llm_calls: unknown[] };
  expect(await ledger.get('llm-call:wf-1:run-1:7:1:0')).toEqual(result.llm_calls[0]);
});

test('an unclassified error after a call (a bug) still carries every call of every attempt, as a retryable PLAN-013', async () => {
  const ledger = new MemoryIdempotencyLedger();
  await ledger.record('llm-call:wf-1:run-1:7:1:0', EARLIER); // attempt 1 was answered, then failed
  const config = loadConfig({ OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'k', PLANNER_LLM_ANALYSIS: 'always' });
  const deps = createPlanningDependencies({ config, store: new MemoryContentStore(), ledger });
  const { analyzer } = deps.llm!;
  // The analysis is answered, then the code after the call breaks.
  deps.llm!.analyzer = {
    kind: 'llm',
    analyze: async (input) => (
      await analyzer.analyze(input),
      Promise.reject(new TypeError("Cannot read properties of undefined (reading 'steps')"))
    ),
  };
  const failure = await failureOf(
    new MockActivityEnvironment({ ...INFO, attempt: 2 }).run(createPlanningActivities(deps).analyzeRequirements, {
      request: goal,
    }),
  );
  expect(failure.message).toMatch(/^PLAN-013 Cannot read properties of undefined/);
  expect(failure.nonRetryable).toBe(false); // retried as any unclassified error is
  const calls = llmCallsOfFailure(failure);
  expect(calls).toHaveLength(2);
  expect(calls[0]).toEqual(EARLIER);
  expect(calls[1]!.prompt_tokens).toBeGreaterThan(0);
});
