/**
 * The values a goal states that a plan holds nowhere (src/planners/coverage.ts `unaccountedValues`): what makes the
 * LLM planner ask the model about the rules' draft (PLANNER_LLM_PLAN=auto). Checked on the waste catalog and on a
 * library catalog written for this test.
 */
import { resolveTemporalReferences } from '../../../src/domain/dates';
import { toolSpecFromJsonSchema, type ToolSpec } from '../../../src/domain/tool-spec';
import { unaccountedValues } from '../../../src/planners/coverage';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { NOW, planOfSteps, rankingPlan, request } from '../../support/planning';

function leftOut(goal: string, plan = rankingPlan(goal), catalog: ToolSpec[] = WASTE_CATALOG, tool_catalog = 'waste') {
  return unaccountedValues(plan, request(goal, { tool_catalog }), catalog, resolveTemporalReferences(goal, NOW));
}

describe('a plan accounts for the values of its goal', () => {
  test('names, places, dates, enum values and filters the ranking plan carries leave nothing over', () => {
    expect(leftOut('List the shipments carried by EcoTrans AG last week')).toEqual([]);
    expect(leftOut('Which facilities in Hannover received rejected shipments last week?')).toEqual([]);
    expect(leftOut("Get last week's contaminated shipments and the contaminants found in them")).toEqual([]);
  });

  test('a number no param holds is left over ("over 5000 kg")', () => {
    expect(leftOut('Show the shipments of last week over 5000 kg')).toEqual(['5000']);
  });

  test('an enum value or a boolean filter that no step sets is left over, though the called tool knows the word', () => {
    const goal = 'Show the rejected inspections of contaminated shipments';
    const plan = planOfSteps(goal, [
      { tool: 'shipments', params: {} },
      { tool: 'inspections', params: { shipment_id: '${step[0].data.*.id}' }, depends_on: [0] },
    ]);
    expect(leftOut(goal, plan)).toEqual(['rejected', 'contaminated']);
  });

  test('a name the plan names as missing is accounted for', () => {
    const goal = 'Get contaminated shipments from last week and email the list to Priya';
    const plan = { ...rankingPlan(goal), missing_capabilities: ['email the list to Priya'] };
    expect(leftOut(goal, plan)).toEqual([]);
  });
});

const LIBRARY: ToolSpec[] = [
  toolSpecFromJsonSchema({
    name: 'books',
    description: 'Search the catalogue of books by author and genre.',
    task_queue: 'library',
    idempotent: true,
    parameters: {
      type: 'object',
      properties: {
        author: { type: 'string' },
        genre: { type: 'string', enum: ['fiction', 'poetry', 'history'] },
        on_loan: { type: 'boolean' },
      },
    },
    result: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
  }),
];

describe('on a catalog of another domain', () => {
  const books = (params: Record<string, unknown>) => planOfSteps('books', [{ tool: 'books', params }]);

  test('an author, a genre and a boolean filter are accounted for where the step sets them', () => {
    const goal = 'Which poetry books by Mary Oliver are on loan?';
    expect(leftOut(goal, books({ author: 'Mary Oliver', genre: 'poetry', on_loan: true }), LIBRARY, 'library')).toEqual(
      [],
    );
    expect(leftOut(goal, books({ genre: 'poetry' }), LIBRARY, 'library')).toEqual(['Mary', 'Oliver', 'loan']);
  });

  test('a year the plan drops is left over', () => {
    expect(
      leftOut('List the history books published before 1900', books({ genre: 'history' }), LIBRARY, 'library'),
    ).toEqual(['1900']);
  });
});
