/** Warm start: the planner's stable prompt prefix is sent once, so the first real planning call finds it cached. */
import { plannerSystemPrompt } from '../../../src/llm/prompts';
import { warmPromptCache } from '../../../src/llm/warm-up';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { LlmHarness } from '../../support/llm';

const harness = new LlmHarness();
afterEach(() => harness.close());

test("sends the planner's system prompt for the catalog and asks for one token", async () => {
  await harness.start({ script: ['{}'] });
  const warmed = await warmPromptCache(harness.client, catalog);

  expect(warmed).toEqual(expect.objectContaining({ cached_tokens: 0, prompt_tokens: expect.any(Number) }));
  const body = harness.server.requests[0]!.body;
  expect(body.messages[0]).toEqual({ role: 'system', content: plannerSystemPrompt(catalog) });
  expect(body.max_tokens).toBe(1);
});

test('a planning call after it finds the whole system prompt in the prompt cache', async () => {
  await harness.start({ script: ['{}', '{}'] });
  await warmPromptCache(harness.client, catalog);
  const { usage } = await harness.client.complete(
    [
      { role: 'system', content: plannerSystemPrompt(catalog) },
      { role: 'user', content: 'Goal: List all waste facilities in Hannover' },
    ],
    { temperature: 0 },
  );
  expect(usage.cached_tokens).toBeGreaterThanOrEqual(Math.floor(plannerSystemPrompt(catalog).length / 4) - 1);
});

test('reports a provider that cannot be reached instead of throwing', async () => {
  await harness.start({ script: [{ status: 500, message: 'down' }] });
  const warmed = await warmPromptCache(harness.client, catalog);
  expect(warmed).toEqual({ error: expect.stringContaining('500') });
});
