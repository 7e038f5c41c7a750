/**
 * Structured outputs over real HTTP: the reply's schema goes out as response_format json_schema; a provider that
 * refuses schemas gets json_object at once and from then on; per-call caps and timeouts reach the provider.
 */
import { hasRefusedSchemas, providerKey } from '../../../src/llm/structured-output';
import { LlmHarness } from '../../support/llm';

const harness = new LlmHarness();
afterEach(() => harness.close());

const schema = {
  name: 'answer',
  schema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] },
};
const ask = [{ role: 'user' as const, content: 'Reply with JSON' }];

describe('LlmClient structured outputs', () => {
  it('sends the schema as response_format json_schema (strict), with max_tokens when capped', async () => {
    await harness.start({ script: ['{"ok": true}'] }, { model: 'schema-model-1' });
    await harness.client.complete(ask, { temperature: 0, schema, maxTokens: 300 });
    const body = harness.server.requests[0]!.body;
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: schema.schema, strict: true },
    });
    expect(body.max_tokens).toBe(300);
  });

  it('falls back to json_object when the provider refuses the schema, uncharged, and remembers it for that provider', async () => {
    const refusal = { status: 400, message: "'response_format.type' must be 'json_object' or 'text'" };
    await harness.start({ script: [refusal, '{"ok": true}', '{"ok": false}'] }, { model: 'no-schema-model' });
    const first = await harness.client.complete(ask, { temperature: 0, schema });
    expect(first.content).toBe('{"ok": true}');
    expect(harness.server.requests.map((r) => r.body.response_format?.type)).toEqual(['json_schema', 'json_object']);
    expect(hasRefusedSchemas(providerKey(harness.server.baseURL, 'no-schema-model'))).toBe(true);

    await harness.client.complete(ask, { temperature: 0, schema });
    expect(harness.server.requests[2]!.body.response_format).toEqual({ type: 'json_object' }); // no second refusal
  });

  it('does not take another 400 (a bad model name) for a schema refusal', async () => {
    await harness.start({ script: [{ status: 404, message: 'model not found' }] }, { model: 'schema-model-2' });
    await expect(harness.client.complete(ask, { temperature: 0, schema })).rejects.toMatchObject({ code: 'PLAN-005' });
    expect(harness.server.calls).toBe(1);
    expect(hasRefusedSchemas(providerKey(harness.server.baseURL, 'schema-model-2'))).toBe(false);
  });

  it('sends json_object when configured so (PLANNER_LLM_RESPONSE_FORMAT=json_object), schema or not', async () => {
    await harness.start({ script: ['{"ok": true}'] }, { model: 'schema-model-3', responseFormat: 'json_object' });
    await harness.client.complete(ask, { temperature: 0, schema });
    expect(harness.server.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
  });

  it('gives one call its own timeout', async () => {
    await harness.start(
      { script: [{ content: '{"ok": true}', delay_ms: 3_000 }] },
      { model: 'schema-model-4', timeoutMs: 30_000 },
    );
    const error = await harness.client.complete(ask, { temperature: 0, timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'PLAN-005',
      retryable: true,
      message: expect.stringContaining('timed out after 1000 ms'),
    });
  });
});
