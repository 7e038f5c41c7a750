/**
 * Right answers, not only valid plans: every constraint a goal states reaches a param that filters on it (or the plan
 * says why not), an id param never gets a name or a guess, and a lookup feeds every id it finds. Each rule is
 * checked on the waste demo catalog and on a lending library it was not written for.
 */
import type { PlanInput, Step } from '../../../src/domain/plan';
import { parsePlanningRequest } from '../../../src/domain/request';
import type { ToolSpec } from '../../../src/domain/tool-spec';
import { unsaidLiterals } from '../../../src/domain/grounding';
import { validatePlan } from '../../../src/domain/validation';
import { analyzeGoalByRules } from '../../../src/planners/analyze/rules-analyzer';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { goalConstraints, groundingOf } from '../../../src/planners/goal-constraints';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { WORKSPACE_CATALOG } from '../../../src/tools/workspace';
import { LIBRARY_CATALOG } from '../../support/library-catalog';
import { NOW, STAMP, planOfSteps, stepsOf } from '../../support/planning';

function requestOn(goal: string, catalog: string) {
  return parsePlanningRequest({
    goal,
    trace_id: 't',
    tool_catalog: catalog,
    budget: { cost_usd: 1, tokens: 100_000, calls: 50 },
    now: NOW,
  });
}

function planOn(goal: string, catalog: readonly ToolSpec[], name: string) {
  const request = requestOn(goal, name);
  const requirements = analyzeGoalByRules({ request, catalog: [...catalog] });
  return new RankingPlanner().plan({ request, requirements, catalog: [...catalog], stamp: STAMP });
}

/** The issues of a one-task plan of `steps` for `goal`, grounded on the goal. */
function issuesOf(goal: string, catalog: readonly ToolSpec[], steps: Partial<Step>[], extra: Partial<PlanInput> = {}) {
  return validatePlan(planOfSteps(goal, steps, extra), {
    catalog,
    grounding: groundingOf(requestOn(goal, 'any'), catalog),
  });
}

describe('the constraints of a goal', () => {
  test.each([
    [
      'Which facilities in Hannover received rejected shipments last week?',
      WASTE_CATALOG,
      [
        ['place', 'Hannover'],
        ['value', 'rejected'],
        ['period', '2026-11-16/2026-11-22'],
      ],
    ],
    [
      'Show me all medium-risk contaminant detections from the last 7 days',
      WASTE_CATALOG,
      [
        ['value', 'medium'],
        ['period', '2026-11-17/2026-11-23'],
      ],
    ],
    [
      'List shipments carried by EcoTrans AG this week',
      WASTE_CATALOG,
      [
        ['name', 'EcoTrans AG'],
        ['period', '2026-11-23'],
      ],
    ],
    ['Which facilities have a capacity of at least 100 tons?', WASTE_CATALOG, [['amount', '100']]],
    [
      'Which loans of students in Leipzig were overdue last month?',
      LIBRARY_CATALOG,
      [
        ['value', 'student'],
        ['place', 'Leipzig'],
        ['value', 'overdue'],
        ['period', '2026-10-01/2026-10-31'],
      ],
    ],
    [
      'List history books by Mary Beard with at least 300 pages',
      LIBRARY_CATALOG,
      [
        ['value', 'history'],
        ['name', 'Mary Beard'],
        ['amount', '300'],
      ],
    ],
  ])('%s', (goal, catalog, expected) => {
    expect(goalConstraints(goal, NOW, catalog).map((c) => [c.kind, c.values.join('/')])).toEqual(expected);
  });

  test('a lower-case word a free-text param gives as an example ("e.g. lead, asbestos") is a value of that param', () => {
    expect(
      goalConstraints('Find lead detections with critical risk from last month', NOW, WASTE_CATALOG).map((c) => [
        c.kind,
        c.values.join('/'),
        c.params.join(','),
      ]),
    ).toEqual([
      ['value', 'lead', 'contaminants-detected.contaminant'],
      ['value', 'critical', 'contaminants-detected.risk_level'],
      ['period', '2026-10-01/2026-10-31', expect.stringContaining('contaminants-detected.date_from')],
    ]);
  });

  test('"within" or "at most" an amount fills a maximum, "at least" a minimum, whatever the catalog', () => {
    expect(
      goalConstraints('Collect the relevant code, at most 1500 tokens', NOW, WORKSPACE_CATALOG).map((c) => [
        c.kind,
        c.values[0],
        c.params,
      ]),
    ).toEqual([['amount', '1500', ['workspace-context.max_context_tokens']]]);
    expect(
      goalConstraints('Context for the list command within 2000 tokens', NOW, WORKSPACE_CATALOG).map(
        (c) => c.values[0],
      ),
    ).toEqual(['2000']);
    expect(
      goalConstraints('History books with at most 300 pages', NOW, LIBRARY_CATALOG).filter((c) => c.kind === 'amount'),
    ).toEqual([]);
  });

  test('are only those a param of the catalog can take: no date param, no period', () => {
    const members = LIBRARY_CATALOG.filter((t) => t.name === 'members');
    expect(goalConstraints('Members in Leipzig who joined last week', NOW, members).map((c) => c.kind)).toEqual([
      'place',
    ]);
  });
});

describe('validation grounds a plan on its goal', () => {
  const goal = 'Which facilities in Hannover received rejected shipments last week?';

  test('a dropped period or place is an UNBOUND_CONSTRAINT issue quoting the goal, with the params that take it', () => {
    const issues = issuesOf(goal, WASTE_CATALOG, [{ tool: 'shipments', params: { status: 'rejected' } }]);
    expect(issues.map((i) => [i.code, i.message])).toEqual([
      ['UNBOUND_CONSTRAINT', 'the goal says "Hannover", but no step passes "Hannover"'],
      ['UNBOUND_CONSTRAINT', 'the goal says "last week", but no step passes "2026-11-16" and "2026-11-22"'],
    ]);
    expect(issues[0]!.hint).toContain('facilities.location');
  });

  test('a constraint the plan explains in its assumptions is no issue', () => {
    const issues = issuesOf(
      'Rejected shipments last week',
      WASTE_CATALOG,
      [{ tool: 'shipments', params: { status: 'rejected' } }],
      {
        assumptions: ['"last week" is left out: the user wants every rejected shipment on record'],
      },
    );
    expect(issues).toEqual([]);
  });

  test('a city passed as an id is UNVERIFIED_ID, and the hint names the tool to look the id up with', () => {
    const issues = issuesOf(goal, WASTE_CATALOG, [
      {
        tool: 'shipments',
        params: { facility_id: 'Hannover', status: 'rejected', date_from: '2026-11-16', date_to: '2026-11-22' },
      },
    ]);
    expect(issues.map((i) => i.code)).toEqual(['UNVERIFIED_ID', 'UNBOUND_CONSTRAINT']);
    expect(issues[0]!.message).toBe(
      'step 0 ("1.1"): param facility_id is "Hannover", an id the goal does not give and no step returned (ids of facility_id look like "FAC-01")',
    );
    expect(issues[0]!.hint).toContain('call "facilities"');
  });

  test('a guessed id that looks right is still a guess; an id the user wrote and an id from a lookup are not', () => {
    const guessed = issuesOf('Shipments to FAC-02 last week', WASTE_CATALOG, [
      { tool: 'shipments', params: { facility_id: 'FAC-01', date_from: '2026-11-16', date_to: '2026-11-22' } },
    ]);
    // …and the id the user wrote reaches no step.
    expect(guessed.map((i) => [i.code, i.message.includes('FAC-02')])).toEqual([
      ['UNVERIFIED_ID', false],
      ['UNBOUND_CONSTRAINT', true],
    ]);
    expect(
      issuesOf('Shipments to FAC-02 last week', WASTE_CATALOG, [
        { tool: 'shipments', params: { facility_id: 'FAC-02', date_from: '2026-11-16', date_to: '2026-11-22' } },
      ]),
    ).toEqual([]);
    const lookedUp = issuesOf(goal, WASTE_CATALOG, [
      { tool: 'facilities', params: { location: 'Hannover' } },
      {
        tool: 'shipments',
        params: {
          facility_id: '${step[0].data.*.id}',
          status: 'rejected',
          date_from: '2026-11-16',
          date_to: '2026-11-22',
        },
        depends_on: [0],
      },
    ]);
    expect(lookedUp).toEqual([]);
  });

  test('on the library: a city as a member id, and a dropped status', () => {
    const issues = issuesOf('Which loans of members in Leipzig were overdue last month?', LIBRARY_CATALOG, [
      { tool: 'loans', params: { member_id: 'Leipzig', since: '2026-10-01', until: '2026-10-31' } },
    ]);
    expect(issues.map((i) => i.code)).toEqual(['UNVERIFIED_ID', 'UNBOUND_CONSTRAINT', 'UNBOUND_CONSTRAINT']);
    expect(issues[0]!.hint).toContain('call "members"');
    expect(issues.slice(1).map((i) => i.message)).toEqual([
      'the goal says "Leipzig", but no step passes "Leipzig"',
      'the goal says "overdue", but no step passes "overdue"',
    ]);
  });
});

describe('the values a plan chose, not the goal', () => {
  const unsaidOn = (goal: string, catalog: readonly ToolSpec[], tool: string, params: Record<string, unknown>) =>
    unsaidLiterals(
      { params },
      catalog.find((t) => t.name === tool)!,
      groundingOf(requestOn(goal, 'any'), catalog),
    );

  test("a constraint's value, the user's words and templates are said; a status or a number the goal never gives is not", () => {
    expect(
      unsaidOn('Show rejected shipments from last week', WASTE_CATALOG, 'shipments', {
        status: 'rejected',
        date_from: '2026-11-16',
        date_to: '2026-11-22',
        facility_id: '${step[0].data.*.id}',
      }),
    ).toEqual([]);
    expect(
      unsaidOn('Show shipments from last week', WASTE_CATALOG, 'shipments', {
        status: 'delivered',
        limit: 7,
        date_from: '2026-11-16',
        date_to: '2026-11-22',
      }),
    ).toEqual([
      { param: 'status', value: 'delivered' },
      { param: 'limit', value: '7' },
    ]);
  });

  test("on the library: a number is said only as a whole word; an example the tool gives is not the plan's choice", () => {
    expect(
      unsaidOn('List history books by Mary Beard with at least 300 pages', LIBRARY_CATALOG, 'books', {
        genre: 'history',
        author: 'Mary Beard',
        min_pages: 300,
      }),
    ).toEqual([]);
    expect(unsaidOn('List books published in 2030', LIBRARY_CATALOG, 'books', { min_pages: 30 })).toEqual([
      { param: 'min_pages', value: '30' },
    ]);
    expect(
      unsaidOn('List the books', WASTE_CATALOG.concat(LIBRARY_CATALOG), 'shipments', { facility_id: 'FAC-01' }),
    ).toEqual([]); // the schema's example id
  });
});

describe('the ranking planner binds every constraint it can, and says which it cannot', () => {
  test.each([
    [
      'Which facilities in Hannover received rejected shipments last week?',
      [
        { tool: 'facilities', params: { location: 'Hannover' }, depends_on: [] },
        {
          tool: 'shipments',
          params: {
            date_from: '2026-11-16',
            date_to: '2026-11-22',
            facility_id: '${step[0].data.*.id}',
            status: 'rejected',
          },
          depends_on: [0],
        },
      ],
    ],
    [
      'Which carriers delivered shipments to the landfill in München last month?',
      [
        { tool: 'facilities', params: { location: 'München', type: 'landfill' }, depends_on: [] },
        {
          tool: 'shipments',
          params: {
            date_from: '2026-10-01',
            date_to: '2026-10-31',
            facility_id: '${step[0].data.*.id}',
            status: 'delivered',
          },
          depends_on: [0],
        },
      ],
    ],
    [
      'Show me all medium-risk contaminant detections from the last 7 days',
      [
        {
          tool: 'contaminants-detected',
          params: { date_from: '2026-11-17', date_to: '2026-11-23', risk_level: 'medium' },
          depends_on: [],
        },
      ],
    ],
    [
      'Summarize which contaminants were found at each landfill last week',
      [
        { tool: 'facilities', params: { type: 'landfill' }, depends_on: [] },
        {
          tool: 'contaminants-detected',
          params: { date_from: '2026-11-16', date_to: '2026-11-22', facility_id: '${step[0].data.*.id}' },
          depends_on: [0],
        },
      ],
    ],
    [
      'List shipments carried by EcoTrans AG this week',
      [
        {
          tool: 'shipments',
          params: { carrier: 'EcoTrans AG', date_from: '2026-11-23', date_to: '2026-11-23' },
          depends_on: [],
        },
      ],
    ],
    [
      'Which facilities have a capacity of at least 100 tons?',
      [{ tool: 'facilities', params: { min_capacity_tons: 100 }, depends_on: [] }],
    ],
    [
      'Shipments from last week with inspections from this week',
      [
        { tool: 'shipments', params: { date_from: '2026-11-16', date_to: '2026-11-22' }, depends_on: [] },
        {
          tool: 'inspections',
          params: { date_from: '2026-11-23', date_to: '2026-11-23', shipment_ids: '${step[0].data.*.id}' },
          depends_on: [0],
        },
      ],
    ],
  ])('%s', (goal, steps) => {
    const plan = planOn(goal, WASTE_CATALOG, 'waste');
    expect(plan.status).toBe('FEASIBLE');
    expect(stepsOf(plan)).toEqual(steps);
    expect(
      validatePlan(plan, { catalog: WASTE_CATALOG, grounding: groundingOf(requestOn(goal, 'waste'), WASTE_CATALOG) }),
    ).toEqual([]);
  });

  test('on the library: the members of a city feed the loans, once per member, with the status and the period', () => {
    const plan = planOn('Which loans of students in Leipzig were overdue last month?', LIBRARY_CATALOG, 'library');
    expect(stepsOf(plan)).toEqual([
      { tool: 'members', params: { city: 'Leipzig', membership: 'student' }, depends_on: [] },
      {
        tool: 'loans',
        params: { member_id: '${step[0].data.*.id}', since: '2026-10-01', status: 'overdue', until: '2026-10-31' },
        depends_on: [0],
      },
    ]);
    expect(
      stepsOf(planOn('List history books by Mary Beard with at least 300 pages', LIBRARY_CATALOG, 'library')),
    ).toEqual([{ tool: 'books', params: { author: 'Mary Beard', genre: 'history', min_pages: 300 }, depends_on: [] }]);
  });

  test('a clear goal with an action no tool does is planned, not asked: the data part runs, the action is named missing', () => {
    const goal = 'List the composting sites and phone each site manager to confirm their capacity';
    expect(analyzeGoalByRules({ request: requestOn(goal, 'waste'), catalog: WASTE_CATALOG }).is_clear).toBe(true);
    const plan = planOn(goal, WASTE_CATALOG, 'waste');
    expect(plan).toMatchObject({
      status: 'PARTIAL',
      missing_capabilities: ['Phone each site manager to confirm their capacity'],
    });
    expect(stepsOf(plan)).toEqual([{ tool: 'facilities', params: { type: 'composting' }, depends_on: [] }]);
  });

  test('"shipments with contaminants" is the flag, as "contaminated shipments" is; a name inside an action no tool does is left to that action', () => {
    expect(stepsOf(planOn('Shipments with contaminants last week', WASTE_CATALOG, 'waste'))).toEqual([
      {
        tool: 'shipments',
        params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true },
        depends_on: [],
      },
    ]);
    const plan = planOn(
      "List this week's rejected inspections and open a Jira ticket for each of them",
      WASTE_CATALOG,
      'waste',
    );
    expect(plan).toMatchObject({ status: 'PARTIAL', missing_capabilities: ['Open a Jira ticket for each of them'] });
    expect(stepsOf(plan)).toEqual([
      {
        tool: 'inspections',
        params: { date_from: '2026-11-23', date_to: '2026-11-23', status: 'rejected' },
        depends_on: [],
      },
    ]);
  });

  test('a required param that takes the request in words gets the goal; a clause that only states a limit is no missing action', () => {
    const plan = planOn(
      'Gather the relevant code for a --json flag, at most 1500 tokens',
      WORKSPACE_CATALOG,
      'workspace',
    );
    expect(plan).toMatchObject({ status: 'FEASIBLE', missing_capabilities: [] });
    expect(stepsOf(plan)).toEqual([
      {
        tool: 'workspace-context',
        params: { goal: 'Gather the relevant code for a --json flag, at most 1500 tokens', max_context_tokens: 1500 },
        depends_on: [],
      },
    ]);
  });

  test("a goal that asks for no data gets no lookup for a value it happens to name; its missing action keeps the user's words", () => {
    const plan = planOn('Order 50 new recycling bins from our supplier', WASTE_CATALOG, 'waste');
    expect(plan).toMatchObject({
      status: 'IMPOSSIBLE',
      missing_capabilities: ['Order 50 new recycling bins from our supplier'],
    });
  });
});
