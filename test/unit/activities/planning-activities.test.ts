import { MockActivityEnvironment } from '@temporalio/testing';
import { createPlanningActivities } from '../../../src/activities/planning';
import { RULE_CRITICS } from '../../../src/planners/critique/rule-critics';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { RuleBasedAnalyzer } from '../../../src/planners/analyze/rules-analyzer';
import { MemoryContentStore } from '../../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../../src/tools/idempotency';
import { builtInCatalogs } from '../../../src/tools/registry';
import { analyze, NOW, request, STAMP } from '../../support/planning';
import { failureOf } from '../../support/failures';

const activities = createPlanningActivities({
  catalogs: builtInCatalogs(),
  rules: { analyzer: new RuleBasedAnalyzer(), planner: new RankingPlanner() },
  critics: RULE_CRITICS,
  store: new MemoryContentStore(),
  ledger: new MemoryIdempotencyLedger(),
});
const mock = new MockActivityEnvironment();
const env = { run: <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A) => mock.run(fn, ...args) as Promise<R> };
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
    const { plan } = await env.run(activities.generatePlan, { request: req, requirements: analyze(goal), stamp: STAMP });
    expect(plan).toMatchObject({ id: STAMP.id, version: 1, status: 'FEASIBLE', metadata: { planner: 'ranking', created_at: NOW } });
    const { critiques } = await env.run(activities.critiquePlan, { plan, request: req });
    const decision = await env.run(activities.gatekeeper, { critiques, max_refinements: 2, refinements_done: 0 });
    expect(decision.decision).toBe('approve');
  });

  test('an unknown tool catalog fails RETRYABLY (another worker may serve it) with the code and a hint naming the known catalogs', async () => {
    const failure = await failureOf(env.run(activities.analyzeRequirements, { request: request(goal, { tool_catalog: 'nope' }) }));
    expect(failure.type).toBe('CatalogUnavailableError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/^PLAN-006 unknown tool catalog "nope"\nHint: Use one of: waste, or start a worker that serves "nope"\./);
    expect(failure.details?.[0]).toMatchObject({ code: 'PLAN-006' });
  });

  test('input that does not match the schema is a typed, non-retryable failure listing the problems', async () => {
    const failure = await failureOf(env.run(activities.generatePlan, { request: request(goal), requirements: {}, stamp: STAMP } as never));
    expect(failure.type).toBe('InvalidInputError');
    expect(failure.nonRetryable).toBe(true);
    expect(JSON.stringify(failure.details)).toContain('requirements.is_clear');
  });

  test('asking for the LLM planner with no LLM configured fails with a remediation hint', async () => {
    const failure = await failureOf(env.run(activities.analyzeRequirements, { request: request(goal, { planner: 'llm' }) }));
    expect(failure.message).toMatch(/Hint: Set OPENAI_API_KEY/);
    expect(failure.nonRetryable).toBe(true);
  });
});
