import { charge, createBudget } from '../../../src/domain/budget';
import { decide } from '../../../src/domain/critique';
import { PlanSchema, type Plan } from '../../../src/domain/plan';
import {
  budgetCritic,
  coverageCritic,
  dependencyCritic,
  RULE_CRITICS,
  toolFitnessCritic,
} from '../../../src/planners/critique/rule-critics';
import { runCritics } from '../../../src/planners/critique/run-critics';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { WORKSPACE_CATALOG, WORKSPACE_CONTEXT_TOOL } from '../../../src/tools/workspace';
import { rankingPlan, request } from '../../support/planning';

const goal = 'Get contaminated shipments from last week and show me the contaminant details';
const context = { request: request(goal), catalog: WASTE_CATALOG };

function withSteps(plan: Plan, edit: (steps: Plan['tasks'][number]['steps']) => void): Plan {
  const copy = structuredClone(plan);
  edit(copy.tasks.flatMap((t) => t.steps)); // the steps of every task, in plan order (the objects themselves)
  return PlanSchema.parse(copy);
}

describe('critics', () => {
  test('a well-formed scenario plan draws no blocking critique and the gatekeeper approves it', async () => {
    const { critiques } = await runCritics(RULE_CRITICS, rankingPlan(goal), context);
    expect(critiques.filter((c) => c.severity !== 'info')).toEqual([]);
    expect(decide(critiques, { strict: false, max_refinements: 2, refinements_done: 0 }).decision).toBe('approve');
  });

  test('coverage: a plan that does not name an action no tool does is an error; one that names it, or a data-only goal, is not', async () => {
    const emailing = 'Get contaminated shipments from last week and email the list to the compliance team';
    const feasible = { ...rankingPlan(emailing), status: 'FEASIBLE' as const, missing_capabilities: [] };
    const { critiques } = await coverageCritic.review(feasible, { ...context, request: request(emailing) });
    expect(critiques).toEqual([
      expect.objectContaining({
        critic: 'coverage',
        severity: 'error',
        message:
          'the goal asks to "Email the list to the compliance team", which no tool of the catalog does, yet the plan is FEASIBLE and does not name it as missing',
      }),
    ]);

    expect(rankingPlan(emailing).status).toBe('PARTIAL'); // as the ranking planner makes it
    expect(
      (await coverageCritic.review(rankingPlan(emailing), { ...context, request: request(emailing) })).critiques,
    ).toEqual([]);
    expect((await coverageCritic.review(rankingPlan(goal), context)).critiques).toEqual([]);
  });

  test('coverage: a step whose tool shares a word with the action covers it, though the rules matched no tool', async () => {
    const gather = 'Rank the files about passwords';
    const plan = PlanSchema.parse({
      ...rankingPlan(goal),
      tasks: [
        {
          id: '1',
          title: 't',
          steps: [
            {
              id: '1.1',
              title: 'Context',
              tool: WORKSPACE_CONTEXT_TOOL,
              params: { goal: 'passwords' },
              depends_on: [],
            },
          ],
        },
      ],
    });
    const review = (p: Plan) => coverageCritic.review(p, { request: request(gather), catalog: WORKSPACE_CATALOG });
    expect((await review(plan)).critiques).toEqual([]);
    const unrelated = PlanSchema.parse({
      ...plan,
      tasks: [{ ...plan.tasks[0]!, steps: [{ ...plan.tasks[0]!.steps[0]!, tool: 'shipments' }] }],
    });
    expect(
      (
        await coverageCritic.review(unrelated, {
          request: request(gather),
          catalog: [...WORKSPACE_CATALOG, ...WASTE_CATALOG],
        })
      ).critiques,
    ).toHaveLength(1);
  });

  test('dependency: waiting on a step whose data is never used is noted; a forward dependency is a warning', async () => {
    const plan = withSteps(rankingPlan(goal), (steps) => {
      steps[1]!.params = { risk_level: 'high' };
    });
    const { critiques } = await dependencyCritic.review(plan, context);
    expect(critiques).toEqual([expect.objectContaining({ critic: 'dependency', severity: 'info', step_id: '2.1' })]);

    const forward = withSteps(rankingPlan(goal), (steps) => {
      steps[0]!.depends_on = [1];
      steps[1]!.depends_on = [];
      steps[1]!.params = {};
    });
    const found = (await dependencyCritic.review(forward, context)).critiques;
    expect(found).toContainEqual(expect.objectContaining({ severity: 'warning', step_id: '1.1' }));
  });

  test('budget: an estimate over what is left is a warning (under block the run pauses before executing, the plan whole)', async () => {
    const plan = rankingPlan(goal);
    const nearlySpent = charge(createBudget({ cost_usd: 1, tokens: 100_000, calls: 3, policy: 'block' }), {
      cost_usd: 0,
      tokens: 0,
      calls: 2,
    });
    const blocked = await budgetCritic.review(plan, { ...context, budget: nearlySpent });
    expect(blocked.critiques).toEqual([expect.objectContaining({ severity: 'warning', critic: 'budget' })]);
    expect(blocked.critiques[0]!.message).toMatch(/exceeds what the budget has left \(1 calls/);

    const warned = await budgetCritic.review(plan, { ...context, budget: { ...nearlySpent, policy: 'warn' } });
    expect(warned.critiques[0]!.severity).toBe('warning');
  });

  test('tool fitness: an unknown tool is an error; a tool unrelated to its step is a warning', async () => {
    const plan = withSteps(rankingPlan(goal), (steps) => {
      steps[0]!.tool = 'send-email';
      steps[1]!.title = 'Summarize quarterly revenue';
      steps[1]!.description = 'Revenue summary';
    });
    const { critiques } = await toolFitnessCritic.review(plan, context);
    expect(critiques.map((c) => [c.step_id, c.severity])).toEqual([
      ['1.1', 'error'],
      ['2.1', 'warning'],
    ]);
  });

  test('tool fitness: a plan none of whose tools fits its step is an error, sent back for refinement', async () => {
    const weather = withSteps(rankingPlan(goal), (steps) => {
      steps[0]!.title = 'Fetch the weather forecast for Hamburg';
      steps[0]!.description = '';
      steps[1]!.title = 'Extract the weather of tomorrow';
      steps[1]!.description = '';
    });
    const { critiques } = await toolFitnessCritic.review(weather, context);
    expect(critiques.map((c) => [c.step_id ?? 'plan', c.severity])).toEqual([
      ['1.1', 'warning'],
      ['2.1', 'warning'],
      ['plan', 'error'],
    ]);
    expect(critiques[2]!.suggestion).toContain('answer IMPOSSIBLE');
    expect(decide(critiques, { strict: false, max_refinements: 2, refinements_done: 0 }).decision).toBe('refine');
  });

  test('gatekeeper: errors → refine while rounds remain, then reject; strict makes warnings block', () => {
    const error = { critic: 'atomicity', severity: 'error' as const, message: 'compound', suggestion: '' };
    const warning = { critic: 'budget', severity: 'warning' as const, message: 'tight', suggestion: '' };
    expect(decide([error], { strict: false, max_refinements: 2, refinements_done: 1 }).decision).toBe('refine');
    expect(decide([error], { strict: false, max_refinements: 2, refinements_done: 2 })).toMatchObject({
      decision: 'reject',
      blocking: [error],
    });
    expect(decide([warning], { strict: false, max_refinements: 2, refinements_done: 0 }).decision).toBe('approve');
    expect(decide([warning], { strict: true, max_refinements: 2, refinements_done: 0 }).decision).toBe('refine');
  });
});
