/** Builders for planning tests: requests over the waste catalog at a fixed `now` (Monday 2026-11-23). */
import { parsePlanningRequest, type PlanningRequest, type PlanningRequestInput } from '../../src/domain/request';
import type { Requirements } from '../../src/domain/requirements';
import { PlanSchema, type Plan, type PlanInput, type Step } from '../../src/domain/plan';
import { RankingPlanner } from '../../src/planners/generate/ranking-planner';
import { analyzeGoalByRules } from '../../src/planners/analyze/rules-analyzer';
import { WASTE_CATALOG, WASTE_CLARIFICATIONS } from '../../src/tools/waste/catalog';

export const NOW = '2026-11-23T10:00:00Z';
export const STAMP = { id: '019ab000-0000-7000-8000-000000000001', version: 1, created_at: NOW };

export function request(goal: string, overrides: Partial<PlanningRequestInput> = {}): PlanningRequest {
  return parsePlanningRequest({
    goal,
    trace_id: 'trace-1',
    tool_catalog: 'waste',
    budget: { cost_usd: 1, tokens: 100_000, calls: 50, policy: 'block' },
    now: NOW,
    ...overrides,
  });
}

export function analyze(goal: string, overrides: Partial<PlanningRequestInput> = {}): Requirements {
  return analyzeGoalByRules({ request: request(goal, overrides), catalog: WASTE_CATALOG }, WASTE_CLARIFICATIONS);
}

export function rankingPlan(goal: string, overrides: Partial<PlanningRequestInput> = {}): Plan {
  const req = request(goal, overrides);
  const requirements = analyzeGoalByRules({ request: req, catalog: WASTE_CATALOG }, WASTE_CLARIFICATIONS);
  return new RankingPlanner().plan({ request: req, requirements, catalog: WASTE_CATALOG, stamp: STAMP });
}

export function stepsOf(plan: Plan) {
  return plan.tasks.flatMap((t) => t.steps).map((s) => ({ tool: s.tool, params: s.params, depends_on: s.depends_on }));
}

/** A FEASIBLE one-task plan for `goal` whose steps are `steps` (tool calls unless they say otherwise), ids 1.1, 1.2, … */
export function planOfSteps(goal: string, steps: Partial<Step>[], extra: Partial<PlanInput> = {}): Plan {
  return PlanSchema.parse({
    id: STAMP.id,
    version: 1,
    goal,
    status: 'FEASIBLE',
    tasks: [
      {
        id: '1',
        title: 'Answer',
        steps: steps.map((s, i) => ({
          id: `1.${i + 1}`,
          title: `Step ${i + 1}`,
          action: 'tool_call',
          depends_on: [],
          ...s,
        })),
      },
    ],
    complexity: 1,
    estimate: { cost_usd: 0, tokens: 0, calls: steps.length, duration_ms: 0 },
    metadata: { planner: 'llm', model: 'm', temperature: 0.1, created_at: NOW },
    ...extra,
  });
}
