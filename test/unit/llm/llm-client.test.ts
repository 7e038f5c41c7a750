/** Prices and LlmClient error mapping (over real HTTP), plus the scripted server's fault injection (LLM settings: config.test.ts). */
import fc from 'fast-check';
import { LlmCallError, type PlannerError } from '../../../src/domain/errors';
import { LlmClient } from '../../../src/llm/chat';
import { PRICES, costOf, priceOf } from '../../../src/llm/prices';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scripted-llm-server';
import { LlmHarness } from '../../support/llm';

describe('prices', () => {
  it('knows common models, OpenRouter ids and dated snapshots', () => {
    expect(priceOf('gpt-4o-mini')).toBe(PRICES['gpt-4o-mini']);
    expect(priceOf('openai/gpt-4o-mini')).toBe(PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-4o-mini-2024-07-18')).toBe(PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-4o-2024-08-06')).toBe(PRICES['gpt-4o']);
    expect(priceOf('anthropic/claude-sonnet-4')).toBeDefined();
    expect(priceOf('gpt-4o-audio-preview')).toBeUndefined(); // not a snapshot of gpt-4o: unknown, not mispriced
  });

  it('bills cached prompt tokens at the cached rate and unknown models at 0', () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, cached_tokens: 400_000 };
    expect(costOf('gpt-4.1', usage)).toBeCloseTo(0.6 * 2 + 0.4 * 0.5 + 8, 9);
    expect(costOf('llama3.1:8b', usage)).toBe(0);
    expect(priceOf('llama3.1:8b')).toBeUndefined();
  });

  it('never charges more for cached tokens than for uncached ones', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(PRICES)),
        fc.nat(10_000_000),
        fc.nat(10_000_000),
        fc.nat(10_000_000),
        (model, prompt, completion, cachedRaw) => {
          const cached = Math.min(cachedRaw, prompt);
          const withCache = costOf(model, {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cached_tokens: cached,
          });
          const without = costOf(model, { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: 0 });
          return withCache >= 0 && withCache <= without;
        },
      ),
    );
  });
});

describe('LlmClient errors over HTTP', () => {
  const harness = new LlmHarness();
  afterEach(() => harness.close());

  async function failure(client: LlmClient): Promise<PlannerError> {
    const error = await client
      .complete([{ role: 'user', content: 'Reply in JSON' }], { temperature: 0, json: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmCallError);
    return error as PlannerError;
  }

  it.each([
    [429, true, 'rate limiting'],
    [500, true, 'HTTP 500'],
    [503, true, 'HTTP 503'],
    [400, false, 'JSON mode'],
    [401, false, 'OPENAI_API_KEY'],
    [403, false, 'may use model'],
    [404, false, 'PLANNER_MODEL'],
  ])('HTTP %i → retryable %s, message mentions "%s"', async (status, retryable, text) => {
    await harness.start({ script: [{ status }] });
    const error = await failure(harness.client);
    expect(error.code).toBe('PLAN-005');
    expect(error.retryable).toBe(retryable);
    expect(error.message).toContain(text);
    expect(error.details).toMatchObject({ status, model: 'gpt-4o-mini', base_url: harness.server.baseURL });
  });

  it('a reply slower than the timeout is a retryable timeout, after one request', async () => {
    await harness.start({ script: [{ content: '{}', delay_ms: 3_000 }] }, { timeoutMs: 200 });
    const error = await failure(harness.client);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('timed out after 200 ms');
    expect(harness.server.calls).toBe(1);
  });

  it('an unreachable server is a retryable connection error', async () => {
    await harness.start({ script: [] });
    await harness.server.close();
    const error = await failure(harness.client);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('could not reach');
  });
});

describe('scripted server fault injection', () => {
  const servers: ScriptedLlmServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function outcomes(seed: number): Promise<string[]> {
    const server = await startScriptedLlmServer({ reply: () => '{}', faults: { rate: 0.3, seed, kinds: ['error'] } });
    servers.push(server);
    const client = new LlmClient({ baseURL: server.baseURL, model: 'm', timeoutMs: 5_000 });
    for (let i = 0; i < 20; i++)
      await client.complete([{ role: 'user', content: 'JSON' }], { temperature: 0 }).catch(() => undefined);
    return server.requests.map((r) => r.outcome);
  }

  it('injects a seeded share of 500s, reproducibly', async () => {
    const first = await outcomes(7);
    expect(await outcomes(7)).toEqual(first);
    const faults = first.filter((o) => o === 'fault-error').length;
    expect(faults).toBeGreaterThan(0);
    expect(faults).toBeLessThan(20);
    expect(await outcomes(8)).not.toEqual(first);
  });
});
