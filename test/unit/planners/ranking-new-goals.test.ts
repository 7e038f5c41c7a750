/**
 * The ranking planner on goals written as a new user writes them, over the waste catalog and two others (a
 * filesystem server's tools, a travel catalog written for these tests): rules from the tools' schemas, never from
 * one catalog's words.
 */
import { validatePlan } from '../../../src/domain/validation';
import { toolSpecFromJsonSchema, type ToolSpec } from '../../../src/domain/tool-spec';
import { analyzeGoalByRules, asksForData } from '../../../src/planners/analyze/rules-analyzer';
import { coverageCritic } from '../../../src/planners/critique/rule-critics';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { goalConstraints } from '../../../src/planners/goal-constraints';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { WORKSPACE_CATALOG } from '../../../src/tools/workspace';
import { FILES_CATALOG as FILES } from '../../support/files-catalog';
import { LIBRARY_CATALOG } from '../../support/library-catalog';
import { analyze, NOW, rankingPlan, request, STAMP, stepsOf } from '../../support/planning';

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

  test('"file", a word of many tools\' names, brings none of them in: the folder\'s listing answers "what files are in it"', () => {
    const plan = planOver('What files are in the meetings folder?', FILES, 'files');
    expect(stepsOf(plan)).toEqual([
      { tool: 'list_directory', params: { path: '/srv/notes/meetings' }, depends_on: [] },
    ]);
    expect(plan.status).toBe('FEASIBLE');
  });

  test('a word of one tool\'s name that is not only the opening verb is a strong match ("the directory tree" → directory_tree)', () => {
    const plan = planOver('Show me the directory tree of my notes', FILES, 'files');
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['directory_tree']);
  });

  test('a goal whose verb only weakly names a reading tool ("Read my todo list") is answered by a search and a read', () => {
    const plan = planOver('Read my todo list', FILES, 'files');
    expect(stepsOf(plan).map((s) => [s.tool, s.params.pattern])).toEqual([
      ['search_files', '**/*.*'],
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

/** A shop's orders: a flag, an enum of states and dates by other names than the waste catalog's. */
const ORDERS: ToolSpec[] = [
  toolSpecFromJsonSchema({
    name: 'orders',
    description: 'List customer orders by state, payment, parcel carrier and date.',
    task_queue: 'shop',
    tags: ['sale'],
    idempotent: true,
    parameters: {
      type: 'object',
      properties: {
        is_paid: { type: 'boolean', description: 'Only orders that are paid (or, false, unpaid)' },
        state: { type: 'string', enum: ['pending', 'shipped', 'cancelled'], description: 'Order state' },
        since: { type: 'string', format: 'date', description: 'Orders placed on or after this day' },
        until: { type: 'string', format: 'date', description: 'Orders placed on or before this day' },
        max_results: { type: 'integer', description: 'Maximum number of orders to return, newest first' },
        carrier: { type: 'string', description: 'Parcel carrier, e.g. DHL, UPS, FedEx' },
      },
    },
    result: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
  }),
];

describe('calendar dates: a day, a month, "since" and "between" (now = Monday 2026-11-23)', () => {
  test('"since 1 June" runs to today; "between June 3 and June 5" is one range; "from May" the month', () => {
    expect(stepsOf(rankingPlan('List the critical-risk detections since 1 June'))).toEqual([
      {
        tool: 'contaminants-detected',
        params: { date_from: '2026-06-01', date_to: '2026-11-23', risk_level: 'critical' },
        depends_on: [],
      },
    ]);
    expect(stepsOf(rankingPlan('Get the contaminated shipments between June 3 and June 5'))).toEqual([
      {
        tool: 'shipments',
        params: { date_from: '2026-06-03', date_to: '2026-06-05', has_contaminants: true },
        depends_on: [],
      },
    ]);
    const partial = rankingPlan('Pull the rejected inspections from May and file a complaint with each carrier');
    expect(partial.status).toBe('PARTIAL');
    expect(stepsOf(partial)).toEqual([
      {
        tool: 'inspections',
        params: { date_from: '2026-05-01', date_to: '2026-05-31', status: 'rejected' },
        depends_on: [],
      },
    ]);
  });

  test('on another catalog the range reaches its own date params ("since", "until"), and "May" is no place', () => {
    expect(stepsOf(planOver('Which orders were placed between June 3 and June 5?', ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { since: '2026-06-03', until: '2026-06-05' }, depends_on: [] },
    ]);
    const plan = planOver('Loans of members in Leipzig since May', LIBRARY_CATALOG, 'library');
    expect(stepsOf(plan)).toEqual([
      { tool: 'members', params: { city: 'Leipzig' }, depends_on: [] },
      {
        tool: 'loans',
        params: { member_id: '${step[0].data.*.id}', since: '2026-05-01', until: '2026-11-23' },
        depends_on: [0],
      },
    ]);
  });
});

describe('amounts in words, with separators, signs and abbreviated units', () => {
  test('"over two hundred tons" and "≥ 500 t" fill the minimum capacity', () => {
    expect(stepsOf(rankingPlan('Which sites can process over two hundred tons per day?'))).toEqual([
      { tool: 'facilities', params: { min_capacity_tons: 200 }, depends_on: [] },
    ]);
    expect(stepsOf(rankingPlan('Facilities with a capacity of ≥ 500 t'))).toEqual([
      { tool: 'facilities', params: { min_capacity_tons: 500 }, depends_on: [] },
    ]);
  });

  test('"at least three hundred pages" on the library; "max 2,500 tokens" and "about 1k tokens" on the workspace', () => {
    expect(stepsOf(planOver('Science books of at least three hundred pages', LIBRARY_CATALOG, 'library'))).toEqual([
      { tool: 'books', params: { genre: 'science', min_pages: 300 }, depends_on: [] },
    ]);
    for (const [goal, tokens] of [
      ['I want tasks to have a priority. Pull together the relevant code, max 2,500 tokens', 2500],
      ['Collect about 1k tokens of context for fixing how weekday names are parsed in due dates', 1000],
    ] as const) {
      const plan = planOver(goal, WORKSPACE_CATALOG, 'workspace');
      expect(stepsOf(plan).map((s) => [s.tool, s.params.max_context_tokens])).toEqual([['workspace-context', tokens]]);
    }
  });
});

describe('a flag named after its noun or negated', () => {
  test('"not contaminated", "without contaminants" and "non-contaminated" are has_contaminants false; "that were contaminated" true', () => {
    for (const goal of [
      "Show last week's shipments that were not contaminated",
      'Show the shipments without contaminants from last week',
      'Show the non-contaminated shipments of last week',
    ]) {
      expect(stepsOf(rankingPlan(goal))).toEqual([
        {
          tool: 'shipments',
          params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: false },
          depends_on: [],
        },
      ]);
    }
    expect(stepsOf(rankingPlan('Shipments of last week that were contaminated'))).toEqual([
      {
        tool: 'shipments',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true },
        depends_on: [],
      },
    ]);
  });

  test('on the shop\'s orders: "orders that weren\'t paid" is is_paid false', () => {
    expect(stepsOf(planOver("Which orders weren't paid?", ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { is_paid: false }, depends_on: [] },
    ]);
    expect(stepsOf(planOver("List the orders that weren't paid", ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { is_paid: false }, depends_on: [] },
    ]);
    expect(stepsOf(planOver('List the paid orders', ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { is_paid: true }, depends_on: [] },
    ]);
  });
});

describe('a word for the same state names an enum value', () => {
  test('"failed" is rejected, "arrived" delivered, "approved" accepted on the waste catalog', () => {
    expect(stepsOf(rankingPlan('Which inspections failed this week?'))).toEqual([
      {
        tool: 'inspections',
        params: { date_from: '2026-11-23', date_to: '2026-11-23', status: 'rejected' },
        depends_on: [],
      },
    ]);
    expect(stepsOf(rankingPlan('Show me the shipments that arrived yesterday'))).toEqual([
      {
        tool: 'shipments',
        params: { date_from: '2026-11-22', date_to: '2026-11-22', status: 'delivered' },
        depends_on: [],
      },
    ]);
    expect(stepsOf(rankingPlan('List the approved inspections'))).toEqual([
      { tool: 'inspections', params: { status: 'accepted' }, depends_on: [] },
    ]);
  });

  test('"awaiting" is pending and "aborted" cancelled on the shop; a catalog without such a value takes none', () => {
    expect(stepsOf(planOver('List the orders still awaiting shipment', ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { state: 'pending' }, depends_on: [] },
    ]);
    expect(stepsOf(planOver('List the aborted orders', ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { state: 'cancelled' }, depends_on: [] },
    ]);
    expect(stepsOf(planOver('Which loans failed?', LIBRARY_CATALOG, 'library'))).toEqual([
      { tool: 'loans', params: {}, depends_on: [] },
    ]);
  });
});

describe('clauses', () => {
  test('a clause of nothing but the goal\'s constraints ("… Hamburg and Bremen last week") asks for no action', () => {
    const plan = rankingPlan('Which shipments went to Hamburg and Bremen last week?');
    expect(plan.status).toBe('FEASIBLE');
    expect(stepsOf(plan).map((s) => [s.tool, s.params.location ?? s.params.facility_id])).toEqual([
      ['facilities', 'Bremen'],
      ['facilities', 'Hamburg'],
      ['shipments', '${step[1].data.*.id}'],
      ['shipments', '${step[0].data.*.id}'],
    ]);
    const library = analyzeGoalByRules({
      request: request('List the members in Hamburg and Bremen', { tool_catalog: 'library' }),
      catalog: LIBRARY_CATALOG,
    });
    expect(library.required_capabilities).toEqual(['members']);
  });

  test('two words of a tool\'s name in two clauses do not name it: "Read the notes and text them to Dana" is read, and the text is missing', () => {
    const plan = planOver('Read the ops sync notes and text the action items to Dana', FILES, 'files');
    expect(plan.status).toBe('PARTIAL');
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['search_files', 'read_multiple_files']);
    expect(plan.missing_capabilities).toEqual(['Text the action items to Dana']);
    const travel = planOver('Search for available hotels in Lyon and index them by rating', TRAVEL, 'travel');
    expect(stepsOf(travel).map((s) => s.tool)).toEqual(['hotels']);
    // A clause opening with the noun of a tool the goal names is that tool's work, no action of its own.
    expect(analyze('Shipments of last week and contaminants found in them').required_capabilities).toEqual([
      'shipments',
      'contaminants-detected',
    ]);
  });

  test('a glob search for what files say lists every file, the key words noted with "to-dos" as one word', () => {
    const plan = planOver('Which of my to-dos are already done?', FILES, 'files');
    expect(stepsOf(plan).map((s) => s.params.pattern)).toEqual(['**/*.*', undefined]);
    expect(plan.assumptions.join('\n')).toContain('"todos already done"');
  });
});

describe('a negated enum value asks for the others', () => {
  test('"not accepted" inspections are the rejected and the pending ones, each a step with the period', () => {
    expect(stepsOf(rankingPlan('Which inspections from last week were not accepted?'))).toEqual([
      {
        tool: 'inspections',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', status: 'rejected' },
        depends_on: [],
      },
      {
        tool: 'inspections',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', status: 'pending' },
        depends_on: [],
      },
    ]);
  });

  test('on the travel and shop catalogs: "not fully booked" is available, "orders not yet shipped" pending or cancelled', () => {
    expect(stepsOf(planOver('Which hotels in Lyon are not fully booked?', TRAVEL, 'travel'))).toEqual([
      { tool: 'hotels', params: { availability: 'available', city: 'lyon' }, depends_on: [] },
    ]);
    expect(stepsOf(planOver("List the orders that haven't shipped yet", ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { state: 'pending' }, depends_on: [] },
      { tool: 'orders', params: { state: 'cancelled' }, depends_on: [] },
    ]);
  });
});

describe('a count of records', () => {
  test('"the 5 most recent shipments" and "the top three facilities in Hannover" fill the limit of the tool counted', () => {
    expect(stepsOf(rankingPlan('Show the 5 most recent shipments'))).toEqual([
      { tool: 'shipments', params: { limit: 5 }, depends_on: [] },
    ]);
    expect(stepsOf(rankingPlan('List the top three facilities in Hannover'))).toEqual([
      { tool: 'facilities', params: { limit: 3, location: 'Hannover' }, depends_on: [] },
    ]);
    expect(stepsOf(rankingPlan('Shipments of the last 3 days'))).toEqual([
      { tool: 'shipments', params: { date_from: '2026-11-21', date_to: '2026-11-23' }, depends_on: [] },
    ]);
  });

  test('on the shop, a limit by another name ("max_results", described as a maximum number)', () => {
    expect(stepsOf(planOver('Show the 10 latest orders', ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { max_results: 10 }, depends_on: [] },
    ]);
  });
});

describe('values an example spells, and flags on a tag of the noun', () => {
  test('"PCB" is the contaminant the example spells; "contaminated loads" are shipments with contaminants', () => {
    expect(stepsOf(rankingPlan('PCB detections with high risk from last week'))).toEqual([
      {
        tool: 'contaminants-detected',
        params: { contaminant: 'PCB', date_from: '2026-11-16', date_to: '2026-11-22', risk_level: 'high' },
        depends_on: [],
      },
    ]);
    expect(stepsOf(rankingPlan('How many contaminated loads were there last week?'))).toEqual([
      {
        tool: 'shipments',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true },
        depends_on: [],
      },
    ]);
  });

  test('on the shop: "orders sent with UPS", and "paid sales" (a tag of orders)', () => {
    expect(stepsOf(planOver('List the orders sent with UPS', ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { carrier: 'UPS' }, depends_on: [] },
    ]);
    expect(stepsOf(planOver('Show the paid sales of last week', ORDERS, 'shop'))).toEqual([
      { tool: 'orders', params: { is_paid: true, since: '2026-11-16', until: '2026-11-22' }, depends_on: [] },
    ]);
  });
});

describe('verbs of gathering ("collect", "pull together", "compile") ask for data, as "get" does', () => {
  test('"Collect the code that parses due dates" is what workspace-context does: FEASIBLE, nothing missing', () => {
    const plan = planOver(
      'Collect the code that parses due dates in the tasks CLI, no more than 800 tokens',
      WORKSPACE_CATALOG,
      'workspace',
    );
    expect(plan.status).toBe('FEASIBLE');
    expect(stepsOf(plan).map((s) => [s.tool, s.params.max_context_tokens])).toEqual([['workspace-context', 800]]);
  });

  test('over the library, "Compile the overdue loans and pin them on the notice board" misses the pinning only', () => {
    const plan = planOver('Compile the overdue loans and pin them on the notice board', LIBRARY_CATALOG, 'library');
    expect(plan.status).toBe('PARTIAL');
    expect(plan.missing_capabilities).toEqual(['Pin them on the notice board']);
    expect(stepsOf(plan)).toEqual([{ tool: 'loans', params: { status: 'overdue' }, depends_on: [] }]);
  });

  test('a clause that only holds a constraint on what was asked ("keep it under 1200 tokens") asks for no action', () => {
    const plan = planOver(
      'We need an overdue filter on the list command. Gather whatever code is relevant, keep it under 1200 tokens',
      WORKSPACE_CATALOG,
      'workspace',
    );
    expect(plan.status).toBe('FEASIBLE');
    expect(stepsOf(plan).map((s) => [s.tool, s.params.max_context_tokens])).toEqual([['workspace-context', 1200]]);
    const books = planOver('Show the science books, keep it above 300 pages', LIBRARY_CATALOG, 'library');
    expect(books.status).toBe('FEASIBLE');
    expect(stepsOf(books)).toEqual([{ tool: 'books', params: { genre: 'science', min_pages: 300 }, depends_on: [] }]);
  });
});

describe('what the user says they want', () => {
  test('beside a step given the goal in words, "I\'d like the done command to take several ids" is no action left undone', async () => {
    const goal =
      "I'd like the done command to take several task ids at once; collect the relevant code, at most 1500 tokens";
    const plan = planOver(goal, WORKSPACE_CATALOG, 'workspace');
    expect(plan.status).toBe('FEASIBLE');
    expect(stepsOf(plan)[0]!.params.goal).toBe(goal);
    const review = await coverageCritic.review(plan, { request: request(goal), catalog: WORKSPACE_CATALOG });
    expect(review.critiques).toEqual([]);
  });

  test('without such a step, a wish no tool does stays missing ("I want to renew my membership": IMPOSSIBLE)', () => {
    const plan = planOver('I want to renew my membership', LIBRARY_CATALOG, 'library');
    expect(plan.status).toBe('IMPOSSIBLE');
    expect(plan.missing_capabilities).toEqual(['I want to renew my membership']);
    // A wish for something to be bought is no question about data either, though a tool knows "recycling".
    const bins = rankingPlan('We need 50 new recycling bins from our supplier');
    expect(bins.status).toBe('IMPOSSIBLE');
    expect(stepsOf(bins)).toEqual([]);
  });

  test('a wish for a thing asks for data ("I need Priya Raman\'s email address"); a wish for something done does not', () => {
    expect(asksForData("I need Priya Raman's email address")).toBe(true);
    expect(asksForData("We'd like the list of carriers sent to Berlin")).toBe(true);
    expect(asksForData('I want to order 50 new bins')).toBe(false);
    expect(asksForData('I need a new folder for the Q3 invoices')).toBe(false);
    expect(asksForData("I'd like the done command to take several task ids")).toBe(false);
    expect(stepsOf(planOver("I need Priya Raman's email address", FILES, 'files')).map((s) => s.tool)).toEqual([
      'search_files',
      'read_multiple_files',
    ]);
  });
});

describe('a place inside an action no tool does is where that action would happen, not data to fetch', () => {
  test.each([
    ['Book a flight to München for the site visit in July', WASTE_CATALOG, 'waste'],
    ['Order a taxi to Leipzig for the reading club', LIBRARY_CATALOG, 'library'],
  ])('"%s": IMPOSSIBLE, the action named missing, no lookup of the place', (goal, catalog, name) => {
    const plan = planOver(goal, catalog, name);
    expect(plan.status).toBe('IMPOSSIBLE');
    expect(plan.missing_capabilities).toEqual([goal]);
    expect(stepsOf(plan)).toEqual([]);
  });

  test('a place in a question is still what is there ("Who lives in Leipzig?" → members in Leipzig)', () => {
    expect(stepsOf(planOver('Who lives in Leipzig?', LIBRARY_CATALOG, 'library'))).toEqual([
      { tool: 'members', params: { city: 'Leipzig' }, depends_on: [] },
    ]);
    expect(stepsOf(rankingPlan('What is in Hannover?'))).toEqual([
      { tool: 'facilities', params: { location: 'Hannover' }, depends_on: [] },
    ]);
  });
});

describe('an order that names nothing to plan by and no tool does is planned, not asked about', () => {
  test.each([
    ['Make the monthly cleanup smoother for everyone', WASTE_CATALOG, 'waste'],
    ['Water the plants in the reading room', LIBRARY_CATALOG, 'library'],
    ['Reboot the build server', WORKSPACE_CATALOG, 'workspace'],
    ['Print the meeting notes', FILES, 'files'],
  ])('"%s": no question, IMPOSSIBLE with the order named missing', (goal, catalog, name) => {
    const requirements = analyzeGoalByRules({ request: request(goal, { tool_catalog: name }), catalog });
    expect(requirements).toMatchObject({ is_clear: true, clarification: null });
    const plan = planOver(goal, catalog, name);
    expect(plan.status).toBe('IMPOSSIBLE');
    expect(plan.missing_capabilities).toEqual([goal]);
  });
});
