import { MockActivityEnvironment } from '@temporalio/testing';
import { createPlanningActivities } from '../../../src/activities/planning';
import { TaskSchema, type Plan } from '../../../src/domain/plan';
import { PlanCache, planCacheKey } from '../../../src/planners/plan-cache';
import { RULE_CRITICS } from '../../../src/planners/critique/rule-critics';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { RuleBasedAnalyzer } from '../../../src/planners/analyze/rules-analyzer';
import { MemoryContentStore } from '../../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';
import { builtInCatalogs } from '../../../src/tools/registry';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { analyze, NOW, rankingPlan, request, STAMP } from '../../support/planning';
import { failureOf } from '../../support/failures';

const store = new MemoryContentStore();
const activities = createPlanningActivities({
  catalogs: builtInCatalogs(),
  rules: { analyzer: new RuleBasedAnalyzer(), planner: new RankingPlanner() },
  critics: RULE_CRITICS,
  store,
  ledger: new MemoryIdempotencyLedger(),
  workspaceRoots: [process.cwd()],
});
const mock = new MockActivityEnvironment();
const env = {
  run: <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A) => mock.run(fn, ...args) as Promise<R>,
};
const goal = 'Get contaminated shipments from last week and show me the contaminant details';

describe('planning activities', () => {
  test('analyzeRequirements: "Add validation" needs clarification; no LLM call is reported', async () => {
    const result = await env.run(activities.analyzeRequirements, { request: request('Add validation') });
    expect(result.requirements.is_clear).toBe(false);
    expect(result.requirements.clarification?.options).toHaveLength(4);
    expect(result.llm_calls).toEqual([]);
  });

  test('generatePlan → critiquePlan → gatekeeper approves the scenario plan', async () => {
    const req = request(goal);
    const { plan } = await env.run(activities.generatePlan, {
      request: req,
      requirements: analyze(goal),
      stamp: STAMP,
    });
    expect(plan).toMatchObject({
      id: STAMP.id,
      version: 1,
      status: 'FEASIBLE',
      metadata: { planner: 'ranking', created_at: NOW },
    });
    const { critiques } = await env.run(activities.critiquePlan, { plan, request: req });
    const decision = await env.run(activities.gatekeeper, { critiques, max_refinements: 2, refinements_done: 0 });
    expect(decision.decision).toBe('approve');
  });

  test("generatePlan with_routes returns the routes lookupTools would give for the plan's tools, and none unasked", async () => {
    const input = { request: request(goal), requirements: analyze(goal), stamp: STAMP };
    const withRoutes = await env.run(activities.generatePlan, { ...input, with_routes: true });
    const tools = withRoutes.plan.tasks.flatMap((t) => t.steps.flatMap((s) => (s.tool ? [s.tool] : [])));
    expect(Object.keys(withRoutes.routes!).sort()).toEqual([...new Set(tools)].sort());
    expect(withRoutes.routes).toEqual(
      await env.run(activities.lookupTools, { tool_catalog: input.request.tool_catalog, tools }),
    );
    expect((await env.run(activities.generatePlan, input)).routes).toBeUndefined();
  });

  test("generatePlan plans within the run's current budget (a raise), not the request's original limits", async () => {
    // Trimming to the budget (opt-in) makes the limits the planner sees visible in the plan it returns.
    const req = request(goal, { budget: { cost_usd: 1, tokens: 200_000, calls: 1, policy: 'block' } });
    const original = await env.run(activities.generatePlan, {
      request: req,
      requirements: analyze(goal),
      stamp: STAMP,
      trim_to_budget: true,
    });
    const budget = {
      limit: { cost_usd: 1, tokens: 200_000, calls: 100 },
      spent: { cost_usd: 0, tokens: 0, calls: 0 },
      policy: 'block' as const,
    };
    const raised = await env.run(activities.generatePlan, {
      request: req,
      requirements: analyze(goal),
      stamp: STAMP,
      budget,
      trim_to_budget: true,
    });
    const steps = (p: typeof original.plan) => p.tasks.flatMap((t) => t.steps).length;
    expect(steps(raised.plan)).toBeGreaterThan(steps(original.plan));
  });

  test('archive stores a value and returns its content address', async () => {
    const { ref } = await env.run(activities.archive, { value: { version: 1, plan: 'x' } });
    expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await store.get(ref)).toEqual({ version: 1, plan: 'x' });
  });

  test('an unknown tool catalog fails RETRYABLY (another worker may serve it) with the code and a hint naming the known catalogs', async () => {
    const failure = await failureOf(
      env.run(activities.analyzeRequirements, { request: request(goal, { tool_catalog: 'nope' }) }),
    );
    expect(failure.type).toBe('CatalogUnavailableError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(
      /^PLAN-006 unknown tool catalog "nope"\nHint: Use one of: waste, or start a worker that serves "nope"\./,
    );
    expect(failure.details?.[0]).toMatchObject({ code: 'PLAN-006' });
  });

  test('input that does not match the schema is a typed, non-retryable failure listing the problems', async () => {
    const failure = await failureOf(
      env.run(activities.generatePlan, { request: request(goal), requirements: {}, stamp: STAMP } as never),
    );
    expect(failure.type).toBe('InvalidInputError');
    expect(failure.nonRetryable).toBe(true);
    expect(JSON.stringify(failure.details)).toContain('requirements.is_clear');
  });

  test('a run that plans with the LLM on a worker without one fails retryably (typed), so a worker with an LLM takes it', async () => {
    for (const call of [
      () => env.run(activities.analyzeRequirements, { request: request(goal, { planner: 'llm' }) }),
      () =>
        env.run(activities.generatePlan, {
          request: request(goal, { planner: 'llm' }),
          requirements: analyze(goal),
          stamp: STAMP,
        }),
    ]) {
      const failure = await failureOf(call());
      expect(failure.type).toBe('WorkerFailureError');
      expect(failure.nonRetryable).toBe(false);
      expect(failure.message).toMatch(
        /^PLAN-013 this run plans with the LLM planner but this worker has no LLM configured/,
      );
      expect(failure.details?.[0]).toMatchObject({ code: 'PLAN-013', details: { planner: 'llm' } });
    }
  });
});

describe('generatePlan and the plan cache', () => {
  // The "LLM" planner plans by ranking (so its plans validate) and counts its calls.
  let generated = 0;
  const ranking = new RankingPlanner();
  const llmPlanner = {
    kind: 'llm' as const,
    cacheIdentity: 'counting model',
    generate: (input: Parameters<RankingPlanner['generate']>[0]) => (generated++, ranking.generate(input)),
  };
  const cache = new PlanCache({
    store: new MemoryContentStore(),
    index: new MemoryIdempotencyLedger(),
    ttlMs: 3_600_000,
    maxEntries: 10,
  });
  const withCache = createPlanningActivities({
    catalogs: builtInCatalogs(),
    rules: { analyzer: new RuleBasedAnalyzer(), planner: ranking },
    llm: {
      analyzer: new RuleBasedAnalyzer(),
      planner: llmPlanner,
      critics: [],
      client: { complete: () => Promise.reject(new Error('no LLM in this test')) },
    },
    critics: RULE_CRITICS,
    store: new MemoryContentStore(),
    ledger: new MemoryIdempotencyLedger(),
    workspaceRoots: [process.cwd()],
    planCache: cache,
  });
  const namespace = 'team-a';
  const inNamespace = new MockActivityEnvironment({ namespace });
  const req = request(goal, {
    planner: 'llm',
    constraints: { max_steps: 20, allowed_tools: ['shipments', 'contaminants-detected'] },
  });
  const input = { request: req, requirements: analyze(goal), stamp: STAMP };
  const key = planCacheKey({
    planner: llmPlanner.cacheIdentity,
    request: req,
    requirements: input.requirements,
    catalog: WASTE_CATALOG,
  });
  const withStep = (plan: Plan, tool: string): Plan => ({
    ...plan,
    tasks: [
      ...plan.tasks,
      TaskSchema.parse({
        id: '9',
        title: 'Extra',
        steps: [{ ...plan.tasks[0]!.steps[0]!, id: '9.1', tool, params: {}, depends_on: [] }],
      }),
    ],
  });

  beforeEach(() => {
    generated = 0;
  });

  test('a cached plan that validates against the current catalog and constraints is served without planning', async () => {
    await cache.put(namespace, key, rankingPlan(goal));
    const result = (await inNamespace.run(withCache.generatePlan, input)) as { from_cache?: string; plan: Plan };
    expect(result.from_cache).toBeDefined();
    expect(generated).toBe(0);
  });

  test.each([
    ['calls a tool the catalog does not have', 'wire-money'],
    ['calls a catalog tool the constraints do not allow', 'inspections'],
  ])('a cached plan that %s is planned afresh', async (_what, tool) => {
    await cache.put(namespace, key, withStep(rankingPlan(goal), tool));
    const result = (await inNamespace.run(withCache.generatePlan, input)) as { from_cache?: string; plan: Plan };
    expect(result.from_cache).toBeUndefined();
    expect(generated).toBe(1);
    expect(result.plan.tasks.flatMap((t) => t.steps.map((s) => s.tool))).not.toContain(tool);
  });
});
