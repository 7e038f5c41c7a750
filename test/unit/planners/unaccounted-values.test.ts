/**
 * The values a goal states that a plan holds nowhere (src/planners/coverage.ts `unaccountedValues`): what makes the
 * LLM planner ask the model about the rules' draft (PLANNER_LLM_PLAN=auto). Checked on the waste catalog and on the
 * tests' lending-library catalog.
 */
import { resolveTemporalReferences } from '../../../src/domain/dates';
import type { ToolSpec } from '../../../src/domain/tool-spec';
import { unaccountedValues } from '../../../src/planners/coverage';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { LIBRARY_CATALOG } from '../../support/library-catalog';
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

describe('on a catalog of another domain (a lending library)', () => {
  const goal = 'Which poetry books by Mary Oliver are overdue?';
  const library = (steps: Parameters<typeof planOfSteps>[1]) => planOfSteps(goal, steps);

  test('an author and enum values are accounted for where the steps set them', () => {
    const plan = library([
      { tool: 'books', params: { author: 'Mary Oliver', genre: 'poetry' } },
      { tool: 'loans', params: { book_ids: '${step[0].data.*.id}', status: 'overdue' }, depends_on: [0] },
    ]);
    expect(leftOut(goal, plan, LIBRARY_CATALOG, 'library')).toEqual([]);
  });

  test('an author and a status the plan drops are left over', () => {
    const plan = library([{ tool: 'books', params: { genre: 'poetry' } }]);
    expect(leftOut(goal, plan, LIBRARY_CATALOG, 'library')).toEqual(['Mary', 'Oliver', 'overdue']);
  });

  test('a number the plan drops is left over', () => {
    const goal = 'List the history books of more than 300 pages';
    const plan = planOfSteps(goal, [{ tool: 'books', params: { genre: 'history' } }]);
    expect(leftOut(goal, plan, LIBRARY_CATALOG, 'library')).toEqual(['300']);
  });
});
