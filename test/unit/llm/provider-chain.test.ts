/** ProviderChain over real HTTP: which failures move a call to the next provider, and what each call records. */
import { LlmCallError, type PlannerError } from '../../../src/domain/errors';
import type { LlmCallUsage } from '../../../src/domain/llm-calls';
import { everyProviderFailed } from '../../../src/domain/llm-calls';
import { ProviderChain } from '../../../src/llm/providers';
import type { ReplySchema } from '../../../src/llm/structured-output';
import { withLlmCallRecorder } from '../../../src/llm/usage-recorder';
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedReply } from '../../support/scripted-llm-server';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(script: ScriptedReply[]): Promise<ScriptedLlmServer> {
  const started = await startScriptedLlmServer({ script });
  servers.push(started);
  return started;
}

function chain(...providers: [string, ScriptedLlmServer, number?][]): ProviderChain {
  return ProviderChain.fromConfig(
    providers.map(([name, s, timeoutMs]) => ({
      name,
      baseURL: s.baseURL,
      model: `${name}-model`,
      timeoutMs: timeoutMs ?? 5_000,
    })),
  );
}

const ask = (c: ProviderChain) =>
  c.complete([{ role: 'user', content: 'Reply in JSON' }], { temperature: 0, json: true });

async function failure(c: ProviderChain): Promise<PlannerError> {
  const error = await ask(c).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LlmCallError);
  return error as PlannerError;
}

test.each([
  ['HTTP 500', { status: 500 }, 'HTTP 500'],
  ['HTTP 429', { status: 429 }, 'HTTP 429'],
  ['a timeout', { content: '{}', delay_ms: 2_000 }, 'timeout'],
] as const)(
  'after %s from the first provider the second answers; the usage records both attempts',
  async (_what, fault, outcome) => {
    const first = await server([fault]);
    const second = await server(['{"ok":true}']);
    const recorded: LlmCallUsage[] = [];
    const answer = await withLlmCallRecorder(
      async (usage) => void recorded.push(usage),
      () => ask(chain(['first', first, 1_000], ['second', second])),
    );
    expect(answer.content).toBe('{"ok":true}');
    expect([first.calls, second.calls]).toEqual([1, 1]);
    expect(answer.usage.provider).toBe('second');
    expect(answer.usage.attempts).toEqual([
      { provider: 'first', model: 'first-model', outcome, ms: expect.any(Number) },
      { provider: 'second', model: 'second-model', outcome: 'ok', ms: expect.any(Number) },
    ]);
    // the recorder (which charges and writes the ledger) sees the same labelled usage, once
    expect(recorded).toEqual([answer.usage]);
  },
);

test('an unreachable provider is passed over', async () => {
  const gone = await server([]);
  await gone.close();
  const up = await server(['{}']);
  const answer = await ask(chain(['gone', gone], ['up', up]));
  expect(answer.usage.attempts!.map((a) => [a.provider, a.outcome])).toEqual([
    ['gone', 'unreachable'],
    ['up', 'ok'],
  ]);
});

test.each([400, 401, 404])(
  'HTTP %i ends the call at the provider that refused it: non-retryable, the next provider is not asked',
  async (status) => {
    const first = await server([{ status }]);
    const second = await server(['{}']);
    const error = await failure(chain(['first', first], ['second', second]));
    expect(error.retryable).toBe(false);
    expect(second.calls).toBe(0);
    expect(error.details.provider_attempts).toEqual([
      { provider: 'first', model: 'first-model', outcome: `HTTP ${status}`, ms: expect.any(Number) },
    ]);
    expect(everyProviderFailed(error)).toBe(false);
  },
);

test('when every provider fails retryably, one retryable PLAN-005 names every attempt', async () => {
  const first = await server([{ status: 503 }]);
  const second = await server([{ status: 500 }]);
  const error = await failure(chain(['first', first], ['second', second]));
  expect(error.code).toBe('PLAN-005');
  expect(error.retryable).toBe(true);
  expect(error.message).toMatch(
    /^every LLM provider failed: first \(first-model\) HTTP 503 in \d+ ms → second \(second-model\) HTTP 500 in \d+ ms/,
  );
  expect((error.details.provider_attempts as unknown[]).length).toBe(2);
  expect(everyProviderFailed(error)).toBe(true);
});

test('a one-provider chain fails with that provider’s own error, attempts added', async () => {
  const only = await server([{ status: 429 }]);
  const error = await failure(chain(['only', only]));
  expect(error.message).toContain('rate limiting (HTTP 429)');
  expect(error.details).toMatchObject({ status: 429, provider_attempts: [{ provider: 'only', outcome: 'HTTP 429' }] });
  expect(everyProviderFailed(error)).toBe(true);
});

test("the chain offers its first provider's settings and sends every provider the call's schema, token cap and timeout", async () => {
  const first = await server([{ status: 503 }]);
  const second = await server(['{"ok":true}']);
  const c = ProviderChain.fromConfig([
    {
      name: 'first',
      baseURL: first.baseURL,
      model: 'first-model',
      timeoutMs: 5_000,
      defaults: { attempts: 2, temperature: 0.3 },
    },
    { name: 'second', baseURL: second.baseURL, model: 'second-model', timeoutMs: 5_000, defaults: { attempts: 5 } },
  ]);
  expect(c.defaults).toEqual({ attempts: 2, temperature: 0.3 });
  const schema: ReplySchema = {
    name: 'answer',
    schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  };
  await c.complete([{ role: 'user', content: 'Reply in JSON' }], {
    temperature: 0.3,
    json: true,
    schema,
    maxTokens: 64,
    timeoutMs: 4_000,
  });
  for (const s of [first, second]) {
    expect(s.requests[0]!.body).toMatchObject({
      temperature: 0.3,
      max_tokens: 64,
      response_format: { type: 'json_schema', json_schema: { name: 'answer' } },
    });
  }
});
