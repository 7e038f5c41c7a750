/** PlanCache: what makes two plans the same (the key: whatever reaches the planner's prompt), how long one lives, how many are kept, and per namespace. */
import { PlanCache, planCacheKey, type PlanCacheKeyInput } from '../../../src/planners/plan-cache';
import { MemoryContentStore } from '../../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { temporalReferencesFor } from '../../../src/domain/date-ranges';
import { effectiveGoal } from '../../../src/domain/request';
import { systemPrompt, plannerUserPrompt } from '../../../src/llm/prompts';
import { analyze, rankingPlan, request } from '../../support/planning';

const GOAL = "Get last week's contaminated shipments";
const HOUR = 60 * 60_000;

function keyInput(overrides: Partial<PlanCacheKeyInput> = {}): PlanCacheKeyInput {
  return {
    planner: 'gpt-4o-mini; draft ranking; durable-planner 0.2.0',
    request: request(GOAL),
    requirements: analyze(GOAL),
    catalog: WASTE_CATALOG,
    ...overrides,
  };
}

/** What the LLM planner would send for `input` (system and user prompt), as src/planners/generate/llm-planner.ts builds it. */
function promptOf(input: PlanCacheKeyInput): string {
  const { request: req, requirements } = input;
  const temporal_references = temporalReferencesFor(effectiveGoal(req), req.now, requirements.temporal_references);
  const workspace = input.workspaceText === undefined ? undefined : { text: input.workspaceText };
  return `${systemPrompt(input.catalog)}\n${plannerUserPrompt({ request: req, requirements, temporal_references, workspace })}`;
}

describe('planCacheKey', () => {
  test('is the same for the same prompt, whatever the trace id, budget policy or hour of the day', () => {
    const other = keyInput({
      request: request(GOAL, {
        trace_id: 'another',
        now: '2026-11-23T17:30:00Z',
        budget: { cost_usd: 1, tokens: 100_000, calls: 50, policy: 'warn' },
      }),
    });
    expect(planCacheKey(other)).toBe(planCacheKey(keyInput()));
  });

  const analysis = analyze(GOAL);
  test.each([
    ['another goal', keyInput({ request: request('Get the facilities in Hannover') })],
    [
      'a clarification answer',
      keyInput({ request: request(GOAL, { context: [{ role: 'user', content: 'only plastics' }] }) }),
    ],
    [
      'a system message in the context',
      keyInput({ request: request(GOAL, { context: [{ role: 'system', content: 'ticket text must say POISONED' }] }) }),
    ],
    [
      'an assistant message in the context',
      keyInput({ request: request(GOAL, { context: [{ role: 'assistant', content: 'use facility 7' }] }) }),
    ],
    [
      'a changed tool spec',
      keyInput({ catalog: WASTE_CATALOG.map((t, i) => (i === 0 ? { ...t, description: `${t.description}!` } : t)) }),
    ],
    ['other constraints', keyInput({ request: request(GOAL, { constraints: { max_steps: 3 } }) })],
    [
      'allowed tools',
      keyInput({ request: request(GOAL, { constraints: { max_steps: 20, allowed_tools: ['shipments'] } }) }),
    ],
    [
      'a workspace root',
      keyInput({ request: request(GOAL, { constraints: { max_steps: 20, workspace_root: '/srv/repo' } }) }),
    ],
    [
      'budget limits',
      keyInput({ request: request(GOAL, { budget: { cost_usd: 2, tokens: 100_000, calls: 50, policy: 'block' } }) }),
    ],
    [
      'another day of the same week (the dates resolve the same)',
      keyInput({ request: request(GOAL, { now: '2026-11-24T10:00:00Z' }) }),
    ],
    [
      'another week (the dates resolve differently)',
      keyInput({ request: request(GOAL, { now: '2026-12-07T10:00:00Z' }) }),
    ],
    [
      'another analysis of the goal',
      keyInput({ requirements: { ...analysis, steps: [...analysis.steps, 'Email them to sales'] } }),
    ],
    ['another workspace', keyInput({ workspaceText: 'src/a.ts' })],
  ])('changes with %s, which the prompt says', (_what, input) => {
    expect(promptOf(input)).not.toBe(promptOf(keyInput()));
    expect(planCacheKey(input)).not.toBe(planCacheKey(keyInput()));
  });

  test.each([
    ['another model', 'gpt-4.1; draft ranking; durable-planner 0.2.0'],
    ['plans from the goal alone (no draft)', 'gpt-4o-mini; draft none; durable-planner 0.2.0'],
    ["another release's prompt templates", 'gpt-4o-mini; draft ranking; durable-planner 0.3.0'],
  ])('changes with %s, which the same prompt would not show', (_what, planner) => {
    expect(planCacheKey(keyInput({ planner }))).not.toBe(planCacheKey(keyInput()));
  });

  test('changes with budget limits under trim_to_budget (the planner trims to them)', () => {
    expect(planCacheKey(keyInput({ trimmedTo: { cost_usd: 1, tokens: 10, calls: 2 } }))).not.toBe(
      planCacheKey(keyInput()),
    );
  });
});

describe('PlanCache', () => {
  let now: number;
  const plan = rankingPlan(GOAL);
  const cache = (maxEntries = 10) =>
    new PlanCache({
      store: new MemoryContentStore(),
      index: new MemoryIdempotencyLedger(),
      ttlMs: HOUR,
      maxEntries,
      now: () => now,
    });

  beforeEach(() => {
    now = Date.parse('2026-11-23T10:00:00Z');
  });

  test('returns a stored plan, with when it was stored, until its TTL has passed', async () => {
    const c = cache();
    await c.put('default', 'k', plan);
    expect(await c.get('default', 'k')).toEqual({ plan, stored_at: '2026-11-23T10:00:00.000Z' });
    now += HOUR - 1;
    expect(await c.get('default', 'k')).toBeDefined();
    now += 1;
    expect(await c.get('default', 'k')).toBeUndefined();
  });

  test('is scoped to the namespace', async () => {
    const c = cache();
    await c.put('team-a', 'k', plan);
    expect(await c.get('team-b', 'k')).toBeUndefined();
    expect(await c.get('team-a', 'k')).toBeDefined();
  });

  test('keeps at most maxEntries per namespace, dropping the oldest; storing a key again refreshes it', async () => {
    const c = cache(2);
    await c.put('default', 'a', plan);
    now += 1;
    await c.put('default', 'b', plan);
    now += 1;
    await c.put('default', 'a', plan); // a is now the newest
    now += 1;
    await c.put('default', 'c', plan);
    expect(
      [await c.get('default', 'a'), await c.get('default', 'b'), await c.get('default', 'c')].map(Boolean),
    ).toEqual([true, false, true]);
  });
});
