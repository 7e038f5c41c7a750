/** Warm start: the system prompt every role shares is sent once, so the first real LLM call finds it cached. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPlanningDependencies } from '../../../src/activities';
import { warmUp } from '../../../src/cli/local-stack';
import { loadConfig } from '../../../src/config';
import { systemPrompt } from '../../../src/llm/prompts';
import { LlmAnalyzer } from '../../../src/planners/analyze/llm-analyzer';
import { ProviderChain } from '../../../src/llm/providers';
import { LocalContentStore } from '../../../src/store/content-store';
import { warmPromptCache } from '../../../src/llm/warm-up';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { LlmHarness } from '../../support/llm';
import { request } from '../../support/planning';

const harness = new LlmHarness();
afterEach(() => harness.close());

test('sends the shared system prompt for the catalog and asks for one token', async () => {
  await harness.start({ script: ['{}'] });
  const warmed = await warmPromptCache(harness.client, catalog);

  expect(warmed).toEqual(expect.objectContaining({ cached_tokens: 0, prompt_tokens: expect.any(Number) }));
  const body = harness.server.requests[0]!.body;
  expect(body.messages[0]).toEqual({ role: 'system', content: systemPrompt(catalog) });
  expect(body.max_tokens).toBe(1);
});

test("a run's first LLM call after it, the analysis, finds the whole system prompt in the prompt cache", async () => {
  const analysis = {
    is_clear: true,
    clarification: null,
    steps: ['List the waste facilities in the city'],
    required_capabilities: ['facilities'],
    intent: { type: 'query', confidence: 0.9 },
  };
  await harness.start({ script: ['{}', JSON.stringify(analysis)] });
  await warmPromptCache(harness.client, catalog);
  const { llm_calls } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
    request: request('List all waste facilities in Hannover'),
    catalog,
  });
  expect(harness.messages(1)[0]).toEqual(harness.messages(0)[0]);
  expect(llm_calls[0]!.cached_tokens).toBeGreaterThanOrEqual(systemPrompt(catalog).length / 4);
});

test('reports a provider that cannot be reached instead of throwing', async () => {
  await harness.start({ script: [{ status: 500, message: 'down' }] });
  const warmed = await warmPromptCache(harness.client, catalog);
  expect(warmed).toEqual({ error: expect.stringContaining('500') });
});

describe("a worker's warm-up", () => {
  const planning = (env: Record<string, string>) =>
    createPlanningDependencies({
      config: loadConfig(env),
      store: new LocalContentStore(mkdtempSync(path.join(os.tmpdir(), 'planner-store-'))),
    });

  test('goes through the LLM client its planning activities use: one provider chain, built once', async () => {
    await harness.start({ script: ['{}'] });
    const built = jest.spyOn(ProviderChain, 'fromConfig');
    try {
      const deps = planning({ OPENAI_BASE_URL: harness.server.baseURL, OPENAI_API_KEY: 'test-key' });
      const line = await warmUp(deps);
      expect(line).toMatch(
        /^LLM prompt cache warmed with the shared system prompt for catalog waste: \d+ prompt tokens/,
      );
      expect(harness.server.requests).toHaveLength(1);
      expect(built).toHaveBeenCalledTimes(1); // by the planning dependencies, not again for the warm-up
      expect(built.mock.results[0]!.value).toBe(deps.llm!.client);
    } finally {
      built.mockRestore();
    }
  });

  test('a planner without an LLM has nothing to warm', () => {
    expect(warmUp(planning({}))).toBeUndefined();
  });
});
