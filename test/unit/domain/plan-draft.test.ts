/** The lean plan draft an LLM writes, its completion by the system, and its JSON Schema for structured outputs. */
import { checkJsonSchema, type JsonSchema } from '../../../src/domain/json-schema';
import { PlanSchema } from '../../../src/domain/plan';
import {
  DRAFT_STEP_KINDS,
  PlanDraftSchema,
  draftOf,
  planDraftJsonSchema,
  planFromDraft,
  type PlanDraft,
} from '../../../src/domain/plan-draft';
import { planComplexityOf, taskComplexityOf } from '../../../src/domain/task-structure';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { STAMP } from '../../support/planning';

const stamp = {
  id: STAMP.id,
  version: 1,
  goal: 'Contaminated shipments and their contaminants',
  metadata: { planner: 'llm' as const, model: 'm', temperature: 0.1, created_at: STAMP.created_at },
};

const draft: PlanDraft = {
  status: 'FEASIBLE',
  missing_capabilities: [],
  steps: [
    {
      title: 'Contaminated shipments',
      tool: 'shipments',
      params: { has_contaminants: true, date_from: '2026-11-16' },
      depends_on: [],
    },
    {
      title: 'Their contaminants',
      tool: 'contaminants-detected',
      params: { shipment_ids: '${step[0].data.*.id}' },
      depends_on: [0],
    },
  ],
};

describe('planFromDraft', () => {
  it('fills ids, one task, defaults, the complexity and the estimate from the catalog', () => {
    const plan = PlanSchema.parse(planFromDraft(draft, stamp, catalog));
    expect(plan).toMatchObject({
      id: STAMP.id,
      version: 1,
      goal: stamp.goal,
      status: 'FEASIBLE',
      complexity: 2,
      assumptions: [],
    });
    expect(plan.tasks).toHaveLength(1);
    expect(plan.tasks[0]!.steps.map((s) => [s.id, s.action, s.tool, s.depends_on, s.parallel])).toEqual([
      ['1.1', 'tool_call', 'shipments', [], true],
      ['1.2', 'tool_call', 'contaminants-detected', [0], true],
    ]);
    // Two calls of 0.0001 USD and 300 tokens each; a chain of two steps of 500 ms.
    expect(plan.estimate).toEqual({ cost_usd: 0.0002, tokens: 600, calls: 2, duration_ms: 1000 });
  });

  it('adds an earlier step a template reads to depends_on when the draft forgot it, and leaves any other reference to validation', () => {
    const forgot = {
      ...draft,
      steps: [
        draft.steps[0]!,
        { ...draft.steps[1]!, depends_on: [] },
        { ...draft.steps[0]!, params: { facility_id: '${step[2].data[0].id}' } },
      ],
    };
    const plan = PlanSchema.parse(planFromDraft(forgot, stamp, catalog));
    expect(plan.tasks[0]!.steps.map((s) => s.depends_on)).toEqual([[], [0], []]);
  });

  it('takes the status the steps and missing capabilities say when the draft contradicts them: FEASIBLE with something missing is PARTIAL, IMPOSSIBLE with steps PARTIAL or FEASIBLE', () => {
    const statusOf = (d: Partial<PlanDraft>) =>
      PlanSchema.parse(planFromDraft({ ...draft, ...d }, stamp, catalog)).status;
    expect(statusOf({ status: 'FEASIBLE', missing_capabilities: ['sending email'] })).toBe('PARTIAL');
    expect(statusOf({ status: 'FEASIBLE', missing_capabilities: ['sending email'], steps: [] })).toBe('IMPOSSIBLE');
    expect(statusOf({ status: 'PARTIAL', missing_capabilities: ['sending email'], steps: [] })).toBe('IMPOSSIBLE');
    expect(statusOf({ status: 'PARTIAL', missing_capabilities: ['sending email'] })).toBe('PARTIAL');
    expect(statusOf({ status: 'PARTIAL', missing_capabilities: [] })).toBe('FEASIBLE');
    expect(statusOf({ status: 'IMPOSSIBLE', missing_capabilities: ['sending email'] })).toBe('PARTIAL');
    expect(statusOf({ status: 'IMPOSSIBLE', missing_capabilities: [] })).toBe('FEASIBLE');
    // Too little to mend: no steps and nothing missing is left to the schema.
    expect(() =>
      PlanSchema.parse(planFromDraft({ ...draft, status: 'IMPOSSIBLE', steps: [] }, stamp, catalog)),
    ).toThrow(/missing/);
  });

  it("merges a step that repeats an earlier one into it, the later steps' dependencies and templates following", () => {
    const facilities = {
      title: 'Composting sites',
      tool: 'facilities',
      params: { type: 'composting' },
      depends_on: [],
    };
    const repeated: PlanDraft = {
      ...draft,
      steps: [
        facilities,
        { ...facilities, depends_on: [0] },
        { ...facilities, title: 'Again', depends_on: [1] },
        {
          title: 'Their shipments',
          tool: 'shipments',
          params: { facility_id: '${step[2].data[0].id}' },
          depends_on: [2],
        },
        { title: 'Other sites', tool: 'facilities', params: { type: 'landfill' }, depends_on: [] },
      ],
    };
    const plan = PlanSchema.parse(planFromDraft(repeated, stamp, catalog));
    expect(plan.tasks[0]!.steps.map((s) => [s.id, s.tool, s.params, s.depends_on])).toEqual([
      ['1.1', 'facilities', { type: 'composting' }, []],
      ['1.2', 'shipments', { facility_id: '${step[0].data[0].id}' }, [0]],
      ['1.3', 'facilities', { type: 'landfill' }, []],
    ]);
    expect(plan.assumptions).toEqual(['steps 1.2, 1.3 repeated an earlier step and were merged into it']);
  });

  it('keeps steps with the same tool and different params, and a repeat that waits on a later step', () => {
    const steps = [draft.steps[0]!, { ...draft.steps[0]!, params: { has_contaminants: false } }];
    expect(PlanSchema.parse(planFromDraft({ ...draft, steps }, stamp, catalog)).tasks[0]!.steps).toHaveLength(2);
    const waits = [draft.steps[0]!, draft.steps[1]!, { ...draft.steps[0]!, depends_on: [1] }];
    expect(PlanSchema.parse(planFromDraft({ ...draft, steps: waits }, stamp, catalog)).tasks[0]!.steps).toHaveLength(3);
  });

  it("keeps .* into a param that takes one value (one call per item) and mends a field of the list itself to every item's, saying so in the assumptions", () => {
    const chain: PlanDraft = {
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [
        {
          title: 'The sorting center in Leipzig',
          tool: 'facilities',
          params: { location: 'Leipzig', type: 'sorting' },
          depends_on: [],
        },
        { title: 'Its shipments', tool: 'shipments', params: { facility_id: '${step[0].data.*.id}' }, depends_on: [0] },
        {
          title: 'Their contaminants',
          tool: 'contaminants-detected',
          params: { shipment_ids: '${step[1].data.*.id}' },
          depends_on: [1],
        },
        {
          title: 'Their inspections',
          tool: 'inspections',
          params: { shipment_ids: '${step[1].data.id}', facility_id: '${step[0].data.id}' },
          depends_on: [0, 1],
        },
      ],
    };
    const plan = PlanSchema.parse(planFromDraft(chain, stamp, catalog));
    expect(plan.tasks[0]!.steps.map((s) => s.params)).toEqual([
      chain.steps[0]!.params,
      { facility_id: '${step[0].data.*.id}' },
      { shipment_ids: '${step[1].data.*.id}' },
      { shipment_ids: '${step[1].data.*.id}', facility_id: '${step[0].data.*.id}' },
    ]);
    expect(plan.assumptions).toEqual([
      "step 1.4 reads ${step[1].data.*.id}, every item's id of step 1.2's result",
      "step 1.4 reads ${step[0].data.*.id}, every item's id of step 1.1's result, one call per item (facility_id takes one value)",
    ]);
  });

  it('makes an IMPOSSIBLE draft without steps a plan without tasks', () => {
    const plan = PlanSchema.parse(
      planFromDraft({ status: 'IMPOSSIBLE', missing_capabilities: ['ordering'], steps: [] }, stamp, catalog),
    );
    expect(plan).toMatchObject({
      tasks: [],
      complexity: 1,
      estimate: { calls: 0, duration_ms: 0 },
      missing_capabilities: ['ordering'],
    });
  });

  it('gives each task the smallest Fibonacci complexity covering its steps (at most 13), the plan their sum', () => {
    expect([1, 2, 3, 4, 6, 9, 30].map(taskComplexityOf)).toEqual([1, 2, 3, 5, 8, 13, 13]);
    expect(planComplexityOf([{ complexity: 1 }, { complexity: 3 }])).toBe(5);
    expect(planComplexityOf([{ complexity: 13 }, { complexity: 13 }])).toBe(21);
  });

  it('groups steps by the optional task label the model writes: two parts, the second reading the first, are two dependent tasks', () => {
    const labelled: PlanDraft = {
      ...draft,
      steps: [
        { ...draft.steps[0]!, task: 'Find contaminated shipments' },
        { ...draft.steps[1]!, task: 'Report their contaminants' },
      ],
    };
    const plan = PlanSchema.parse(planFromDraft(labelled, stamp, catalog));
    expect(plan.tasks.map((t) => [t.id, t.title, t.depends_on, t.steps.map((s) => s.id)])).toEqual([
      ['1', 'Find contaminated shipments', [], ['1.1']],
      ['2', 'Report their contaminants', ['1'], ['2.1']],
    ]);
    expect(plan.complexity).toBe(2);
    expect(draftOf(plan)).toEqual(labelled); // a refinement shows the model its own labels
    // Unlabelled, the draft is one task named after the goal, as before.
    expect(PlanSchema.parse(planFromDraft(draft, stamp, catalog)).tasks.map((t) => t.title)).toEqual([stamp.goal]);
  });

  it('fills what the model does not write: step descriptions, expected outputs and verification; task criteria', () => {
    const plan = PlanSchema.parse(planFromDraft(draft, stamp, catalog));
    const [shipments, contaminants] = plan.tasks[0]!.steps;
    expect(shipments!.description).toMatch(/^List waste shipments/);
    expect(shipments!.expected_output).toMatch(/^a list of shipments rows \(id, facility_id/);
    expect(contaminants!.verification).toEqual([
      "every row's shipment_id of step 1.2 (contaminants-detected) is among the id values step 1.1 returned",
      'step 1.2 (contaminants-detected) returns at least one row',
    ]);
    expect(plan.tasks[0]!.acceptance_criteria.length).toBeGreaterThan(0);
  });

  it('offers the task label in the JSON Schema as optional: a small model may leave it out', () => {
    const schema = planDraftJsonSchema(catalog, 5) as any;
    const variant = schema.properties.steps.items.anyOf[0];
    expect(variant.properties.task).toEqual({ type: 'string', minLength: 1, maxLength: 80 });
    expect(variant.required).not.toContain('task');
  });

  it('round-trips through draftOf', () => {
    expect(draftOf(PlanSchema.parse(planFromDraft(draft, stamp, catalog)))).toEqual(draft);
  });

  it('makes a step naming an action instead of a tool an llm, human or noop step, run alone', () => {
    const withKinds: PlanDraft = {
      ...draft,
      steps: [
        ...draft.steps,
        {
          title: 'Summary',
          action: 'llm',
          params: { instruction: 'Summarize the contaminants per shipment' },
          depends_on: [1],
        },
        { title: 'Sign-off', action: 'human', params: { question: 'Send the summary?' }, depends_on: [2] },
      ],
    };
    const plan = PlanSchema.parse(planFromDraft(withKinds, stamp, catalog));
    expect(plan.tasks[0]!.steps.slice(2).map((s) => [s.action, s.tool, s.parallel])).toEqual([
      ['llm', null, false],
      ['human', null, false],
    ]);
    expect(draftOf(plan)).toEqual(withKinds);
  });

  it('refuses a step naming both a tool and an action, or neither', () => {
    const step = { title: 'x', params: {}, depends_on: [] };
    for (const bad of [{ ...step, tool: 'shipments', action: 'llm' }, step]) {
      expect(PlanDraftSchema.safeParse({ status: 'FEASIBLE', steps: [bad] }).success).toBe(false);
    }
  });
});

describe('planDraftJsonSchema', () => {
  const schema = planDraftJsonSchema(catalog, 20);

  it('accepts a draft of catalog tools with their params, a whole template standing for an array', () => {
    expect(checkJsonSchema(draft, schema)).toEqual([]);
  });

  it('allows only the catalog tool names, each with its own params', () => {
    const variants = (schema.properties!.steps as { items: { anyOf: { properties: { tool: { const: string } } }[] } })
      .items.anyOf;
    expect(variants.map((v) => v.properties.tool.const)).toEqual([
      'contaminants-detected',
      'facilities',
      'inspections',
      'shipments',
    ]);
    const invented = { ...draft, steps: [{ title: 'x', tool: 'search_shipments', params: {}, depends_on: [] }] };
    expect(checkJsonSchema(invented, schema)).not.toEqual([]);
    const wrongParams = {
      ...draft,
      steps: [{ title: 'x', tool: 'facilities', params: { shipment_ids: ['S-1'] }, depends_on: [] }],
    };
    expect(checkJsonSchema(wrongParams, schema)).not.toEqual([]);
  });

  it('offers a template only where a param takes a list, not for a number, flag, enum or date', () => {
    const detections = (
      schema.properties!.steps as {
        items: { anyOf: { properties: { tool: { const: string }; params: JsonSchema } }[] };
      }
    ).items.anyOf.find((v) => v.properties.tool.const === 'contaminants-detected')!;
    const params = detections.properties.params.properties!;
    expect(params.shipment_ids).toMatchObject({
      anyOf: [{ type: 'array' }, { type: 'string', pattern: expect.any(String) }],
    });
    for (const name of ['limit', 'risk_level', 'date_from']) expect(params[name]).not.toHaveProperty('anyOf');
  });

  it('leaves no regex pattern beside a format (grammars choke on zod date regexes) and only template patterns', () => {
    const text = JSON.stringify(schema);
    expect(text).toContain('"format":"date"');
    const patterns = [...text.matchAll(/"pattern":"([^"]*)"/g)].map((m) => m[1]);
    expect(new Set(patterns)).toEqual(new Set(['^\\\\$\\\\{step\\\\[[0-9]+\\\\]\\\\.data[^}]*\\\\}$']));
  });

  it('offers the step kinds without a tool only when asked, each with the params its step reads', () => {
    const llmStep = { title: 'Summary', action: 'llm', params: { instruction: 'Summarize' }, depends_on: [0] };
    const withLlm = { ...draft, steps: [...draft.steps, llmStep] };
    expect(checkJsonSchema(withLlm, schema)).not.toEqual([]);
    const kinds = planDraftJsonSchema(catalog, 20, DRAFT_STEP_KINDS);
    expect(checkJsonSchema(withLlm, kinds)).toEqual([]);
    expect(checkJsonSchema({ ...draft, steps: [{ ...llmStep, params: {} }] }, kinds)).not.toEqual([]);
  });

  it('allows no step at all for an empty catalog', () => {
    expect(planDraftJsonSchema([], 5).properties!.steps).toEqual({ type: 'array', maxItems: 0 });
  });
});
