/**
 * How the eval grades a run's answer and plan against its goal's gold (bench/eval-scoring.ts), executes the gold
 * calls (bench/eval-gold.ts), and sums the figures up (bench/eval-harness.ts).
 */
import { z } from 'zod';
import { executeGold } from '../../../bench/eval-gold';
import { GoldenGoalSchema, summarize, withPlannerSection, type GoalResult } from '../../../bench/eval-harness';
import {
  constraintCoverage,
  GoldSchema,
  gradeAnswer,
  multisetF1,
  planShape,
  planValid,
  rowKey,
  unmatchedAnswer,
  unverifiedIdLiterals,
  type Gold,
} from '../../../bench/eval-scoring';
import type { ToolImplementation, ToolPack } from '../../../src/tools/tool';

const gold = (g: Partial<Gold>): Gold => GoldSchema.parse({ calls: [], ...g });
const shipment = (id: string, facility = 'FAC-01') => ({ id, facility_id: facility, status: 'rejected' });

/** The Hannover example of the format: facilities, then the rejected shipments of each of its two facilities. */
const hannover = gold({
  calls: [
    { tool: 'facilities', params: { location: 'Hannover' } },
    { tool: 'shipments', params: { facility_id: 'FAC-01', status: 'rejected' } },
    { tool: 'shipments', params: { facility_id: 'FAC-07', status: 'rejected' } },
  ],
  edges: [
    [0, 1],
    [0, 2],
  ],
  answer: [[1, 2]],
});
const hannoverData = [
  [{ id: 'FAC-01' }, { id: 'FAC-07' }],
  [shipment('S-1'), shipment('S-2')],
  [shipment('S-9', 'FAC-07')],
];

describe('answer matching', () => {
  it('matches an entry whose calls together give the rows one run step returned', () => {
    expect(
      unmatchedAnswer(hannover, hannoverData, [
        { tool: 'shipments', data: [shipment('S-9', 'FAC-07'), shipment('S-1'), shipment('S-2')] },
      ]),
    ).toEqual([]);
  });

  it('matches an entry by the union of all the run steps of its tool', () => {
    const steps = [
      { tool: 'facilities', data: hannoverData[0] },
      { tool: 'shipments', data: [shipment('S-1'), shipment('S-2')] },
      { tool: 'shipments', data: [shipment('S-9', 'FAC-07')] },
    ];
    expect(unmatchedAnswer(hannover, hannoverData, steps)).toEqual([]);
  });

  it('misses an entry when some row is missing or extra, or no step used its tool', () => {
    expect(
      unmatchedAnswer(hannover, hannoverData, [{ tool: 'shipments', data: [shipment('S-1'), shipment('S-2')] }]),
    ).toEqual(["answer[0] (shipments: 3 row(s); the run's: 2)"]);
    expect(
      unmatchedAnswer(hannover, hannoverData, [
        { tool: 'shipments', data: [shipment('S-1'), shipment('S-2'), shipment('S-9'), shipment('S-4')] },
      ]),
    ).toHaveLength(1);
    expect(unmatchedAnswer(hannover, hannoverData, [{ tool: 'facilities', data: hannoverData[0] }])).toEqual([
      "answer[0] (shipments: 3 row(s); the run's: no step)",
    ]);
  });

  it('compares rows by their id when they have one, else by their canonical JSON', () => {
    expect(rowKey({ id: 'S-1', status: 'rejected' })).toBe(rowKey({ status: 'delivered', id: 'S-1' }));
    expect(rowKey({ a: 1, b: 2 })).toBe(rowKey({ b: 2, a: 1 }));
    expect(rowKey({ a: 1, b: 2 })).not.toBe(rowKey({ a: 1, b: 3 }));
    const files = gold({ calls: [{ tool: 'read_text_file', params: { path: '/notes/todo.md' } }], answer: [[0]] });
    expect(
      unmatchedAnswer(files, [{ content: '# To do' }], [{ tool: 'read_text_file', data: { content: '# To do' } }]),
    ).toEqual([]);
    expect(
      unmatchedAnswer(files, [{ content: '# To do' }], [{ tool: 'read_text_file', data: { content: '# Done' } }]),
    ).toHaveLength(1);
  });

  it('needs every answer_text in the JSON text of some completed step', () => {
    const text = gold({
      calls: [{ tool: 'read_text_file', params: { path: '/notes/budget.md' } }],
      answer_text: ['12,400', 'Travel'],
    });
    expect(
      unmatchedAnswer(text, [], [{ tool: 'read_text_file', data: { content: '| Travel | EUR 12,400 |' } }]),
    ).toEqual([]);
    expect(unmatchedAnswer(text, [], [{ tool: null, data: 'Travel: 12400' }])).toEqual(['answer_text "12,400"']);
  });
});

describe('the answer verdict', () => {
  const ok = { expected: true, outcome: 'FEASIBLE, COMPLETED' };
  const right = [{ tool: 'shipments', data: [shipment('S-1'), shipment('S-2'), shipment('S-9', 'FAC-07')] }];

  it('is right for a completed run that returned the gold answer, wrong for an unfinished one', () => {
    expect(
      gradeAnswer({ kind: 'feasible', gold: hannover }, ok, {
        stage: 'COMPLETED',
        steps: right,
        goldData: hannoverData,
      }),
    ).toEqual({ answer_right: true, answer_outcome: 'answer matches the gold' });
    expect(
      gradeAnswer({ kind: 'vague', gold: hannover }, ok, { stage: 'FAILED', steps: right, goldData: hannoverData }),
    ).toEqual({ answer_right: false, answer_outcome: 'run FAILED' });
  });

  it('needs a partial goal to end as the status verdict says as well', () => {
    const missed = { expected: false, outcome: 'missing capabilities do not name email' };
    expect(
      gradeAnswer({ kind: 'partial', gold: hannover }, missed, {
        stage: 'COMPLETED',
        steps: right,
        goldData: hannoverData,
      }),
    ).toEqual({ answer_right: false, answer_outcome: missed.outcome });
  });

  it('takes the status verdict for an impossible goal, and grades nothing without gold', () => {
    expect(
      gradeAnswer(
        { kind: 'impossible' },
        { expected: true, outcome: 'IMPOSSIBLE, missing named' },
        { stage: 'FAILED', steps: [], goldData: undefined },
      ).answer_right,
    ).toBe(true);
    expect(gradeAnswer({ kind: 'feasible' }, ok, { stage: 'COMPLETED', steps: right, goldData: undefined })).toEqual({
      answer_right: null,
      answer_outcome: 'no gold answer',
    });
  });
});

describe('the plan against the gold plan', () => {
  const plan = (steps: { tool: string | null; depends_on?: number[] }[]) =>
    ({
      tasks: [
        {
          steps: steps.map((s, i) => ({
            id: `1.${i + 1}`,
            title: 't',
            action: s.tool ? 'tool_call' : 'llm',
            params: {},
            depends_on: [],
            ...s,
          })),
        },
      ],
    }) as never;

  it('scores tools as a multiset and dependencies as tool pairs', () => {
    const shape = planShape(
      plan([{ tool: 'facilities' }, { tool: 'shipments', depends_on: [0] }, { tool: null, depends_on: [1] }]),
    );
    expect(shape).toEqual({ tools: ['facilities', 'shipments'], edges: ['facilities → shipments'] });
    expect(multisetF1(shape.tools, ['facilities', 'shipments', 'shipments'])).toBe(0.8);
    expect(multisetF1(shape.edges, ['facilities → shipments', 'facilities → shipments'])).toBe(0.667);
    expect(multisetF1([], [])).toBe(1);
    expect(multisetF1(['shipments'], [])).toBe(0);
  });

  it('finds the constraints in the step params, whatever their case', () => {
    expect(
      constraintCoverage(
        ['Hannover', 'rejected', '2026-06-01'],
        [{ location: 'hannover' }, { status: 'rejected', date_from: '2026-06-02' }],
      ),
    ).toBe(0.667);
    expect(constraintCoverage([], [{ location: 'Hannover' }])).toBeNull();
  });

  it('flags id params given literal values the user never said', () => {
    const goal = 'Show the inspections of shipment SHP-0042';
    expect(unverifiedIdLiterals([{ shipment_ids: ['SHP-0042'] }, { id: 'shp-0042' }], goal)).toEqual([]);
    expect(
      unverifiedIdLiterals(
        [{ shipment_ids: '${step[0].data.*.id}', facility_id: 'FAC-01 ${step[0].data.0.id}' }],
        goal,
      ),
    ).toEqual([]);
    expect(
      unverifiedIdLiterals(
        [{ facility_id: 'FAC-07', filter: { shipment_ids: ['SHP-0042', 'SHP-0050'] }, id: 7, identity: 'x' }],
        goal,
      ),
    ).toEqual(['facility_id=FAC-07', 'shipment_ids=SHP-0050', 'id=7']);
  });

  it('calls a plan valid once it reached execution or ended as IMPOSSIBLE, not when planning gave up', () => {
    const step = (status: string) => ({ status }) as never;
    expect(planValid({ plan: { status: 'FEASIBLE' } as never, steps: [step('COMPLETED')], failure: null })).toBe(true);
    expect(
      planValid({ plan: { status: 'IMPOSSIBLE' } as never, steps: [], failure: { code: 'PLAN-010' } as never }),
    ).toBe(true);
    expect(
      planValid({
        plan: { status: 'FEASIBLE' } as never,
        steps: [step('PENDING')],
        failure: { code: 'PLAN-011' } as never,
      }),
    ).toBe(false);
    expect(
      planValid({
        plan: { status: 'FEASIBLE' } as never,
        steps: [step('FAILED')],
        failure: { code: 'PLAN-009' } as never,
      }),
    ).toBe(false);
    expect(planValid({ plan: null, steps: [], failure: null })).toBe(false);
  });
});

describe('the golden set format', () => {
  const base = { id: 'f99-x', kind: 'feasible', goal: 'List the facilities in Hannover' };

  it('keeps goals without gold loadable, with constraints and held_out defaulted', () => {
    const parsed = GoldenGoalSchema.parse(base);
    expect(parsed).toMatchObject({ constraints: [], held_out: false });
    expect(parsed).not.toHaveProperty('gold');
  });

  it('refuses gold that names calls it does not have, templates, or unknown fields', () => {
    const calls = [{ tool: 'facilities', params: { location: 'Hannover' } }];
    expect(GoldenGoalSchema.safeParse({ ...base, gold: { calls, answer: [[1]] } }).success).toBe(false);
    expect(
      GoldenGoalSchema.safeParse({
        ...base,
        gold: { calls: [{ tool: 'shipments', params: { ids: '${step[0].data}' } }] },
      }).success,
    ).toBe(false);
    expect(GoldenGoalSchema.safeParse({ ...base, gold: { calls, rows: [] } }).success).toBe(false);
    expect(
      GoldenGoalSchema.safeParse({
        ...base,
        gold: { calls: [{ tool: 'read_text_file', params: { path: '${ROOT}/todo.md' } }] },
      }).success,
    ).toBe(true);
  });
});

describe('executing the gold calls', () => {
  const seen: unknown[] = [];
  const tool = (name: string, idempotent = true): ToolImplementation => ({
    spec: { name, idempotent } as never,
    paramsSchema: z.object({ path: z.string() }),
    run: async (params) => {
      seen.push(params);
      return { data: [{ path: params.path, b: 1 }] };
    },
  });
  const pack: ToolPack = { catalog: 'files', tools: [tool('read'), tool('write', false)], close: async () => {} };
  const goal = (calls: Gold['calls']) =>
    GoldenGoalSchema.parse({ id: 'f99-x', kind: 'feasible', goal: 'x', catalog: 'files', gold: { calls } });

  it("keeps each call's data per goal, with ${ROOT} as the folder the catalog serves", async () => {
    const data = await executeGold([goal([{ tool: 'read', params: { path: '${ROOT}/todo.md' } }])], [pack], {
      files: '/srv/notes',
    });
    expect(data.get('f99-x')).toEqual([[{ b: 1, path: '/srv/notes/todo.md' }]]);
  });

  it('refuses a call that would change something, names no tool, or has params its tool refuses', async () => {
    await expect(executeGold([goal([{ tool: 'write', params: { path: '/a' } }])], [pack])).rejects.toThrow(
      'goal f99-x, gold call 0 (write): the tool has side effects',
    );
    await expect(executeGold([goal([{ tool: 'delete', params: {} }])], [pack])).rejects.toThrow(
      'the "files" catalog has no such tool',
    );
    await expect(executeGold([goal([{ tool: 'read', params: { path: 3 } }])], [pack])).rejects.toThrow(
      'invalid params',
    );
  });
});

describe('the totals', () => {
  const result = (r: Partial<GoalResult>): GoalResult =>
    ({
      id: 'x',
      kind: 'feasible',
      catalog: 'waste',
      held_out: false,
      answer_right: true,
      expected: true,
      stage: 'COMPLETED',
      constraint_coverage: null,
      plan_nodes_f1: 1,
      plan_edges_f1: 1,
      valid: true,
      unverified_id_literal: false,
      asked_question: false,
      tools_ok: true,
      plan_generations: [],
      activities: [],
      llm_calls: 0,
      tokens: 0,
      seconds: 1,
      ...r,
    }) as GoalResult;

  it("gives the LLM path's speed: analyses that called the model and every analysis, calls per goal, the prompt cache's share", () => {
    const activity = (name: string, seconds: number, llm_calls: number, prompt: number, cached: number) => ({
      activity: name,
      seconds,
      llm_calls,
      tokens: prompt,
      completion_tokens: 0,
      prompt_tokens: prompt,
      cached_tokens: cached,
      ok: true,
    });
    const totals = summarize(
      [
        result({
          llm_calls: 2,
          seconds: 30,
          activities: [activity('analyzeRequirements', 12, 1, 1000, 600), activity('generatePlan', 8, 1, 1000, 1000)],
        }),
        result({ llm_calls: 1, seconds: 10, activities: [activity('analyzeRequirements', 0.1, 0, 0, 0)] }),
        result({ llm_calls: 0, seconds: 10, activities: [activity('analyzeRequirements', 0.2, 0, 0, 0)] }),
      ],
      40,
    );
    expect(totals).toMatchObject({
      llm_analyses: 1,
      p50_analysis_latency_s: 12,
      p50_analysis_latency_all_s: 0.2,
      mean_llm_calls_per_goal: 1,
      prefix_cache_hit_rate: 0.8,
    });
    expect(totals.p50_seconds_per_goal).toBeGreaterThanOrEqual(10);
  });

  it('gives the plan generations that called the model apart, with their median seconds', () => {
    const generation = (seconds: number, llm_calls: number) => ({ seconds, llm_calls, completion_tokens: 0, ok: true });
    const totals = summarize(
      [
        result({ plan_generations: [generation(0.2, 0)] }),
        result({ plan_generations: [generation(14, 1)] }),
        result({ plan_generations: [generation(0.1, 0), generation(20, 2)] }),
      ],
      40,
    );
    expect(totals).toMatchObject({ plan_generations: 4, llm_plan_generations: 2, p50_llm_planning_latency_s: 17 });
  });

  it('puts the share of right answers first, and gives held-out and tuning goals apart, and each catalog', () => {
    const totals = summarize(
      [
        result({ constraint_coverage: 0.5 }),
        result({
          answer_right: false,
          held_out: true,
          plan_nodes_f1: 0.5,
          unverified_id_literal: true,
          asked_question: true,
        }),
        result({
          answer_right: null,
          expected: false,
          catalog: 'files',
          held_out: true,
          plan_nodes_f1: null,
          plan_edges_f1: null,
          valid: false,
        }),
        result({ kind: 'vague', asked_question: true, constraint_coverage: 1 }),
        result({ stage: 'INTERRUPTED', answer_right: null }),
      ],
      10,
    );
    expect(totals).toMatchObject({
      goals: 4,
      interrupted: 1,
      answer_graded: 3,
      answer_right: 2,
      share_answer_right: 0.667,
      expected: 3,
      share_expected: 0.75,
      mean_constraint_coverage: 0.75,
      mean_plan_nodes_f1: 0.833,
      share_valid: 0.75,
      runs_completed_with_unverified_id: 1,
      clear_goals_asked: 1,
    });
    expect(totals.held_out).toMatchObject({
      goals: 2,
      answer_graded: 1,
      answer_right: 0,
      share_answer_right: 0,
      share_expected: 0.5,
    });
    expect(totals.tuning).toMatchObject({ goals: 2, answer_right: 2, share_answer_right: 1 });
    expect(totals.by_catalog.files).toMatchObject({ goals: 1, answer_graded: 0, share_answer_right: null });
    expect(totals.by_kind.feasible).toEqual({ goals: 3, expected: 2, answer_right: 1 });
  });
});

describe('the results file', () => {
  it("replaces only the planner's own section", () => {
    const first = withPlannerSection(undefined, 'ranking', { totals: 1 });
    const both = withPlannerSection(first, 'qwen', { totals: 2 });
    const again = JSON.parse(withPlannerSection(both, 'ranking', { totals: 3 })) as {
      planners: Record<string, unknown>;
    };
    expect(again.planners).toEqual({ ranking: { totals: 3 }, qwen: { totals: 2 } });
    expect(() => withPlannerSection('{"totals": {}}', 'ranking', {})).toThrow();
  });
});
