/** The lean plan draft an LLM writes, its completion by the system, and its JSON Schema for structured outputs. */
import { checkJsonSchema } from '../../../src/domain/json-schema';
import { PlanSchema } from '../../../src/domain/plan';
import { complexityOf, draftOf, planDraftJsonSchema, planFromDraft, type PlanDraft } from '../../../src/domain/plan-draft';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { STAMP } from '../../support/planning';

const stamp = { id: STAMP.id, version: 1, goal: 'Contaminated shipments and their contaminants', metadata: { planner: 'llm' as const, model: 'm', temperature: 0.1, created_at: STAMP.created_at } };

const draft: PlanDraft = {
  status: 'FEASIBLE',
  missing_capabilities: [],
  steps: [
    { title: 'Contaminated shipments', tool: 'shipments', params: { has_contaminants: true, date_from: '2026-11-16' }, depends_on: [] },
    { title: 'Their contaminants', tool: 'contaminants-detected', params: { shipment_ids: '${step[0].data.*.id}' }, depends_on: [0] },
  ],
};

describe('planFromDraft', () => {
  it('fills ids, one task, defaults, the complexity and the estimate from the catalog', () => {
    const plan = PlanSchema.parse(planFromDraft(draft, stamp, catalog));
    expect(plan).toMatchObject({ id: STAMP.id, version: 1, goal: stamp.goal, status: 'FEASIBLE', complexity: 2, assumptions: [] });
    expect(plan.tasks).toHaveLength(1);
    expect(plan.tasks[0]!.steps.map((s) => [s.id, s.action, s.tool, s.depends_on, s.parallel])).toEqual([
      ['1.1', 'tool_call', 'shipments', [], true],
      ['1.2', 'tool_call', 'contaminants-detected', [0], true],
    ]);
    // Two calls of 0.0001 USD and 300 tokens each; a chain of two steps of 500 ms.
    expect(plan.estimate).toEqual({ cost_usd: 0.0002, tokens: 600, calls: 2, duration_ms: 1000 });
  });

  it('makes an IMPOSSIBLE draft without steps a plan without tasks', () => {
    const plan = PlanSchema.parse(planFromDraft({ status: 'IMPOSSIBLE', missing_capabilities: ['ordering'], steps: [] }, stamp, catalog));
    expect(plan).toMatchObject({ tasks: [], complexity: 1, estimate: { calls: 0, duration_ms: 0 }, missing_capabilities: ['ordering'] });
  });

  it('gives the complexity as the smallest Fibonacci number covering the steps', () => {
    expect([1, 2, 3, 4, 6, 9, 30].map(complexityOf)).toEqual([1, 2, 3, 5, 8, 13, 21]);
  });

  it('round-trips through draftOf', () => {
    expect(draftOf(PlanSchema.parse(planFromDraft(draft, stamp, catalog)))).toEqual(draft);
  });
});

describe('planDraftJsonSchema', () => {
  const schema = planDraftJsonSchema(catalog, 20);

  it('accepts a draft of catalog tools with their params, a whole template standing for an array', () => {
    expect(checkJsonSchema(draft, schema)).toEqual([]);
  });

  it('allows only the catalog tool names, each with its own params', () => {
    const variants = ((schema.properties!.steps as { items: { anyOf: { properties: { tool: { const: string } } }[] } }).items.anyOf);
    expect(variants.map((v) => v.properties.tool.const)).toEqual(['contaminants-detected', 'facilities', 'inspections', 'shipments']);
    const invented = { ...draft, steps: [{ title: 'x', tool: 'search_shipments', params: {}, depends_on: [] }] };
    expect(checkJsonSchema(invented, schema)).not.toEqual([]);
    const wrongParams = { ...draft, steps: [{ title: 'x', tool: 'facilities', params: { shipment_ids: ['S-1'] }, depends_on: [] }] };
    expect(checkJsonSchema(wrongParams, schema)).not.toEqual([]);
  });

  it('leaves no regex pattern beside a format (grammars choke on zod date regexes) and only template patterns', () => {
    const text = JSON.stringify(schema);
    expect(text).toContain('"format":"date"');
    const patterns = [...text.matchAll(/"pattern":"([^"]*)"/g)].map((m) => m[1]);
    expect(new Set(patterns)).toEqual(new Set(['^\\\\$\\\\{step\\\\[[0-9]+\\\\]\\\\.data[^}]*\\\\}$']));
  });

  it('allows no step at all for an empty catalog', () => {
    expect(planDraftJsonSchema([], 5).properties!.steps).toEqual({ type: 'array', maxItems: 0 });
  });
});
