import path from 'node:path';
import { validatePlan } from '../../../src/domain/validation';
import { WASTE_CATALOG, WASTE_CLARIFICATIONS } from '../../../src/tools/waste/catalog';
import { analyzeGoalByRules } from '../../../src/planners/analyze/rules-analyzer';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { toolSpecFromJsonSchema } from '../../../src/domain/tool-spec';
import { withActionsAccounted } from '../../../src/planners/coverage';
import { projectRoot } from '../../../src/project-root';
import { loadGoldenSet } from '../../../bench/eval-harness';

import { rankingPlan, request, STAMP, stepsOf } from '../../support/planning';

describe('the ranking planner on the seed scenarios (now = Monday 2026-11-23)', () => {
  test("accounts for every action of the eval's waste goals (vague ones aside): the LLM planner's mending (withActionsAccounted) would change none of its plans", () => {
    const goals = loadGoldenSet(path.join(projectRoot(), 'bench/eval-goals.json')).filter(
      (g) => g.catalog === 'waste' && g.kind !== 'vague',
    );
    expect(goals.length).toBeGreaterThan(10);
    const mended = goals.filter((g) => {
      const plan = rankingPlan(g.goal);
      return withActionsAccounted(plan, request(g.goal), WASTE_CATALOG) !== plan;
    });
    expect(mended.map((g) => g.id)).toEqual([]);
  });

  test('"shipments from last week" → one shipments step with last week as a date range', () => {
    const plan = rankingPlan('Get me shipments from last week');
    expect(plan.status).toBe('FEASIBLE');
    expect(stepsOf(plan)).toEqual([
      { tool: 'shipments', params: { date_from: '2026-11-16', date_to: '2026-11-22' }, depends_on: [] },
    ]);
  });

  test('"contaminated shipments … and their contaminant details" → shipments, then contaminants of their ids', () => {
    const plan = rankingPlan('Get contaminated shipments from last week and show me the contaminant details');
    expect(plan.status).toBe('FEASIBLE');
    expect(stepsOf(plan)).toEqual([
      {
        tool: 'shipments',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true },
        depends_on: [],
      },
      { tool: 'contaminants-detected', params: { shipment_ids: '${step[0].data.*.id}' }, depends_on: [0] },
    ]);
    expect(plan.complexity).toBe(2);
    expect(plan.estimate.calls).toBe(2);
  });

  test('"contaminants detected in Hannover today" → the facility lookup comes first and feeds facility_id every facility it finds', () => {
    const plan = rankingPlan('Contaminants detected in Hannover today');
    expect(stepsOf(plan)).toEqual([
      { tool: 'facilities', params: { location: 'Hannover' }, depends_on: [] },
      {
        tool: 'contaminants-detected',
        params: { date_from: '2026-11-23', date_to: '2026-11-23', facility_id: '${step[0].data.*.id}' },
        depends_on: [0],
      },
    ]);
  });

  test('"inspections accepted this week … high-risk contaminants" → inspections feed shipment ids by their field', () => {
    const plan = rankingPlan('From the inspections accepted this week, did we detect any high-risk contaminants?');
    expect(stepsOf(plan)).toEqual([
      {
        tool: 'inspections',
        params: { date_from: '2026-11-23', date_to: '2026-11-23', status: 'accepted' },
        depends_on: [],
      },
      {
        tool: 'contaminants-detected',
        params: { risk_level: 'high', shipment_ids: '${step[0].data.*.shipment_id}' },
        depends_on: [0],
      },
    ]);
  });

  test('every scenario plan passes validation against the catalog', () => {
    for (const goal of [
      'Get me shipments from last week',
      'Get contaminated shipments from last week and show me the contaminant details',
      'Contaminants detected in Hannover today',
      'From the inspections accepted this week, did we detect any high-risk contaminants?',
    ]) {
      expect(validatePlan(rankingPlan(goal), { catalog: WASTE_CATALOG })).toEqual([]);
    }
  });

  test('same input → the same plan, byte for byte', () => {
    const goal = 'Get contaminated shipments from last week and show me the contaminant details';
    expect(JSON.stringify(rankingPlan(goal))).toBe(JSON.stringify(rankingPlan(goal)));
  });

  test('a goal no tool can serve is IMPOSSIBLE and names what is missing', () => {
    const plan = rankingPlan('Add email validation to the signup form');
    expect(plan.status).toBe('IMPOSSIBLE');
    expect(plan.tasks).toEqual([]);
    expect(plan.missing_capabilities).toEqual(['Add email validation to the signup form']);
  });

  test('a goal with one unmet requirement is PARTIAL: the rest is planned, the gap named', () => {
    const plan = rankingPlan('Get shipments from last week and email them to the manager');
    expect(plan.status).toBe('PARTIAL');
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['shipments']);
    expect(plan.missing_capabilities).toEqual(['Email them to the manager']);
  });

  test('max_steps is respected: the weakest match and its dependents are dropped, and the plan says so', () => {
    const plan = rankingPlan('From the inspections accepted this week, did we detect any high-risk contaminants?', {
      constraints: { max_steps: 1 },
    });
    expect(stepsOf(plan)).toHaveLength(1);
    expect(plan.status).toBe('PARTIAL');
    expect(plan.missing_capabilities.join(' ')).toMatch(/left out to respect max_steps or the budget/);
  });

  test('a plan over budget stays whole unless trim_to_budget asks for trimming', () => {
    const goal = 'Get contaminated shipments from last week and show me the contaminant details';
    const budget = { cost_usd: 1, tokens: 100_000, calls: 1, policy: 'block' } as const;
    const whole = rankingPlan(goal, { budget });
    expect(stepsOf(whole).map((s) => s.tool)).toEqual(['shipments', 'contaminants-detected']);
    expect(whole.status).toBe('FEASIBLE');
    expect(whole.estimate.calls).toBe(2);

    const req = request(goal, { budget });
    const requirements = analyzeGoalByRules({ request: req, catalog: WASTE_CATALOG }, WASTE_CLARIFICATIONS);
    const trimmed = new RankingPlanner().plan({
      request: req,
      requirements,
      catalog: WASTE_CATALOG,
      stamp: STAMP,
      trim_to_budget: true,
    });
    expect(stepsOf(trimmed).map((s) => s.tool)).toEqual(['shipments']);
    expect(trimmed.estimate.calls).toBe(1);
  });

  test('a required path param the goal does not fill takes the first example of its schema, and the plan says so', () => {
    const listDirectory = toolSpecFromJsonSchema({
      name: 'list_directory',
      description: 'List the entries of a directory',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', examples: ['/srv/notes', '/srv/more'] },
          depth: { type: 'integer', examples: [2] },
        },
        required: ['path'],
      },
      task_queue: 'q',
      idempotent: true,
      tags: ['list', 'directory'],
    });
    const req = request('List the directory', { tool_catalog: 'files' });
    const requirements = analyzeGoalByRules({ request: req, catalog: [listDirectory] });
    const plan = new RankingPlanner().plan({ request: req, requirements, catalog: [listDirectory], stamp: STAMP });
    // Only a path: an example of any other param is no value the goal asked for.
    expect(stepsOf(plan)).toEqual([{ tool: 'list_directory', params: { path: '/srv/notes' }, depends_on: [] }]);
    expect(plan.assumptions).toContain(
      'list_directory.path is "/srv/notes", the first example its schema gives: the goal names no path',
    );
  });

  test('a required param nothing fills (no default, not a path) leaves the step out, and the plan names what it needs', () => {
    const search = toolSpecFromJsonSchema({
      name: 'search_notes',
      description: 'Search the notes for a pattern',
      parameters: {
        type: 'object',
        properties: { pattern: { type: 'string', examples: ['budget'] } },
        required: ['pattern'],
      },
      task_queue: 'q',
      idempotent: true,
      tags: ['search', 'notes'],
    });
    const req = request('Search the notes', { tool_catalog: 'files' });
    const plan = new RankingPlanner().plan({
      request: req,
      requirements: analyzeGoalByRules({ request: req, catalog: [search] }),
      catalog: [search],
      stamp: STAMP,
    });
    expect(plan).toMatchObject({
      status: 'IMPOSSIBLE',
      missing_capabilities: ['search_notes (needs pattern, which the goal does not give)'],
    });
  });

  test('allowed_tools limits the catalog the planner may use', () => {
    const plan = rankingPlan('Get contaminated shipments from last week and show me the contaminant details', {
      constraints: { max_steps: 20, allowed_tools: ['shipments'] },
    });
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['shipments']);
    expect(plan.status).toBe('PARTIAL');
  });
});
