/**
 * The ranking planner on goals written as a new user writes them, over the waste catalog and two others (a
 * filesystem server's tools, a travel catalog written for these tests): rules from the tools' schemas, never from
 * one catalog's words.
 */
import { validatePlan } from '../../../src/domain/validation';
import { toolSpecFromJsonSchema, type ToolSpec } from '../../../src/domain/tool-spec';
import { analyzeGoalByRules } from '../../../src/planners/analyze/rules-analyzer';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { goalConstraints } from '../../../src/planners/goal-constraints';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { WORKSPACE_CATALOG } from '../../../src/tools/workspace';
import { FILES_CATALOG as FILES } from '../../support/files-catalog';
import { NOW, rankingPlan, request, STAMP, stepsOf } from '../../support/planning';

function planOver(goal: string, catalog: ToolSpec[], tool_catalog: string) {
  const req = request(goal, { tool_catalog });
  const requirements = analyzeGoalByRules({ request: req, catalog });
  return new RankingPlanner().plan({ request: req, requirements, catalog, stamp: STAMP });
}

/** A catalog of another domain: its enums are lower case, one of them of places. */
const TRAVEL: ToolSpec[] = [
  toolSpecFromJsonSchema({
    name: 'hotels',
    description: 'List hotels by city, rating and availability.',
    task_queue: 'travel',
    idempotent: true,
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', enum: ['paris', 'lyon', 'new_york'], description: 'City' },
        availability: { type: 'string', enum: ['available', 'fully_booked'] },
      },
    },
    result: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
  }),
  toolSpecFromJsonSchema({
    name: 'rebuild_search_index',
    description: 'Rebuild the search index of all hotels (slow: about 20 seconds).',
    task_queue: 'travel',
    idempotent: false,
    parameters: { type: 'object', properties: {} },
  }),
];

describe('enum values match whatever their case or spacing, and reach the step as the enum spells them', () => {
  test('"Paris" and "PARIS" go into a lower-case enum as "paris"; the plan validates', () => {
    for (const goal of ['Find available hotels in Paris', 'Find AVAILABLE hotels in PARIS']) {
      const plan = planOver(goal, TRAVEL, 'travel');
      expect(stepsOf(plan)).toEqual([
        { tool: 'hotels', params: { availability: 'available', city: 'paris' }, depends_on: [] },
      ]);
      expect(validatePlan(plan, { catalog: TRAVEL })).toEqual([]);
    }
  });

  test('an enum value of two words is found written with a space or a dash ("New York", "fully-booked")', () => {
    const plan = planOver('Which hotels in New York are fully-booked?', TRAVEL, 'travel');
    expect(stepsOf(plan)).toEqual([
      { tool: 'hotels', params: { availability: 'fully_booked', city: 'new_york' }, depends_on: [] },
    ]);
  });

  test('"still in transit" → status in_transit, and "Transit" is no place to look up', () => {
    for (const goal of ['Which shipments are still in transit?', 'Show the shipments with status IN_TRANSIT']) {
      expect(stepsOf(rankingPlan(goal))).toEqual([
        { tool: 'shipments', params: { status: 'in_transit' }, depends_on: [] },
      ]);
    }
  });
});

describe('a tool joins a plan only on a strong match, not on one shared word', () => {
  test('"Move the budget review meeting to Friday" shares only its verb with move_file: IMPOSSIBLE, move_file neither planned nor named', () => {
    const plan = planOver('Move the budget review meeting to Friday', FILES, 'files');
    expect(plan.status).toBe('IMPOSSIBLE');
    expect(plan.missing_capabilities.join(' ')).not.toContain('move_file');
  });

  test('"file", a word of many tools\' names, brings none of them in: the question is answered by a search and a read', () => {
    const plan = planOver('What files are in the meetings folder?', FILES, 'files');
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['search_files', 'read_multiple_files']);
    expect(plan.status).toBe('FEASIBLE');
  });

  test('a word of one tool\'s name that is not only the opening verb is a strong match ("the directory tree" → directory_tree)', () => {
    const plan = planOver('Show me the directory tree of my notes', FILES, 'files');
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['directory_tree']);
  });

  test('a goal whose verb only weakly names a reading tool ("Read my todo list") is answered by a search and a read', () => {
    const plan = planOver('Read my todo list', FILES, 'files');
    expect(stepsOf(plan).map((s) => [s.tool, s.params.pattern])).toEqual([
      ['search_files', '**/*todo*{,/**}'],
      ['read_multiple_files', undefined],
    ]);
  });

  test('a slow tool that shares one word with the goal ("search") does not run unasked', () => {
    const plan = planOver('Search for available hotels in Lyon', TRAVEL, 'travel');
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['hotels']);
    expect(plan.status).toBe('FEASIBLE');
  });

  test('a tool named by one word of its own is still chosen ("shipments")', () => {
    expect(stepsOf(rankingPlan('Show the shipments of yesterday')).map((s) => s.tool)).toEqual(['shipments']);
  });
});

describe('every date phrase of a goal is applied to the step it qualifies', () => {
  test('"shipments from last week with inspections from this week": each step its own period', () => {
    expect(stepsOf(rankingPlan('Shipments from last week with inspections from this week'))).toEqual([
      { tool: 'shipments', params: { date_from: '2026-11-16', date_to: '2026-11-22' }, depends_on: [] },
      {
        tool: 'inspections',
        params: { date_from: '2026-11-23', date_to: '2026-11-23', shipment_ids: '${step[0].data.*.id}' },
        depends_on: [0],
      },
    ]);
  });

  test('two periods of one tool ("last week … this week") make two steps of it, none dropped', () => {
    const plan = rankingPlan('Show the rejected inspections of last week and of this week');
    expect(stepsOf(plan)).toEqual([
      {
        tool: 'inspections',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', status: 'rejected' },
        depends_on: [],
      },
      {
        tool: 'inspections',
        params: { date_from: '2026-11-23', date_to: '2026-11-23', status: 'rejected' },
        depends_on: [],
      },
    ]);
    expect(plan.assumptions.join(' ')).not.toMatch(/could not apply/);
    expect(validatePlan(plan, { catalog: WASTE_CATALOG })).toEqual([]);
  });
});

describe('places, names and ids reach the params that take them', () => {
  test('"Rhein Cargo GmbH brought to Bremen": the whole name is the carrier (a tool\'s word inside a name is part of it), Bremen a place looked up', () => {
    expect(stepsOf(rankingPlan('List the shipments Rhein Cargo GmbH brought to Bremen this month'))).toEqual([
      { tool: 'facilities', params: { location: 'Bremen' }, depends_on: [] },
      {
        tool: 'shipments',
        params: {
          carrier: 'Rhein Cargo GmbH',
          date_from: '2026-11-01',
          date_to: '2026-11-23',
          facility_id: '${step[0].data.*.id}',
        },
        depends_on: [0],
      },
    ]);
  });

  test('"at the Hamburg incineration plant" is a place; a name goes to no param that lists other values as its examples', () => {
    const plan = rankingPlan('Show critical-risk contaminant detections at the Hamburg incineration plant this month');
    expect(stepsOf(plan)).toEqual([
      { tool: 'facilities', params: { location: 'Hamburg', type: 'incineration' }, depends_on: [] },
      {
        tool: 'contaminants-detected',
        params: {
          date_from: '2026-11-01',
          date_to: '2026-11-23',
          facility_id: '${step[0].data.*.id}',
          risk_level: 'critical',
        },
        depends_on: [0],
      },
    ]);
    const names = goalConstraints('Which shipments did Nordlogistik GmbH carry?', NOW, WASTE_CATALOG).filter(
      (k) => k.kind === 'name',
    );
    expect(names.map((k) => [k.words, k.params])).toEqual([['Nordlogistik GmbH', ['shipments.carrier']]]);
  });

  test('an id the user wrote goes into the id param its pattern fits, and "facility" asks for no lookup', () => {
    expect(stepsOf(rankingPlan('List the accepted inspections at facility FAC-04 from last week'))).toEqual([
      {
        tool: 'inspections',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', facility_id: 'FAC-04', status: 'accepted' },
        depends_on: [],
      },
    ]);
    expect(stepsOf(rankingPlan('Contaminants found in shipment SHP-0042'))).toEqual([
      { tool: 'contaminants-detected', params: { shipment_ids: ['SHP-0042'] }, depends_on: [] },
    ]);
  });
});

describe('several values for one filter', () => {
  test('two ids for a list param go into one list', () => {
    expect(stepsOf(rankingPlan('Get inspections for shipments SHP-0251 and SHP-0252'))).toEqual([
      { tool: 'inspections', params: { shipment_ids: ['SHP-0251', 'SHP-0252'] }, depends_on: [] },
    ]);
  });

  test('two places for a param of one value: a lookup per place, each feeding its own step, both with the period', () => {
    expect(stepsOf(rankingPlan('Shipments to Berlin or Leipzig last week'))).toEqual([
      { tool: 'facilities', params: { location: 'Berlin' }, depends_on: [] },
      {
        tool: 'shipments',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', facility_id: '${step[0].data.*.id}' },
        depends_on: [0],
      },
      { tool: 'facilities', params: { location: 'Leipzig' }, depends_on: [] },
      {
        tool: 'shipments',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', facility_id: '${step[2].data.*.id}' },
        depends_on: [2],
      },
    ]);
  });

  test('two values of a lower-case enum on the travel catalog: a step per city, and the clause that restates them asks for nothing more', () => {
    const plan = planOver('Which hotels in Paris and Lyon are available?', TRAVEL, 'travel');
    expect(stepsOf(plan)).toEqual([
      { tool: 'hotels', params: { availability: 'available', city: 'paris' }, depends_on: [] },
      { tool: 'hotels', params: { availability: 'available', city: 'lyon' }, depends_on: [] },
    ]);
    expect(plan.status).toBe('FEASIBLE');
  });

  test('a goal that asks for data by a filter\'s value alone ("List landfills …") brings in the tool that filters on it', () => {
    expect(stepsOf(rankingPlan('List landfills with a capacity of more than 1000 tons'))).toEqual([
      { tool: 'facilities', params: { min_capacity_tons: 1000, type: 'landfill' }, depends_on: [] },
    ]);
    expect(rankingPlan('Order 50 new recycling bins').status).toBe('IMPOSSIBLE');
  });
});

describe('amounts on the workspace catalog', () => {
  test('"no more than 800 tokens" is an upper bound: max_context_tokens takes it', () => {
    const plan = planOver(
      'Collect the code that parses due dates in the tasks CLI, no more than 800 tokens',
      WORKSPACE_CATALOG,
      'workspace',
    );
    expect(stepsOf(plan).map((s) => [s.tool, s.params.max_context_tokens])).toEqual([['workspace-context', 800]]);
  });

  test('an amount inside an action no tool does stays with the tool the action names by its tag ("the code")', () => {
    const plan = planOver(
      'Gather the code of the add command within 1000 tokens and post it on Slack',
      WORKSPACE_CATALOG,
      'workspace',
    );
    expect(plan.status).toBe('PARTIAL');
    expect(stepsOf(plan).map((s) => [s.tool, s.params.max_context_tokens])).toEqual([['workspace-context', 1000]]);
    expect(plan.missing_capabilities).toEqual(['Post it on Slack']);
  });
});
