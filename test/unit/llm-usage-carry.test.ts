/**
 * Every LLM call the provider answered is charged once even when the activity that made it dies: usage is
 * heartbeated as calls complete, and a retry reports the calls of earlier attempts with its own.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPlanningDependencies } from '../../src/activities';
import { createPlanningActivities } from '../../src/activities/planning';
import { MemoryContentStore } from '../../src/store/content-store';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { request } from '../support/planning';

const REQUIREMENTS = JSON.stringify({
  is_clear: true,
  clarification: null,
  steps: ['Fetch shipments from the catalog filtered by date range'],
  required_capabilities: ['shipments'],
  intent: { type: 'query', confidence: 0.9 },
});
const EARLIER = { model: 'gpt-4o-mini', prompt_tokens: 900, completion_tokens: 40, cached_tokens: 0, cost_usd: 0.0002 };

let llm: ScriptedLlmServer;
beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: () => REQUIREMENTS });
});
afterAll(() => llm.close());

function activities() {
  const deps = createPlanningDependencies({ env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'k' }, store: new MemoryContentStore() });
  return createPlanningActivities(deps);
}

test('a retried analysis reports the calls of the attempt that died, heartbeated before it died', async () => {
  const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: [EARLIER] });
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  const result = (await env.run(activities().analyzeRequirements, { request: request('Get shipments from last week', { planner: 'llm' }) })) as {
    llm_calls: (typeof EARLIER)[];
  };
  expect(result.llm_calls).toHaveLength(2);
  expect(result.llm_calls[0]).toEqual(EARLIER);
  expect(result.llm_calls[1]!.prompt_tokens).toBeGreaterThan(0);
  expect(beats[0]).toEqual([EARLIER]); // at once, before any new call
  expect(beats.at(-1)).toEqual(result.llm_calls); // right after the new call completed
});

test('a first attempt starts from no earlier calls', async () => {
  const env = new MockActivityEnvironment();
  const result = (await env.run(activities().analyzeRequirements, { request: request('Get shipments from last week', { planner: 'llm' }) })) as {
    llm_calls: unknown[];
  };
  expect(result.llm_calls).toHaveLength(1);
});
