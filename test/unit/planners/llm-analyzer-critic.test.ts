/** LlmAnalyzer and PremortemCritic against a real chat-completions HTTP server. */
import { PlanningExhaustedError, type PlannerError } from '../../../src/domain/errors';
import { decide } from '../../../src/domain/critique';
import { parsePlanJson, type Plan } from '../../../src/domain/plan';
import { PREMORTEM_EXAMPLE } from '../../../src/llm/prompts';
import { LlmAnalyzer } from '../../../src/planners/analyze/llm-analyzer';
import {
  PREMORTEM_CRITIC_ID,
  PREMORTEM_TEMPERATURE,
  PremortemCritic,
  premortemReason,
} from '../../../src/planners/critique/premortem-critic';
import { runCritics } from '../../../src/planners/critique/run-critics';
import type { Critic } from '../../../src/planners/types';
import { LIBRARY_CATALOG } from '../../support/library-catalog';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { WORKSPACE_CATALOG } from '../../../src/tools/workspace';
import { LLM_GOAL, LlmHarness, planReply } from '../../support/llm';
import { request, STAMP } from '../../support/planning';

const harness = new LlmHarness();
afterEach(() => harness.close());

function analysisReply(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    is_clear: true,
    clarification: null,
    steps: ['Fetch contaminated shipments of the period'],
    required_capabilities: ['shipments'],
    complexity_indicators: {
      estimated_steps: 1,
      external_services: [],
      has_conditionals: false,
      has_iteration: false,
      has_temporal_filter: false,
    },
    intent: { type: 'query', confidence: 0.9 },
    entities: [],
    temporal_references: [],
    ...overrides,
  });
}

describe('LlmAnalyzer', () => {
  it('returns is_clear=false with a question, options and a default for a vague goal', async () => {
    const clarification = {
      question: 'What should the report about waste cover?',
      options: ['Contaminated shipments', 'Rejected inspections', 'Facility capacity'],
      default_option: 0,
    };
    await harness.start({
      script: [
        analysisReply({ is_clear: false, clarification, steps: [], intent: { type: 'query', confidence: 0.3 } }),
      ],
    });
    const { requirements, llm_calls } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request('Do the waste thing'),
      catalog,
    });

    expect(requirements.is_clear).toBe(false);
    expect(requirements.clarification).toEqual(clarification);
    expect(llm_calls).toHaveLength(1);
    const body = harness.server.requests[0]!.body;
    // A structured output: only the fields the model decides, the clarification nullable.
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'requirements', strict: true },
    });
    const schema = (body.response_format as unknown as { json_schema: { schema: { required: string[] } } }).json_schema
      .schema;
    expect(schema.required).toEqual(['is_clear', 'clarification', 'steps', 'required_capabilities', 'intent']);
    expect(body.temperature).toBe(0);
    const system = body.messages[0]!.content;
    expect(system).toContain('"is_clear" is false when the goal is vague');
    expect(system).toContain('never templates');
  });

  it('sends an unclear answer without a question back, and a templated requirement step', async () => {
    await harness.start({
      script: [
        analysisReply({ is_clear: false, clarification: null }),
        analysisReply({ steps: ['Call shipments with ${step[0].data.id}'] }),
        analysisReply(),
      ],
    });
    const { requirements, llm_calls } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request(LLM_GOAL),
      catalog,
    });

    expect(requirements.steps).toEqual(['Fetch contaminated shipments of the period']);
    expect(llm_calls).toHaveLength(3);
    expect(harness.messages(1)[3]!.content).toContain(
      '[PLAN-002] clarification: an unclear goal needs a clarifying question',
    );
    expect(harness.messages(2)[5]!.content).toContain(
      '[PLAN-002] steps[0]: must be abstract: no ${...} template variables',
    );
    expect(JSON.stringify(harness.messages(2).slice(0, 4))).toBe(JSON.stringify(harness.messages(1)));
  });

  it("asks about a goal the rules find vague even when the model calls it clear, with the pack's options", async () => {
    await harness.start({ script: [analysisReply()] });
    const lexicon = {
      report: {
        question: 'Which report do you need?',
        options: ['Shipments from last week', 'Inspections rejected this week'],
      },
    };
    const analyzer = new LlmAnalyzer(harness.client, {
      lexiconOf: (name) => (name === 'waste' ? lexicon : {}),
      calls: 'always',
    });
    const { requirements } = await analyzer.analyze({
      request: request('Check the reports', { tool_catalog: 'waste' }),
      catalog,
    });

    expect(requirements.is_clear).toBe(false);
    expect(requirements.clarification).toEqual({
      question: 'Which report do you need?',
      options: [...lexicon.report.options, 'Something else (describe it)'],
      default_option: 0,
    });
  });

  it('does not ask again once the user has answered and the rules find the goal plannable', async () => {
    const clarification = {
      question: 'Which shipments?',
      options: ['Contaminated ones', 'Rejected ones'],
      default_option: 0,
    };
    await harness.start({
      script: [analysisReply({ is_clear: false, clarification }), analysisReply({ is_clear: false, clarification })],
    });
    const answered = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request('Check the reports', {
        context: [{ role: 'user', content: 'Contaminated shipments from last week' }],
      }),
      catalog,
    });
    expect(answered.requirements).toMatchObject({ is_clear: true, clarification: null });

    // Without an answer, about a wish that names nothing to plan by, the model's question stands.
    const unanswered = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request("I'd like a clearer picture of how things are going"),
      catalog,
    });
    expect(unanswered.requirements).toMatchObject({ is_clear: false, clarification });
  });

  it.each([
    ['it names a tool and a period', 'Get contaminated shipments from last week', catalog],
    ['it names a name', 'Order 50 new recycling bins from Hansa Containers', catalog],
    ['it names a place, on a second catalog', 'Which loans are overdue in Leipzig?', LIBRARY_CATALOG],
    ['a question naming nothing the rules plan by', 'When is the shredder maintenance contract due?', catalog],
    ['a question on a second catalog', 'What do our regular visitors think about the quiet room?', LIBRARY_CATALOG],
    ['an order for an action no tool does', 'Make the monthly cleanup smoother for everyone', catalog],
    ['an order no tool does, on a second catalog', 'Water the plants in the reading room', LIBRARY_CATALOG],
    ['an order no tool does, on a third catalog', 'Reboot the build server', WORKSPACE_CATALOG],
  ])("does not ask the model's question about a goal that says what it wants: %s", async (_what, goal, tools) => {
    const clarification = {
      question: 'Which shipments, loans or logs do you mean?',
      options: ['Contaminated shipments', 'Overdue loans', 'Build server logs'],
      default_option: 0,
    };
    await harness.start({ script: [analysisReply({ is_clear: false, clarification })] });
    const { requirements } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request(goal),
      catalog: tools,
    });
    expect(requirements).toMatchObject({ is_clear: true, clarification: null });
  });

  it("does not ask the model's question about a clear goal when no option names anything of the goal or the catalog (a copy of the prompt's example)", async () => {
    const copied = {
      question: 'Which orders do you mean by "the problem orders"?',
      options: ['Orders that are overdue', 'Orders with a failed payment'],
      default_option: 0,
    };
    await harness.start({ script: [analysisReply({ is_clear: false, clarification: copied })] });
    const { requirements } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request('List all waste facilities in Hannover'),
      catalog,
    });
    expect(requirements).toMatchObject({ is_clear: true, clarification: null });
  });

  it('keeps each requirement step once, however often the model repeats it', async () => {
    const repeated = 'Fetch contaminated shipments of the period';
    await harness.start({
      script: [analysisReply({ steps: [repeated, repeated, 'Fetch their contaminants', repeated] })],
    });
    const { requirements } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request(LLM_GOAL),
      catalog,
    });
    expect(requirements.steps).toEqual([repeated, 'Fetch their contaminants']);
  });

  it('takes date ranges from the domain resolver, not from the model', async () => {
    const fromModel = [
      { phrase: 'last week', start: '2026-11-09', end: '2026-11-23' }, // wrong: the resolver's range wins
      { phrase: 'over the summer', start: '2026-06-21', end: '2026-09-22' }, // in the goal, unknown to the resolver: kept
      { phrase: 'in q3 2026', start: '2026-07-01', end: '2026-09-30' }, // around the resolver's "q3 2026": dropped
      { phrase: 'next year', start: '2027-01-01', end: '2027-12-31' }, // not in the goal: dropped
    ];
    await harness.start({ script: [analysisReply({ temporal_references: fromModel })] });
    const goal = "Compare last week's contaminated shipments with those over the summer and in Q3 2026";
    const { requirements } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request(goal),
      catalog,
    });

    expect(requirements.temporal_references).toEqual([
      { phrase: 'last week', start: '2026-11-16', end: '2026-11-22' },
      { phrase: 'q3 2026', start: '2026-07-01', end: '2026-09-30' },
      { phrase: 'over the summer', start: '2026-06-21', end: '2026-09-22' },
    ]);
    expect(requirements.complexity_indicators.has_temporal_filter).toBe(true);
    expect(harness.messages(0)[1]!.content).toContain('"last week": 2026-11-16 to 2026-11-22');
  });

  it('resolves dates named in the conversation (an answer to a clarification)', async () => {
    await harness.start({ script: [analysisReply()] });
    const { requirements } = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
      request: request('Show contaminated shipments', { context: [{ role: 'user', content: 'from yesterday' }] }),
      catalog,
    });
    expect(requirements.temporal_references).toEqual([{ phrase: 'yesterday', start: '2026-11-22', end: '2026-11-22' }]);
    expect(harness.messages(0)[1]!.content).toContain('user: from yesterday');
  });
});

describe('PremortemCritic', () => {
  const plan: Plan = parsePlanJson(planReply(), {
    id: STAMP.id,
    version: 1,
    goal: LLM_GOAL,
    metadata: { planner: 'llm', created_at: STAMP.created_at },
  });
  const review = () =>
    new PremortemCritic(harness.client, { calls: 'always' }).review(plan, { request: request(LLM_GOAL), catalog });

  it('returns the critiques under its critic id, asking for a pre-mortem of the plan', async () => {
    const critiques = [
      {
        severity: 'warning',
        step_id: '1.2',
        message: 'No shipments last week leaves shipment_ids empty',
        suggestion: 'Skip step 1.2 on an empty result',
      },
      { severity: 'info', step_id: null, message: 'No limit on shipments', suggestion: 'Set limit' },
    ];
    await harness.start({ script: [JSON.stringify({ critiques })] });
    const result = await review();

    expect(result.critiques).toEqual([
      {
        critic: PREMORTEM_CRITIC_ID,
        severity: 'warning',
        step_id: '1.2',
        message: critiques[0]!.message,
        suggestion: critiques[0]!.suggestion,
      },
      { critic: 'llm-premortem', severity: 'info', message: 'No limit on shipments', suggestion: 'Set limit' },
    ]);
    expect(result.llm_calls).toHaveLength(1);
    const body = harness.server.requests[0]!.body;
    expect(body.temperature).toBe(PREMORTEM_TEMPERATURE);
    expect(body.messages[0]!.content).toContain('imagine the plan you are given was run and FAILED');
    expect(body.messages[1]!.content).toContain(
      '{"id":"1.2","title":"Fetch their contaminants","tool":"contaminants-detected"',
    ); // a lean view of the plan, ids included
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'critiques' } });
  });

  it('sends back a critique that names a step the plan does not have', async () => {
    await harness.start({
      script: [
        JSON.stringify({ critiques: [{ severity: 'error', step_id: '9.9', message: 'x fails' }] }),
        JSON.stringify({ critiques: [] }),
      ],
    });
    const result = await review();
    expect(result.critiques).toEqual([]);
    expect(result.llm_calls).toHaveLength(2);
    expect(harness.messages(1)[3]!.content).toContain(
      '[PLAN-002] critiques[0].step_id: the plan has no step "9.9" (its steps: 1.1, 1.2)',
    );
  });

  it('keeps an error only when it quotes a value its step passes that neither the user gave nor the system resolved; any other becomes a warning, a copy of the example goes', async () => {
    const critiques = [
      // grounded: step 1.2 really passes this template
      {
        severity: 'error',
        step_id: '1.2',
        message: 'shipment_ids ${step[0].data.*.id} is empty when no shipment matched',
        suggestion: 'Skip on empty',
      },
      // invented: step 1.1 passes no such date (the model took the date from nowhere)
      {
        severity: 'error',
        step_id: '1.1',
        message: 'The date range ends on 2026-11-23, today: nothing is returned',
        suggestion: 'Use a later date',
      },
      // vouched for: step 1.1 passes this date, but it is the end of "last week" as the system resolved it
      {
        severity: 'error',
        step_id: '1.1',
        message: 'date_to 2026-11-22 leaves out shipments of today',
        suggestion: '',
      },
      // plan-wide: nothing to quote
      { severity: 'error', step_id: null, message: 'The plan may fail', suggestion: '' },
      { ...PREMORTEM_EXAMPLE },
    ];
    await harness.start({ script: [JSON.stringify({ critiques })] });
    const result = await review();

    expect(result.critiques.map((c) => [c.step_id, c.severity])).toEqual([
      ['1.2', 'error'],
      ['1.1', 'warning'],
      ['1.1', 'warning'],
      [undefined, 'warning'],
    ]);
    expect(result.critiques[1]!.message).toContain('not grounded in a value the step passes');
    expect(decide(result.critiques, { strict: false, max_refinements: 2, refinements_done: 0 }).blocking).toHaveLength(
      1,
    );
    expect(harness.server.requests[0]!.body.messages[0]!.content).toContain(JSON.stringify(PREMORTEM_EXAMPLE.message)); // the example the copy came from
  });

  it('gives up with PLAN-009 after 3 unusable replies', async () => {
    await harness.start({ script: ['[]', '{"critiques": [{"severity": "fatal", "message": "m"}]}', 'no'] });
    const error = (await review().catch((e: unknown) => e)) as PlannerError;
    expect(error).toBeInstanceOf(PlanningExhaustedError);
    expect(error.retryable).toBe(false);
    expect(harness.server.calls).toBe(3);
    expect(
      (error.details.attempt_errors as string[][])[1]!.some((l) => l.startsWith('[PLAN-002] critiques[0].severity')),
    ).toBe(true);
  });
});

describe('fewer LLM calls where the rules are sure (calls: auto, the default)', () => {
  it('analyses a clear query of tools the goal names by the rules alone, with no call, and says so', async () => {
    await harness.start({ script: [] }); // any call would get "script exhausted"
    const result = await new LlmAnalyzer(harness.client).analyze({ request: request(LLM_GOAL), catalog });

    expect(result.llm_calls).toEqual([]);
    expect(harness.server.requests).toHaveLength(0);
    expect(result.requirements.is_clear).toBe(true);
    expect(result.requirements.required_capabilities).toEqual(
      expect.arrayContaining(['shipments', 'contaminants-detected']),
    );
    expect(result.note).toMatch(/rules analysed the goal alone .*no LLM analysis call/);
  });

  it('does the same on a second catalog the rules were not written for', async () => {
    await harness.start({ script: [] });
    const result = await new LlmAnalyzer(harness.client).analyze({
      request: request('List the loans of members who live in Leipzig'),
      catalog: LIBRARY_CATALOG,
    });
    expect(result.llm_calls).toEqual([]);
    expect(result.note).toContain('loans');
  });

  it('asks a goal the rules find vague their own question, with no call', async () => {
    await harness.start({ script: [] });
    const result = await new LlmAnalyzer(harness.client).analyze({ request: request('Do the waste thing'), catalog });
    expect(result.llm_calls).toEqual([]);
    expect(result.requirements.is_clear).toBe(false);
    expect(result.requirements.clarification?.options.length).toBeGreaterThan(1);
    expect(result.note).toMatch(/too vague to plan/);
  });

  it.each([
    [
      'the waste catalog',
      'Order 50 new recycling bins from our supplier',
      catalog,
      'Order 50 new recycling bins from our supplier',
    ],
    [
      'a second catalog',
      'Renew the loans of members in Leipzig and text each of them',
      LIBRARY_CATALOG,
      'Text each of them',
    ],
  ])(
    'names an action no tool does as missing by the rules alone, with no call, on %s',
    async (_what, goal, tools, action) => {
      await harness.start({ script: [] });
      const result = await new LlmAnalyzer(harness.client).analyze({ request: request(goal), catalog: tools });
      expect(result.llm_calls).toEqual([]);
      expect(result.requirements.required_capabilities).toContain(action);
      expect(result.note).toContain(`"${action}", which no tool does`);
    },
  );

  it.each([
    [
      'an answer to a question',
      'Show contaminated shipments',
      { context: [{ role: 'user' as const, content: 'yesterday' }] },
    ],
    ['a question no tool matched, which reading data may answer', 'What is the travel budget for Q3 2026?', {}],
    ['a request for data no tool matched', 'List the composting sites and email them to the compliance team', {}],
    ['a goal that names nothing to plan by yet is not vague', 'Make the monthly cleanup smoother for everyone', {}],
    ['a wish that names nothing to plan by', "I'd like a clearer picture of how things are going", {}],
  ])('still asks the model about %s', async (_what, goal, options) => {
    await harness.start({ script: [analysisReply()] });
    const result = await new LlmAnalyzer(harness.client).analyze({ request: request(goal, options), catalog });
    expect(result.llm_calls).toHaveLength(1);
    expect(result.note).toBeUndefined();
  });

  const plan: Plan = parsePlanJson(planReply(), {
    id: STAMP.id,
    version: 1,
    goal: LLM_GOAL,
    metadata: { planner: 'llm', created_at: STAMP.created_at },
  });

  it('runs no pre-mortem on a read-only plan the rule critics found nothing in, and leaves an info critique saying so', async () => {
    await harness.start({ script: [] });
    const result = await new PremortemCritic(harness.client).review(plan, { request: request(LLM_GOAL), catalog });
    expect(result.llm_calls).toEqual([]);
    expect(result.critiques).toEqual([
      expect.objectContaining({
        critic: PREMORTEM_CRITIC_ID,
        severity: 'info',
        message: expect.stringMatching(/not run/),
      }),
    ]);
    expect(decide(result.critiques, { strict: true, max_refinements: 2, refinements_done: 0 }).decision).toBe(
      'approve',
    );
  });

  it('runs the pre-mortem when a step can change something (a tool that is not idempotent)', async () => {
    await harness.start({ script: [JSON.stringify({ critiques: [] })] });
    const writing = catalog.map((t) => (t.name === 'shipments' ? { ...t, idempotent: false } : t));
    const result = await new PremortemCritic(harness.client).review(plan, {
      request: request(LLM_GOAL),
      catalog: writing,
    });
    expect(result.llm_calls).toHaveLength(1);
    expect(premortemReason(plan, writing)).toBe('side effects in 1.1 (shipments)');
  });

  it('runs the pre-mortem when the rule critics found something to weigh', async () => {
    await harness.start({ script: [JSON.stringify({ critiques: [] })] });
    const findings = [{ critic: 'coverage', severity: 'warning' as const, message: 'period unused', suggestion: '' }];
    const result = await new PremortemCritic(harness.client).review(plan, {
      request: request(LLM_GOAL),
      catalog,
      findings,
    });
    expect(result.llm_calls).toHaveLength(1);
  });

  it('runCritics gives a critic that weighs findings what the others found, and keeps critic order', async () => {
    const seen: unknown[] = [];
    const weigher: Critic = {
      id: 'weigher',
      weighsFindings: true,
      review: async (_plan, context) => {
        seen.push(context.findings);
        return { critiques: [], llm_calls: [] };
      },
    };
    const finder = (id: string): Critic => ({
      id,
      review: async () => ({
        critiques: [{ critic: id, severity: 'warning', message: `${id} found it`, suggestion: '' }],
        llm_calls: [],
      }),
    });
    const result = await runCritics([finder('a'), weigher, finder('b')], plan, { request: request(LLM_GOAL), catalog });
    expect(seen).toEqual([[expect.objectContaining({ critic: 'a' }), expect.objectContaining({ critic: 'b' })]]);
    expect(result.critiques.map((c) => c.critic)).toEqual(['a', 'b']);
  });
});
