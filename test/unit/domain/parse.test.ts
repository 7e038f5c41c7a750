import { InvalidInputError, PlanParseError, PlanSchemaError, formatZodIssues } from '../../../src/domain/errors';
import { uuidv7 } from '../../../src/domain/ids';
import { flattenSteps, parsePlanJson } from '../../../src/domain/plan';
import { parsePlanningRequest } from '../../../src/domain/request';
import { RequirementsSchema, parseRequirementsJson } from '../../../src/domain/requirements';
import { NOW } from '../../support/planning';
import { PLAN_ID, validPlanInput } from '../../support/plans';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('parsePlanJson', () => {
  const json = JSON.stringify(validPlanInput());

  it('parses plan JSON and applies defaults', () => {
    const plan = parsePlanJson(json);
    const steps = flattenSteps(plan);
    expect(steps.map((s) => s.id)).toEqual(['1.1', '1.2', '2.1']);
    expect(steps[1]).toMatchObject({
      action: 'tool_call',
      parallel: false,
      depends_on: [0],
      verification: [],
      description: '',
    });
    expect(steps[0]!.depends_on).toEqual([]);
    expect(plan).toMatchObject({ missing_capabilities: [], assumptions: [], version: 1 });
  });

  it('tolerates ```json fences and surrounding prose', () => {
    expect(parsePlanJson('```json\n' + json + '\n```').id).toBe(PLAN_ID);
    expect(parsePlanJson('Here is the plan:\n```\n' + json + '```\nDone.').id).toBe(PLAN_ID);
  });

  it('lets the caller stamp id, version and metadata over what the LLM wrote', () => {
    const { id: _id, version: _v, metadata: _m, ...draft } = validPlanInput();
    const stamp = {
      id: uuidv7(Date.parse(NOW), new Uint8Array(10).fill(7)),
      version: 2,
      metadata: { planner: 'ranking' as const, created_at: NOW },
    };
    const plan = parsePlanJson(JSON.stringify({ ...draft, version: 99 }), stamp);
    expect(plan).toMatchObject({
      id: stamp.id,
      version: 2,
      metadata: { planner: 'ranking', model: null, temperature: null },
    });
  });

  it('PLAN-001 for text that is not JSON', () => {
    for (const text of ['', 'not json', '```json\n{"a": }\n```', '{"tasks": [']) {
      const e = thrown(() => parsePlanJson(text));
      expect(e).toBeInstanceOf(PlanParseError);
      expect((e as PlanParseError).code).toBe('PLAN-001');
    }
  });

  it('PLAN-002 with readable "path: message" lines', () => {
    const bad = validPlanInput();
    (bad as Record<string, unknown>).complexity = 4;
    (bad.tasks[0]!.steps[1] as Record<string, unknown>).depends_on = [-1];
    delete (bad.tasks[1]!.steps[0] as Record<string, unknown>).tool;
    const e = thrown(() => parsePlanJson(JSON.stringify(bad))) as PlanSchemaError;
    expect(e).toBeInstanceOf(PlanSchemaError);
    expect(e.code).toBe('PLAN-002');
    expect(e.issues).toEqual([
      'tasks[0].steps[1].depends_on[0]: Too small: expected number to be >=0',
      'tasks[1].steps[0].tool: a tool_call step needs a tool',
      'complexity: Invalid option: expected one of 1|2|3|5|8|13|21',
    ]);
    expect(e.message).toContain('complexity: Invalid option');
  });

  it('PLAN-002 for JSON that is not an object', () => {
    expect(thrown(() => parsePlanJson('[1,2]'))).toBeInstanceOf(PlanSchemaError);
    expect((thrown(() => parsePlanJson('null')) as PlanSchemaError).issues[0]).toMatch(/^\(root\): /);
  });

  it('enforces status consistency', () => {
    const impossible = { ...validPlanInput(), status: 'IMPOSSIBLE', tasks: [] };
    expect((thrown(() => parsePlanJson(JSON.stringify(impossible))) as PlanSchemaError).issues).toEqual([
      'missing_capabilities: a IMPOSSIBLE plan must name what is missing',
    ]);
    expect(parsePlanJson(JSON.stringify({ ...impossible, missing_capabilities: ['kubernetes'] })).tasks).toEqual([]);
    expect(
      (thrown(() => parsePlanJson(JSON.stringify({ ...validPlanInput(), tasks: [] }))) as PlanSchemaError).issues,
    ).toEqual(['tasks: a FEASIBLE plan needs at least one task']);
  });

  it('rejects params nested too deeply', () => {
    const plan = validPlanInput();
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i++) deep = { d: deep };
    plan.tasks[0]!.steps[0]!.params = { deep };
    expect((thrown(() => parsePlanJson(JSON.stringify(plan))) as PlanSchemaError).issues[0]).toMatch(
      /^tasks\[0\]\.steps\[0\]\.params: must not nest deeper/,
    );
  });
});

describe('parseRequirementsJson', () => {
  const clear = {
    is_clear: true,
    steps: ['Fetch contaminated shipments from the shipments service', 'Fetch contaminant details for those shipments'],
    required_capabilities: ['shipments', 'contaminants-detected'],
    intent: { type: 'query', confidence: 0.9 },
    temporal_references: [{ phrase: 'last week', start: '2026-11-16', end: '2026-11-22' }],
  };

  it('parses requirements and fills defaults', () => {
    const r = parseRequirementsJson(JSON.stringify(clear));
    expect(r.clarification).toBeNull();
    expect(r.complexity_indicators.estimated_steps).toBe(0);
    expect(r.entities).toEqual([]);
  });

  it("drops a key of the model's own where it parses a reply; the recorded requirements refuse it, named", () => {
    const written = { ...clear, mood: 'curious', intent: { ...clear.intent, why: 'x' } };
    const r = parseRequirementsJson(JSON.stringify(written));
    expect('mood' in r || 'why' in r.intent).toBe(false);
    const recorded = RequirementsSchema.safeParse(written);
    expect(recorded.success).toBe(false);
    expect(formatZodIssues(recorded.error!)).toEqual([
      'intent: Unrecognized key: "why"',
      '(root): Unrecognized key: "mood"',
    ]);
  });

  it('needs a clarifying question with a valid 0-based default when unclear', () => {
    const unclear = { ...clear, is_clear: false };
    expect((thrown(() => parseRequirementsJson(JSON.stringify(unclear))) as PlanSchemaError).issues).toEqual([
      'clarification: an unclear goal needs a clarifying question',
    ]);
    const question = { question: 'Which period?', options: ['last week', 'last month'], default_option: 2 };
    expect(
      (thrown(() => parseRequirementsJson(JSON.stringify({ ...unclear, clarification: question }))) as PlanSchemaError)
        .issues,
    ).toEqual(['clarification.default_option: must index one of the options (0-based)']);
    const ok = parseRequirementsJson(JSON.stringify({ ...unclear, clarification: { ...question, default_option: 1 } }));
    expect(ok.clarification?.options[ok.clarification.default_option]).toBe('last month');
  });

  it('rejects requirement steps that keep template variables', () => {
    const e = thrown(() =>
      parseRequirementsJson(JSON.stringify({ ...clear, steps: ['Get ${limit} issues'] })),
    ) as PlanSchemaError;
    expect(e.issues[0]).toMatch(/^steps\[0\]: must be abstract/);
  });

  it('rejects an unknown intent', () => {
    expect(
      thrown(() => parseRequirementsJson(JSON.stringify({ ...clear, intent: { type: 'rant', confidence: 2 } }))),
    ).toBeInstanceOf(PlanSchemaError);
  });
});

describe('parsePlanningRequest', () => {
  const request = {
    goal: "Show me last week's contaminated shipments",
    trace_id: 't-1',
    tool_catalog: 'waste@1',
    budget: { cost_usd: 1, tokens: 10_000, calls: 20 },
    now: NOW,
  };

  it('fills defaults', () => {
    expect(parsePlanningRequest(request)).toMatchObject({
      constraints: { max_steps: 20 },
      context: [],
      budget: { policy: 'block' },
    });
  });

  it('throws InvalidInputError (PLAN-006) listing every problem', () => {
    const e = thrown(() =>
      parsePlanningRequest({ ...request, trace_id: '', now: 'tomorrow', constraints: { workspace_root: 'relative' } }),
    ) as InvalidInputError;
    expect(e).toBeInstanceOf(InvalidInputError);
    expect(e.code).toBe('PLAN-006');
    expect((e.details.issues as string[]).map((l) => l.split(':')[0])).toEqual([
      'trace_id',
      'constraints.workspace_root',
      'now',
    ]);
  });
});
