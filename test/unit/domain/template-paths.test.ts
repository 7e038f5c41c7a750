/** Templates checked against the result schema of the step they read, at validation instead of at execution. */
import { validatePlan } from '../../../src/domain/validation';
import { templatePathProblem } from '../../../src/domain/template-paths';
import { scanTemplates } from '../../../src/domain/templates';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';

const shipmentsResult = WASTE_CATALOG.find((t) => t.name === 'shipments')!.result!;
const pathOf = (template: string) => scanTemplates({ x: template }).refs[0]!.path.slice(1); // after `.data`

describe('templatePathProblem', () => {
  it("accepts the paths a list of rows has: every item's field, one item's field, the whole list", () => {
    for (const t of [
      '${step[0].data.*.id}',
      '${step[0].data[0].facility_id}',
      '${step[0].data}',
      '${step[0].data.*}',
    ]) {
      expect(templatePathProblem(pathOf(t), shipmentsResult)).toBeNull();
    }
  });

  it('names what is wrong: a field of a list, a field the rows do not have, a list read inside a string', () => {
    expect(templatePathProblem(pathOf('${step[0].data.length}'), shipmentsResult)).toBe(
      'data is a list: it has no field "length" (use data.*.length for every item\'s, or data[0].length for the first item\'s)',
    );
    expect(templatePathProblem(pathOf('${step[0].data.*.shipment_id}'), shipmentsResult)).toMatch(
      /^data\.\* has no field "shipment_id" \(its fields: id, facility_id, /,
    );
    expect(templatePathProblem(pathOf('${step[0].data[0].id.*}'), shipmentsResult)).toBe(
      'data[0].id is a string, not a list: .* reads nothing',
    );
  });

  it('lets a path pass where the schema cannot say (no type, open object)', () => {
    expect(templatePathProblem(pathOf('${step[0].data.anything.at.all}'), {})).toBeNull();
    expect(
      templatePathProblem(pathOf('${step[0].data.extra}'), { type: 'object', properties: { a: { type: 'string' } } }),
    ).toBeNull();
  });
});

describe('validatePlan with result schemas', () => {
  it("refuses a template that reads a field the referenced tool's result does not have", () => {
    const plan = {
      id: '019ab000-0000-7000-8000-000000000001',
      version: 1,
      goal: 'g',
      status: 'FEASIBLE',
      missing_capabilities: [],
      assumptions: [],
      complexity: 2,
      estimate: { cost_usd: 0, tokens: 0, calls: 2, duration_ms: 0 },
      metadata: { planner: 'llm', created_at: '2026-11-23T10:00:00Z' },
      tasks: [
        {
          id: '1',
          title: 't',
          steps: [
            { id: '1.1', title: 'Shipments', tool: 'shipments', params: {}, depends_on: [] },
            {
              id: '1.2',
              title: 'More',
              tool: 'shipments',
              params: { limit: '${step[0].data.length}' },
              depends_on: [0],
            },
          ],
        },
      ],
    };
    const issues = validatePlan(plan, { catalog: WASTE_CATALOG });
    expect(issues).toEqual([expect.objectContaining({ code: 'TEMPLATE_PATH_INVALID', step_index: 1 })]);
    expect(issues[0]!.message).toContain(
      'param limit uses ${step[0].data.length}, but in step 0\'s result (shipments) data is a list: it has no field "length"',
    );
  });
});
