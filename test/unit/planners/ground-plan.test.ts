/**
 * An LLM plan mended to its goal where the mend has one reading: a guessed id becomes a lookup by what the goal
 * says, and a constraint no step applies goes to the first step that takes it. On the waste catalog and on a
 * lending library the rules were not written for.
 */
import { PlanSchema, flattenSteps, type Plan, type Step } from '../../../src/domain/plan';
import { planFromDraft, type PlanDraft } from '../../../src/domain/plan-draft';
import { parsePlanningRequest } from '../../../src/domain/request';
import type { ToolSpec } from '../../../src/domain/tool-spec';
import { planIssues } from '../../../src/domain/validation';
import { groundedPlan } from '../../../src/planners/ground-plan';
import { groundingOf } from '../../../src/planners/goal-constraints';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { LIBRARY_CATALOG } from '../../support/library-catalog';
import { NOW, planOfSteps, STAMP } from '../../support/planning';

function ground(goal: string, catalog: readonly ToolSpec[], steps: Partial<Step>[]) {
  return groundPlan(planOfSteps(goal, steps), catalog);
}

/** A plan of the tasks its steps' labels make, as the LLM planner completes a draft. */
function planOfParts(goal: string, catalog: readonly ToolSpec[], steps: PlanDraft['steps']): Plan {
  const metadata = { planner: 'llm' as const, model: 'm', temperature: 0.1, created_at: NOW };
  const stamp = { id: STAMP.id, version: 1, goal, metadata };
  return PlanSchema.parse(planFromDraft({ status: 'FEASIBLE', missing_capabilities: [], steps }, stamp, catalog));
}

function groundPlan(given: Plan, catalog: readonly ToolSpec[]) {
  const goal = given.goal;
  const grounding = groundingOf(
    parsePlanningRequest({
      goal,
      trace_id: 't',
      tool_catalog: 'c',
      budget: { cost_usd: 1, tokens: 1000, calls: 10 },
      now: NOW,
    }),
    catalog,
  );
  const plan = groundedPlan(given, grounding, catalog);
  return {
    plan,
    steps: flattenSteps(plan).map((s) => ({ id: s.id, tool: s.tool, params: s.params, depends_on: s.depends_on })),
    issues: planIssues(plan, { catalog, grounding }),
  };
}

describe('groundedPlan', () => {
  test("a guessed facility id becomes a facilities lookup by the goal's place and type, read by a .* template; the period goes to the step with dates", () => {
    const { plan, steps, issues } = ground(
      'Which carriers delivered shipments to the landfill in München last month?',
      WASTE_CATALOG,
      [{ tool: 'shipments', params: { facility_id: 'FAC-0001', status: 'delivered' } }],
    );
    expect(steps).toEqual([
      { id: '1.1', tool: 'facilities', params: { type: 'landfill', location: 'München' }, depends_on: [] },
      {
        id: '1.2',
        tool: 'shipments',
        params: {
          facility_id: '${step[0].data.*.id}',
          status: 'delivered',
          date_from: '2026-10-01',
          date_to: '2026-10-31',
        },
        depends_on: [0],
      },
    ]);
    expect(issues).toEqual([]);
    expect(plan.assumptions).toEqual([
      'facility_id of step 1.1 was "FAC-0001", a guess: the ids come from a facilities lookup instead',
      '"last month" applies to step 1.2 (date_from="2026-10-01", date_to="2026-10-31")',
    ]);
  });

  test('templates and dependencies of the steps after a lookup move with them', () => {
    const { steps, issues } = ground(
      'Contaminants found in shipments to facilities in Hannover yesterday',
      WASTE_CATALOG,
      [
        { tool: 'shipments', params: { facility_id: 'Hannover', date_from: '2026-11-22', date_to: '2026-11-22' } },
        { tool: 'contaminants-detected', params: { shipment_ids: '${step[0].data.*.id}' }, depends_on: [0] },
      ],
    );
    expect(steps.map((s) => [s.tool, s.params, s.depends_on])).toEqual([
      ['facilities', { location: 'Hannover' }, []],
      ['shipments', { facility_id: '${step[0].data.*.id}', date_from: '2026-11-22', date_to: '2026-11-22' }, [0]],
      ['contaminants-detected', { shipment_ids: '${step[1].data.*.id}' }, [1]],
    ]);
    expect(issues).toEqual([]);
  });

  test('an id the user wrote stays; with nothing of the goal to look an id up by, the guess is left for validation to send back', () => {
    const given = ground('Shipments to FAC-02 last week', WASTE_CATALOG, [
      { tool: 'shipments', params: { facility_id: 'FAC-02', date_from: '2026-11-16', date_to: '2026-11-22' } },
    ]);
    expect(given.plan.assumptions).toEqual([]);
    const nothing = ground('Shipments to the big facility last week', WASTE_CATALOG, [
      { tool: 'shipments', params: { facility_id: 'FAC-01' } },
    ]);
    expect(nothing.steps.map((s) => s.tool)).toEqual(['shipments']);
    expect(nothing.issues.map((i) => i.code)).toEqual(['UNVERIFIED_ID']);
  });

  test('a filter value the goal never says ("none", a limit of 20) is dropped; the goal\'s own values stay', () => {
    const { plan, steps } = ground(
      'Show me all medium-risk contaminant detections from the last 7 days',
      WASTE_CATALOG,
      [
        {
          tool: 'contaminants-detected',
          params: {
            risk_level: 'medium',
            contaminant: 'none',
            limit: 20,
            date_from: '2026-11-17',
            date_to: '2026-11-23',
          },
        },
      ],
    );
    expect(steps.map((s) => s.params)).toEqual([
      { risk_level: 'medium', date_from: '2026-11-17', date_to: '2026-11-23' },
    ]);
    expect(plan.assumptions).toEqual([
      'contaminant="none" of step 1.1 was dropped: the goal does not ask for it',
      'limit=20 of step 1.1 was dropped: the goal does not ask for it',
    ]);
    expect(
      ground('The 5 latest lead detections', WASTE_CATALOG, [
        { tool: 'contaminants-detected', params: { contaminant: 'lead', limit: 5 } },
      ]).plan.assumptions,
    ).toEqual([]);
  });

  test('an enum value the goal never names is dropped, one it names is kept', () => {
    const { plan, steps } = ground('List all waste facilities in Hannover', WASTE_CATALOG, [
      { tool: 'facilities', params: { location: 'Hannover', type: 'sorting' } },
    ]);
    expect(steps.map((s) => s.params)).toEqual([{ location: 'Hannover' }]);
    expect(plan.assumptions).toEqual(['type="sorting" of step 1.1 was dropped: the goal does not ask for it']);
    expect(
      ground('List the sorting facilities in Hannover', WASTE_CATALOG, [
        { tool: 'facilities', params: { location: 'Hannover', type: 'sorting' } },
      ]).plan.assumptions,
    ).toEqual([]);
  });

  test('on the library: a city given as a member id becomes a members lookup, the status joins the loans step', () => {
    const { steps, issues } = ground('Which loans of members in Leipzig were overdue last month?', LIBRARY_CATALOG, [
      { tool: 'loans', params: { member_id: 'Leipzig', since: '2026-10-01', until: '2026-10-31' } },
    ]);
    expect(steps.map((s) => [s.tool, s.params])).toEqual([
      ['members', { city: 'Leipzig' }],
      ['loans', { member_id: '${step[0].data.*.id}', since: '2026-10-01', until: '2026-10-31', status: 'overdue' }],
    ]);
    expect(issues).toEqual([]);
  });

  test('a plan of two tasks keeps them: a lookup joins the task of the step that reads it, the other task stays as it was', () => {
    const given = planOfParts(
      'Show the rejected inspections of last week and the shipments to the landfill in München last month',
      WASTE_CATALOG,
      [
        {
          title: 'Rejected inspections',
          tool: 'inspections',
          params: { status: 'rejected', date_from: '2026-11-16', date_to: '2026-11-22', limit: 20 },
          depends_on: [],
          task: 'Rejected inspections of last week',
        },
        {
          title: 'Shipments to the landfill',
          tool: 'shipments',
          params: { facility_id: 'FAC-0001' },
          depends_on: [],
          task: 'Shipments to the landfill in München',
        },
      ],
    );
    const { plan, issues } = groundPlan(given, WASTE_CATALOG);
    expect(
      plan.tasks.map((t) => [t.id, t.title, t.depends_on, t.steps.map((s) => [s.id, s.tool, s.depends_on])]),
    ).toEqual([
      ['1', 'Rejected inspections of last week', [], [['1.1', 'inspections', []]]],
      [
        '2',
        'Shipments to the landfill in München',
        [],
        [
          ['2.1', 'facilities', []],
          ['2.2', 'shipments', [1]],
        ],
      ],
    ]);
    expect(plan.tasks[1]!.steps[1]!.params).toEqual({
      facility_id: '${step[1].data.*.id}',
      date_from: '2026-10-01',
      date_to: '2026-10-31',
    });
    expect(plan.assumptions).toEqual([
      'facility_id of step 2.1 was "FAC-0001", a guess: the ids come from a facilities lookup instead',
      'limit=20 of step 1.1 was dropped: the goal does not ask for it',
      '"last month" applies to step 2.2 (date_from="2026-10-01", date_to="2026-10-31")',
    ]);
    expect(plan.estimate.calls).toBe(given.estimate.calls + 1);
    expect(issues).toEqual([]);
  });

  test('on the library: the dependency between two tasks survives a lookup put into the second', () => {
    const { plan, issues } = groundPlan(
      planOfParts(
        'List the history books and the overdue loans of those books by members in Leipzig last month',
        LIBRARY_CATALOG,
        [
          {
            title: 'History books',
            tool: 'books',
            params: { genre: 'history' },
            depends_on: [],
            task: 'The history books',
          },
          {
            title: 'Their overdue loans',
            tool: 'loans',
            params: { book_ids: '${step[0].data.*.id}', member_id: 'Leipzig', status: 'overdue' },
            depends_on: [0],
            task: 'Their overdue loans',
          },
        ],
      ),
      LIBRARY_CATALOG,
    );
    expect(
      plan.tasks.map((t) => [t.title, t.depends_on, t.steps.map((s) => [s.id, s.tool, s.params, s.depends_on])]),
    ).toEqual([
      ['The history books', [], [['1.1', 'books', { genre: 'history' }, []]]],
      [
        'Their overdue loans',
        ['1'],
        [
          ['2.1', 'members', { city: 'Leipzig' }, []],
          [
            '2.2',
            'loans',
            {
              book_ids: '${step[0].data.*.id}',
              member_id: '${step[1].data.*.id}',
              status: 'overdue',
              since: '2026-10-01',
              until: '2026-10-31',
            },
            [0, 1],
          ],
        ],
      ],
    ]);
    expect(issues).toEqual([]);
  });

  test('a plan of two tasks with nothing to mend is returned as it is', () => {
    const given = planOfParts('Show the rejected inspections of last week and of this week', WASTE_CATALOG, [
      {
        title: 'Last week',
        tool: 'inspections',
        params: { status: 'rejected', date_from: '2026-11-16', date_to: '2026-11-22' },
        depends_on: [],
        task: 'Last week',
      },
      {
        title: 'This week',
        tool: 'inspections',
        params: { status: 'rejected', date_from: '2026-11-23', date_to: '2026-11-23' },
        depends_on: [],
        task: 'This week',
      },
    ]);
    expect(given.tasks).toHaveLength(2);
    expect(groundPlan(given, WASTE_CATALOG).plan).toBe(given);
  });
});
