/** LlmPlanner against a real HTTP server speaking chat-completions (no mock of the openai client). */
import { PlanSchema, parsePlanJson } from '../../../src/domain/plan';
import { planFromDraft } from '../../../src/domain/plan-draft';
import {
  LlmCallError,
  PlanSchemaError,
  PlanningExhaustedError,
  PlanParseError,
  type PlannerError,
} from '../../../src/domain/errors';
import { parseRequirementsJson } from '../../../src/domain/requirements';
import { analyzeGoalByRules } from '../../../src/planners/analyze/rules-analyzer';
import { RankingPlanner, RulesDraftPlanner } from '../../../src/planners/generate/ranking-planner';
import type { Planner } from '../../../src/planners/types';
import {
  LlmPlanner,
  PLAN_REPLY_MAX_TOKENS,
  PLAN_TEMPERATURE,
  REFINE_TEMPERATURE,
  parsePlanReply,
} from '../../../src/planners/generate/llm-planner';
import { PLAN_EXAMPLE, REQUIREMENTS_EXAMPLE } from '../../../src/llm/prompts';
import { NOT_SENT } from '../../../src/llm/json-conversation';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { FILES_CATALOG } from '../../support/files-catalog';
import { LLM_GOAL, LlmHarness, MODEL, planReply, requirements, validSteps } from '../../support/llm';
import { analyze, rankingPlan, request, STAMP } from '../../support/planning';

const harness = new LlmHarness();
afterEach(() => harness.close());

function generate(overrides: Partial<Parameters<LlmPlanner['generate']>[0]> = {}) {
  return new LlmPlanner(harness.client).generate({
    request: request(LLM_GOAL),
    requirements,
    catalog,
    stamp: STAMP,
    ...overrides,
  });
}

async function caught(promise: Promise<unknown>): Promise<PlannerError> {
  try {
    await promise;
  } catch (error) {
    return error as PlannerError;
  }
  throw new Error('expected a rejection');
}

describe('LlmPlanner with a draft planner, asked about every draft (PLANNER_LLM_PLAN=always): the model revises a draft instead of inventing a plan', () => {
  const withDraft = (overrides: Partial<Parameters<LlmPlanner['generate']>[0]> = {}) =>
    new LlmPlanner(harness.client, new RankingPlanner(), { calls: 'always' }).generate({
      request: request(LLM_GOAL),
      requirements,
      catalog,
      stamp: STAMP,
      ...overrides,
    });

  it("a first plan's prompt carries the ranking planner's plan, its dates and tools, to check against the goal", async () => {
    await harness.start({ script: [planReply()] });
    await withDraft();
    const user = harness.messages(0)[1]!.content;
    expect(user).toMatch(/A draft plan, made by matching the goal's words to the tools/);
    const draft = JSON.parse(user.split('\n').find((line) => line.startsWith('{"status"'))!) as {
      steps: { tool: string; params: Record<string, unknown> }[];
    };
    expect(draft.steps.map((s) => s.tool)).toEqual(['shipments', 'contaminants-detected']);
    expect(draft.steps[0]!.params).toMatchObject({ date_from: '2026-11-16', date_to: '2026-11-22' });
    expect(user).toMatch(/If it answers the goal, reply \{"verdict":"keep","plan":null\}/);
  });

  it('a draft the model keeps is the plan: one short reply, the verdict schema, the plan saying the model kept it', async () => {
    await harness.start({ script: [JSON.stringify({ verdict: 'keep', plan: null })] });
    const { plan, llm_calls } = await withDraft();

    expect(llm_calls).toHaveLength(1);
    expect(harness.server.requests[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'plan_review', strict: true },
    });
    expect(plan.metadata).toMatchObject({ planner: 'llm', model: MODEL });
    expect(plan.tasks.flatMap((t) => t.steps.map((s) => s.tool))).toEqual(['shipments', 'contaminants-detected']);
    expect(plan.assumptions.at(-1)).toBe("the model checked the ranking planner's draft and kept it");
  });

  it('a revised draft is the plan the model wrote; "revise" without a plan is sent back', async () => {
    const revised = JSON.parse(planReply([validSteps()[0]!])) as unknown;
    await harness.start({
      script: [JSON.stringify({ verdict: 'revise', plan: null }), JSON.stringify({ verdict: 'revise', plan: revised })],
    });
    const { plan, llm_calls } = await withDraft();

    expect(llm_calls).toHaveLength(2);
    expect(harness.messages(1).at(-1)!.content).toMatch(/verdict "revise" needs the corrected plan/);
    expect(plan.tasks.flatMap((t) => t.steps.map((s) => s.tool))).toEqual(['shipments']);
    expect(plan.assumptions).not.toContain("the model checked the ranking planner's draft and kept it");
  });

  it('a reply with a plan and no verdict (a provider that ignores the schema) is taken as the revision', async () => {
    await harness.start({ script: [planReply()] });
    const { plan } = await withDraft();
    expect(plan.tasks.flatMap((t) => t.steps.map((s) => s.tool))).toEqual(['shipments', 'contaminants-detected']);
    expect(plan.metadata.planner).toBe('llm');
  });

  it('when every reply fails validation, the draft stands: the plan says so, and every call is charged', async () => {
    await harness.start({ script: ['not json', 'still not json', '{"nor": "this"}'] });
    const { plan, llm_calls } = await withDraft();
    expect(harness.server.calls).toBe(3);
    expect(llm_calls).toHaveLength(3);
    expect(plan.metadata.planner).toBe('ranking');
    expect(plan.tasks.flatMap((t) => t.steps.map((s) => s.tool))).toEqual(['shipments', 'contaminants-detected']);
    expect(plan.assumptions.at(-1)).toMatch(
      /^the model's replies did not validate \(planning failed after 3 attempt\(s\).*\): the ranking planner's plan stands$/,
    );
  });

  it('when the draft stands, the result keeps the refused conversation for the audit: each reply, then why it was refused', async () => {
    await harness.start({ script: ['not json', 'still not json', '{"nor": "this"}'] });
    const { transcript } = await withDraft();
    const turns = transcript!.slice(2);
    expect(turns.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(turns.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'not json',
      'still not json',
      '{"nor": "this"}',
    ]);
    // The last reply's errors were never sent: the turn says so, and names them.
    expect(turns.at(-1)!.content.startsWith(NOT_SENT)).toBe(true);
    expect(turns.at(-1)!.content).toMatch(/^\[PLAN-00\d\]/m);
    // Three calls were made, and the last turn is the only one no call carried.
    expect(harness.messages(2)).toEqual(transcript!.slice(0, -2));
  });

  it('when every reply fails validation on a goal the rules find IMPOSSIBLE, their IMPOSSIBLE plan stands, naming what is missing', async () => {
    await harness.start({ script: ['not json', 'still not json', '{"nor": "this"}'] });
    const goal = 'Order 50 new recycling bins from our supplier';
    const { plan, llm_calls } = await withDraft({ request: request(goal), requirements: analyze(goal) });
    expect(llm_calls).toHaveLength(3);
    expect(plan.status).toBe('IMPOSSIBLE');
    expect(plan.missing_capabilities.join(' ')).toMatch(/order/i);
    expect(plan.assumptions.at(-1)).toMatch(/the ranking planner's plan stands$/);
  });

  it("a revision the model wrote without task labels keeps the draft's two tasks and the dependency between them", async () => {
    const revision = {
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [
        {
          title: 'Contaminated shipments of last week',
          tool: 'shipments',
          params: { has_contaminants: true, date_from: '2026-11-16', date_to: '2026-11-22' },
          depends_on: [],
        },
        {
          title: 'Contaminants found in them',
          tool: 'contaminants-detected',
          params: { shipment_ids: '${step[0].data.*.id}' },
          depends_on: [0],
        },
      ],
    };
    await harness.start({ script: [JSON.stringify({ verdict: 'revise', plan: revision })] });
    const { plan } = await withDraft();

    expect(harness.messages(0)[1]!.content).toContain('"task":"The contaminants found in them"'); // the draft's labels
    expect(
      plan.tasks.map((t) => ({ id: t.id, title: t.title, after: t.depends_on, steps: t.steps.map((s) => s.title) })),
    ).toEqual([
      {
        id: '1',
        title: 'Get last week contaminated shipments',
        after: [],
        steps: ['Contaminated shipments of last week'],
      },
      { id: '2', title: 'The contaminants found in them', after: ['1'], steps: ['Contaminants found in them'] },
    ]);
    expect(plan.tasks[1]!.steps[0]).toMatchObject({ id: '2.1', depends_on: [0] });
  });

  it('on the files catalog: a revision that reorders the steps and replaces one keeps each part of the draft a task', async () => {
    const goal = 'Read my todo list and show me the directory tree of my notes';
    const stamp = (planner: 'ranking') => ({
      id: STAMP.id,
      version: 1,
      goal,
      metadata: { planner, model: null, temperature: null, created_at: STAMP.created_at },
    });
    // A draft planner that labels its steps: two parts, the todo list (a search and a read) and the tree.
    const labelled: Planner = {
      kind: 'ranking',
      generate: async () => ({
        plan: PlanSchema.parse(
          planFromDraft(
            {
              status: 'FEASIBLE',
              missing_capabilities: [],
              steps: [
                {
                  title: 'Find the todo list',
                  tool: 'search_files',
                  params: { path: '/srv/notes', pattern: '**/*todo*' },
                  depends_on: [],
                  task: 'Read my todo list',
                },
                {
                  title: 'Read it',
                  tool: 'read_multiple_files',
                  params: { paths: '${step[0].data.paths}' },
                  depends_on: [0],
                  task: 'Read my todo list',
                },
                {
                  title: 'Tree of the notes',
                  tool: 'directory_tree',
                  params: { path: '/srv/notes' },
                  depends_on: [],
                  task: 'Show me the directory tree',
                },
              ],
            },
            stamp('ranking'),
            FILES_CATALOG,
          ),
        ),
        llm_calls: [],
      }),
    };
    // The model puts the tree first, searches by another pattern and reads the file with read_text_file instead.
    const revision = {
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [
        { title: 'Tree of the notes', tool: 'directory_tree', params: { path: '/srv/notes' }, depends_on: [] },
        {
          title: 'Find todo.md',
          tool: 'search_files',
          params: { path: '/srv/notes', pattern: '**/todo.md' },
          depends_on: [],
        },
        {
          title: 'Read todo.md',
          tool: 'read_text_file',
          params: { path: '${step[1].data.paths[0]}' },
          depends_on: [1],
        },
      ],
    };
    await harness.start({ script: [JSON.stringify({ verdict: 'revise', plan: revision })] });
    const req = request(goal, { tool_catalog: 'files' });
    const { plan } = await new LlmPlanner(harness.client, labelled, { calls: 'always' }).generate({
      request: req,
      requirements: analyzeGoalByRules({ request: req, catalog: FILES_CATALOG }),
      catalog: FILES_CATALOG,
      stamp: STAMP,
    });

    expect(plan.tasks.map((t) => [t.title, t.depends_on, t.steps.map((s) => [s.id, s.tool, s.depends_on])])).toEqual([
      ['Show me the directory tree', [], [['1.1', 'directory_tree', []]]],
      [
        'Read my todo list',
        [],
        [
          ['2.1', 'search_files', []],
          ['2.2', 'read_text_file', [1]],
        ],
      ],
    ]);
    expect(plan.tasks[1]!.steps[1]!.params).toEqual({ path: '${step[1].data.paths[0]}' });
  });

  it('a refinement, and a goal the draft planner finds IMPOSSIBLE, get no draft', async () => {
    await harness.start({ script: [planReply(), planReply()] });
    const { plan } = await withDraft();
    await withDraft({ refinement: { previous: plan, feedback: ['add a limit'] } });
    expect(harness.messages(1)[1]!.content).not.toMatch(/A draft plan/);
    await harness.close();
    await harness.start({
      script: [JSON.stringify({ status: 'IMPOSSIBLE', missing_capabilities: ['ordering bins'], steps: [] })],
    });
    await withDraft({ request: request('Order 50 new recycling bins from our supplier') }).catch(() => undefined);
    expect(harness.messages(0)[1]!.content).not.toMatch(/A draft plan/);
  });
});

describe('LlmPlanner with a draft planner, asked only where the rules find their draft lacking (PLANNER_LLM_PLAN=auto)', () => {
  const planFor = (goal: string) =>
    new LlmPlanner(harness.client, new RankingPlanner()).generate({
      request: request(goal),
      requirements: analyze(goal),
      catalog,
      stamp: STAMP,
    });

  it('a draft that holds every value of the goal is the plan, with no call to the model', async () => {
    await harness.start({ script: [] });
    const { plan, llm_calls } = await planFor(LLM_GOAL);

    expect(llm_calls).toEqual([]);
    expect(harness.server.requests).toHaveLength(0);
    expect(plan.tasks.flatMap((t) => t.steps.map((s) => s.tool))).toEqual(['shipments', 'contaminants-detected']);
    expect(plan.assumptions.at(-1)).toBe("the rules' draft holds every value of the goal: no LLM plan call");
  });

  it('a correction that gives up (IMPOSSIBLE) on a draft whose steps validate leaves the draft standing, saying so', async () => {
    const gaveUp = { status: 'IMPOSSIBLE', missing_capabilities: ['filtering shipments by weight'], steps: [] };
    await harness.start({ script: [JSON.stringify(gaveUp)] });
    const { plan, llm_calls } = await planFor('Show the shipments of last week over 5000 kg');

    expect(llm_calls).toHaveLength(1);
    expect(plan.status).toBe('FEASIBLE');
    expect(plan.tasks.flatMap((t) => t.steps.map((s) => s.tool))).toEqual(['shipments']);
    expect(plan.assumptions.at(-1)).toMatch(/the model answered IMPOSSIBLE to a draft whose steps validate/);
  });

  const overWeight = 'Show the shipments of last week over 5000 kg';
  /** A correction of the draft for `overWeight`: its shipments step as the draft has it, with `changes`. */
  const correctionOfDraft = async (changes: { status: string; missing_capabilities: string[] }) => {
    const { plan: draft } = await new RankingPlanner().generate({
      request: request(overWeight),
      requirements: analyze(overWeight),
      catalog,
      stamp: STAMP,
    });
    const [step] = draft.tasks.flatMap((t) => t.steps);
    return JSON.stringify({
      ...changes,
      steps: [{ title: 'Fetch the shipments', tool: step!.tool, params: step!.params, depends_on: [] }],
    });
  };

  it('a correction that places a value the draft left out (here as a capability no tool has) is the plan', async () => {
    const placed = { status: 'PARTIAL', missing_capabilities: ['a threshold of 5000 kg'] };
    await harness.start({ script: [await correctionOfDraft(placed)] });
    const { plan, llm_calls } = await planFor(overWeight);

    expect(llm_calls).toHaveLength(1);
    expect(plan.status).toBe('PARTIAL');
    expect(plan.missing_capabilities).toEqual(['a threshold of 5000 kg']);
  });

  it('a correction that places none of the values the draft left out leaves the draft standing, saying so', async () => {
    const unplaced = { status: 'PARTIAL', missing_capabilities: ['a chart of the shipments'] };
    await harness.start({ script: [await correctionOfDraft(unplaced)] });
    const { plan, llm_calls } = await planFor(overWeight);

    expect(llm_calls).toHaveLength(1);
    expect(plan.status).toBe('FEASIBLE');
    expect(plan.missing_capabilities).toEqual([]);
    expect(plan.assumptions.at(-1)).toMatch(
      /placed none of the values the draft left out: the ranking planner's draft stands/,
    );
  });

  it("the draft is the rules' plan on the rules' analysis: a capability the model's analysis made up is not called missing", async () => {
    await harness.start({ script: [] });
    const madeUp = { ...requirements, required_capabilities: [...requirements.required_capabilities, 'travel_budget'] };
    const { plan, llm_calls } = await new LlmPlanner(harness.client, new RulesDraftPlanner()).generate({
      request: request(LLM_GOAL),
      requirements: madeUp,
      catalog,
      stamp: STAMP,
    });
    expect(llm_calls).toEqual([]);
    expect(plan.status).toBe('FEASIBLE');
    expect(plan.missing_capabilities).toEqual([]);
  });

  it('a request with a conversation goes to the model, whose reading of it the rules cannot replace', async () => {
    await harness.start({ script: [planReply()] });
    const context = [{ role: 'system' as const, content: 'Only count shipments carried by rail.' }];
    const { llm_calls } = await new LlmPlanner(harness.client, new RankingPlanner()).generate({
      request: request(LLM_GOAL, { context }),
      requirements,
      catalog,
      stamp: STAMP,
    });
    expect(llm_calls).toHaveLength(1);
    expect(harness.messages(0)[1]!.content).toMatch(/Only count shipments carried by rail/);
  });

  it('a draft that leaves a value out is sent for correction in one call: the plan schema, the value named, no analysis JSON', async () => {
    await harness.start({ script: [planReply()] });
    const { plan, llm_calls } = await planFor('Show the shipments of last week over 5000 kg');

    expect(llm_calls).toHaveLength(1);
    expect(harness.server.requests[0]!.body.response_format).toMatchObject({ json_schema: { name: 'plan' } });
    const user = harness.messages(0)[1]!.content;
    expect(user).toMatch(/A draft plan, made by matching/);
    expect(user).toMatch(/The draft holds none of these values of the goal: "5000"\./);
    expect(user).toMatch(/Correct the draft/);
    expect(user).not.toMatch(/Requirements \(the analysis of the goal\)/);
    expect(plan.metadata).toMatchObject({ planner: 'llm', model: MODEL });
  });
});

describe('LlmPlanner: a valid first reply', () => {
  it('returns the stamped, validated plan from one structured-output call at temperature 0.1, the reply capped', async () => {
    await harness.start({ script: [planReply()] });
    const { plan, llm_calls } = await generate();

    expect(harness.server.calls).toBe(1);
    expect(plan.id).toBe(STAMP.id);
    expect(plan.version).toBe(1);
    expect(plan.goal).toBe(LLM_GOAL);
    expect(plan.metadata).toEqual({
      planner: 'llm',
      model: MODEL,
      temperature: PLAN_TEMPERATURE,
      created_at: STAMP.created_at,
    });
    expect(plan.tasks[0]!.steps.map((s) => s.tool)).toEqual(['shipments', 'contaminants-detected']);
    expect(llm_calls).toHaveLength(1);

    const body = harness.server.requests[0]!.body;
    expect(body.model).toBe(MODEL);
    expect(body.temperature).toBe(0.1);
    expect(body.max_tokens).toBe(PLAN_REPLY_MAX_TOKENS);
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'plan', strict: true } });
    expect(harness.server.requests[0]!.authorization).toBe('Bearer test-key');
  });

  it('sends a stable system prefix (catalog sorted by name) and puts the request in the user message', async () => {
    const delivered = {
      id: '1.1',
      title: 'Delivered shipments',
      tool: 'shipments',
      params: { status: 'delivered', date_from: '2026-11-22', date_to: '2026-11-22' },
      depends_on: [],
    };
    await harness.start({ script: [planReply(), planReply([delivered])] });
    await generate();
    await generate({ request: request('List shipments delivered yesterday') });

    const [first, second] = [harness.messages(0), harness.messages(1)];
    expect(first.map((m) => m.role)).toEqual(['system', 'user']);
    expect(second[0]).toEqual(first[0]); // same bytes for different goals: the provider's prompt cache applies
    const system = first[0]!.content;
    const order = ['### contaminants-detected', '### facilities', '### inspections', '### shipments'].map((h) =>
      system.indexOf(h),
    );
    expect(order.every((pos, i) => pos >= 0 && (i === 0 || pos > order[i - 1]!))).toBe(true);
    expect(system).toContain('${step[N].data.*.field}');
    expect(system).toContain('${step[N].data[0].field}');
    expect(system).toContain('IMPOSSIBLE');
    expect(system).toContain('"required":'); // tool params are shown as JSON Schema
    expect(system).toContain('"format":"date"');
    expect(system).not.toContain('"pattern"'); // zod's date regex adds tokens and says nothing "format" does not

    const user = first[1]!.content;
    expect(user).toContain(`Goal: ${LLM_GOAL}`);
    expect(user).toContain('Now: 2026-11-23T10:00:00Z');
    expect(user).toContain('"last week": 2026-11-16 to 2026-11-22');
    expect(user).toContain('at most 20 steps');
    expect(second[1]!.content).toContain('"yesterday": 2026-11-22 to 2026-11-22');
  });
});

describe('LlmPlanner: retry inside the same conversation', () => {
  it('re-prompts after malformed JSON with the exact parse error, keeping the first messages byte-identical', async () => {
    const malformed = '{"status": "FEASIBLE", "tasks": [';
    await harness.start({ script: [malformed, planReply()] });
    const { plan, llm_calls } = await generate();

    expect(plan.tasks).toHaveLength(1);
    expect(harness.server.calls).toBe(2);
    expect(llm_calls).toHaveLength(2);

    const [first, second] = [harness.messages(0), harness.messages(1)];
    expect(JSON.stringify(second.slice(0, first.length))).toBe(JSON.stringify(first));
    expect(second).toHaveLength(first.length + 2);
    expect(second[first.length]).toEqual({ role: 'assistant', content: malformed });
    let parseError: PlanParseError | undefined;
    try {
      parsePlanJson(malformed);
    } catch (e) {
      parseError = e as PlanParseError;
    }
    expect(parseError).toBeInstanceOf(PlanParseError);
    const correction = second[first.length + 1]!;
    expect(correction.role).toBe('user');
    expect(correction.content).toContain(`[PLAN-001] ${parseError!.message}`);
    expect(correction.content).toContain('corrected JSON object only');
  });

  it('re-prompts after a schema violation with every issue as a "[PLAN-002] path: message" line', async () => {
    const bad = JSON.stringify({ ...JSON.parse(planReply()), status: 'MAYBE', complexity: 4 });
    await harness.start({ script: [bad, planReply()] });
    await generate();

    let issues: readonly string[] = [];
    try {
      parsePlanJson(bad, {
        id: STAMP.id,
        version: 1,
        goal: 'g',
        metadata: { planner: 'llm', created_at: STAMP.created_at },
      });
    } catch (e) {
      issues = (e as PlanSchemaError).issues;
    }
    expect(issues.length).toBeGreaterThanOrEqual(2);
    const correction = harness.messages(1)[3]!.content;
    for (const issue of issues) expect(correction).toContain(`[PLAN-002] ${issue}`);
    expect(correction).toMatch(/\[PLAN-002\] status: /);
    expect(correction).toMatch(/\[PLAN-002\] complexity: /);
  });

  it('re-prompts after a plan that fails validation (a cycle), naming the cycle', async () => {
    const cyclic = validSteps();
    cyclic[0]!.depends_on = [1];
    await harness.start({ script: [planReply(cyclic), planReply()] });
    const { plan } = await generate();

    expect(plan.tasks[0]!.steps[0]!.depends_on).toEqual([]);
    const correction = harness.messages(1)[3]!.content;
    expect(correction).toContain('[CYCLE] dependency cycle 0 → 1 → 0');
    expect(correction).toContain('fix: Remove one depends_on edge');
  });

  it('validates against the request constraints (a tool outside allowed_tools is sent back)', async () => {
    await harness.start({ script: [planReply(), planReply(validSteps().slice(0, 1))] });
    const { plan } = await generate({
      request: request(LLM_GOAL, { constraints: { max_steps: 20, allowed_tools: ['shipments'] } }),
    });

    expect(plan.tasks[0]!.steps).toHaveLength(1);
    expect(harness.messages(0)[1]!.content).toContain('use only these tools: shipments');
    expect(harness.messages(1)[3]!.content).toContain(
      '[TOOL_NOT_ALLOWED] step 1 ("1.2"): tool "contaminants-detected" is not allowed',
    );
  });

  it('names an action of the goal that no tool does as missing itself when the plan leaves it out: PARTIAL, in one call', async () => {
    const goal = 'Get contaminated shipments from last week and email the list to the compliance team';
    await harness.start({ script: [planReply(validSteps().slice(0, 1))] });
    const { plan } = await generate({ request: request(goal) });

    expect(plan).toMatchObject({ status: 'PARTIAL', missing_capabilities: ['Email the list to the compliance team'] });
    expect(plan.assumptions).toContain(
      'no tool of the catalog does "Email the list to the compliance team": named missing',
    );
    expect(harness.server.calls).toBe(1);
  });

  it('adds the action to an IMPOSSIBLE plan whose missing capabilities do not name its verb', async () => {
    const goal = 'Order 50 new recycling bins from our supplier';
    await harness.start({
      script: [JSON.stringify({ status: 'IMPOSSIBLE', missing_capabilities: ['fetching recycling bins'], steps: [] })],
    });
    const { plan } = await generate({ request: request(goal) });

    expect(plan).toMatchObject({
      status: 'IMPOSSIBLE',
      missing_capabilities: ['fetching recycling bins', 'Order 50 new recycling bins from our supplier'],
    });
    expect(harness.server.calls).toBe(1);
  });

  it('makes a plan that reads data for a goal asking for none IMPOSSIBLE, though its tool knows a word of the goal', async () => {
    const recycling = JSON.stringify({
      status: 'PARTIAL',
      missing_capabilities: ['ordering bins'],
      steps: [
        { title: 'Recycling sites', tool: 'facilities', params: { type: 'recycling', limit: 50 }, depends_on: [] },
      ],
    });
    await harness.start({ script: [recycling] });
    const { plan } = await generate({ request: request('Order 50 new recycling bins from our supplier') });
    expect(plan).toMatchObject({ status: 'IMPOSSIBLE', tasks: [] });
    expect(plan.missing_capabilities).toContain('ordering bins');
  });

  it('makes a plan whose steps do nothing the goal names IMPOSSIBLE, without its steps, and names "bookings" as booking', async () => {
    const facilities = {
      title: 'Composting sites',
      tool: 'facilities',
      params: { type: 'composting' },
      depends_on: [],
    };
    const translate = JSON.stringify({
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [facilities, { ...facilities, depends_on: [0] }],
    });
    const book = JSON.stringify({
      status: 'FEASIBLE',
      missing_capabilities: ['bookings'],
      steps: [{ ...facilities, params: { location: 'Bremen' } }],
    });
    await harness.start({ script: [translate, book] });

    const translated = (await generate({ request: request('Translate the safety manual into Polish') })).plan;
    expect(translated).toMatchObject({
      status: 'IMPOSSIBLE',
      missing_capabilities: ['Translate the safety manual into Polish'],
      tasks: [],
    });
    expect(translated.assumptions).toContain(
      'the steps were dropped: none of their tools (facilities) does anything the goal names',
    );
    const booked = (
      await generate({ request: request('Find the facilities in Bremen and book a truck pickup at each of them') })
    ).plan;
    expect(booked).toMatchObject({ status: 'PARTIAL', missing_capabilities: ['bookings'] });
    expect(harness.server.calls).toBe(2);
  });

  it('takes a plan that names as missing what its own steps do as FEASIBLE, in one call', async () => {
    const draft = {
      status: 'PARTIAL',
      missing_capabilities: ['contaminant details'],
      steps: [
        {
          title: 'Contaminated shipments',
          tool: 'shipments',
          params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true },
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
    await harness.start({ script: [JSON.stringify(draft)] });
    const { plan } = await generate();

    expect(plan).toMatchObject({ status: 'FEASIBLE', missing_capabilities: [] });
    expect(harness.server.calls).toBe(1);
  });

  it('takes an IMPOSSIBLE draft whose steps call the tool it names missing as the FEASIBLE plan its steps make, in one call', async () => {
    const impossible = {
      status: 'IMPOSSIBLE',
      missing_capabilities: ['contaminants-detected'],
      steps: validSteps().map(({ id: _id, ...step }) => step),
    };
    await harness.start({ script: [JSON.stringify(impossible)] });
    const { plan } = await generate();

    expect(plan).toMatchObject({ status: 'FEASIBLE', missing_capabilities: [] });
    expect(harness.server.calls).toBe(1);
  });

  it('mends a city given as an id into a lookup and applies the dropped period, in one call, saying so', async () => {
    const goal = 'Which facilities in Hannover received rejected shipments last week?';
    const guessed = JSON.stringify({
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [
        {
          title: 'Rejected shipments',
          tool: 'shipments',
          params: { status: 'rejected', facility_id: 'Hannover' },
          depends_on: [],
        },
      ],
    });
    await harness.start({ script: [guessed] });
    const { plan, llm_calls } = await generate({ request: request(goal) });

    expect(llm_calls).toHaveLength(1);
    expect(plan.tasks[0]!.steps.map((s) => [s.tool, s.params])).toEqual([
      ['facilities', { location: 'Hannover' }],
      [
        'shipments',
        { status: 'rejected', facility_id: '${step[0].data.*.id}', date_from: '2026-11-16', date_to: '2026-11-22' },
      ],
    ]);
    expect(plan.assumptions).toContain(
      'facility_id of step 1.1 was "Hannover", a guess: the ids come from a facilities lookup instead',
    );
  });

  it("sends back a constraint no step of the reply can take, with the goal's words, and takes the plan that applies it", async () => {
    const goal = 'Which facilities in Hannover received rejected shipments last week?';
    const partial = JSON.stringify({
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [
        { title: 'Facilities in Hannover', tool: 'facilities', params: { location: 'Hannover' }, depends_on: [] },
      ],
    });
    const whole = JSON.stringify({
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [
        { title: 'Facilities in Hannover', tool: 'facilities', params: { location: 'Hannover' }, depends_on: [] },
        {
          title: 'Their rejected shipments',
          tool: 'shipments',
          params: {
            status: 'rejected',
            facility_id: '${step[0].data.*.id}',
            date_from: '2026-11-16',
            date_to: '2026-11-22',
          },
          depends_on: [0],
        },
      ],
    });
    await harness.start({ script: [partial, whole] });
    const { plan, llm_calls } = await generate({ request: request(goal) });

    expect(llm_calls).toHaveLength(2);
    expect(plan.tasks[0]!.steps.map((s) => s.tool)).toEqual(['facilities', 'shipments']);
    const correction = harness.messages(1).at(-1)!.content;
    expect(correction).toContain('[UNBOUND_CONSTRAINT] the goal says "rejected", but no step passes "rejected"');
    expect(correction).toContain(
      '[UNBOUND_CONSTRAINT] the goal says "last week", but no step passes "2026-11-16" and "2026-11-22"',
    );
  });

  it('sends back an IMPOSSIBLE answer to a goal that names catalog tools, and takes the PARTIAL plan that uses them', async () => {
    const goal = "List this week's rejected inspections and open a Jira ticket for each of them";
    const impossible = JSON.stringify({ status: 'IMPOSSIBLE', missing_capabilities: ['jira tickets'], steps: [] });
    const partial = JSON.stringify({
      status: 'PARTIAL',
      missing_capabilities: ['opening Jira tickets'],
      steps: [
        {
          title: 'Rejected inspections',
          tool: 'inspections',
          params: { status: 'rejected', date_from: '2026-11-23', date_to: '2026-11-23' },
          depends_on: [],
        },
      ],
    });
    await harness.start({ script: [impossible, partial] });
    const { plan } = await generate({ request: request(goal) });

    expect(plan.status).toBe('PARTIAL');
    expect(harness.messages(1)[3]!.content).toContain(
      '[IMPOSSIBLE_BUT_TOOLS_FIT] the plan is IMPOSSIBLE, but the goal names what "inspections" of the catalog does',
    );
  });

  it('gives up after exactly 3 unusable replies with a non-retryable PLAN-009 carrying every attempt and the last reply', async () => {
    const cyclic = validSteps();
    cyclic[0]!.depends_on = [1];
    await harness.start({ script: ['not json', '{"status": "MAYBE"}', planReply(cyclic), planReply()] });
    const error = await caught(generate());

    expect(error).toBeInstanceOf(PlanningExhaustedError);
    expect(error.code).toBe('PLAN-009');
    expect(error.retryable).toBe(false);
    expect(harness.server.calls).toBe(3);
    expect(harness.messages(2)).toHaveLength(2 + 2 * 2);

    const attempts = error.details.attempt_errors as string[][];
    expect(attempts).toHaveLength(3);
    expect(attempts[0]![0]).toMatch(/^\[PLAN-001\] plan is not valid JSON/);
    expect(attempts[1]!.some((l) => l.startsWith('[PLAN-002] status:'))).toBe(true);
    expect(attempts[2]!.some((l) => l.startsWith('[CYCLE]'))).toBe(true);
    expect(error.details.llm_calls).toHaveLength(3);
    expect(error.details.last_reply).toBe(planReply(cyclic).slice(0, 600));
    expect(error.toFailureDetails().details.attempts).toBe(3);
  });
});

describe('LlmPlanner: refinement', () => {
  it('runs at temperature 0 and shows the previous plan and the feedback', async () => {
    await harness.start({ script: [planReply(), planReply()] });
    const { plan: previous } = await generate();
    const feedback = ['step 1.1: also filter by status rejected'];
    const { plan } = await generate({ stamp: { ...STAMP, version: 2 }, refinement: { previous, feedback } });

    expect(harness.server.requests[1]!.body.temperature).toBe(REFINE_TEMPERATURE);
    expect(REFINE_TEMPERATURE).toBe(0);
    expect(plan.version).toBe(2);
    expect(plan.metadata.temperature).toBe(0);
    const user = harness.messages(1)[1]!.content;
    expect(user).toContain('refinement of plan version 1');
    expect(user).toContain('- step 1.1: also filter by status rejected');
    expect(user).toContain('"tool":"contaminants-detected"'); // the previous plan in the format the model writes
    expect(user).toContain('step 0 is "1.1", step 1 is "1.2"'); // so feedback naming step ids can be placed
    expect(user).not.toContain(previous.id); // stamped fields are the system's, not shown to the model
  });

  it('keeps the tasks of the previous version when the refined reply labels none', async () => {
    const previous = rankingPlan(LLM_GOAL);
    expect(previous.tasks).toHaveLength(2);
    const refined = {
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [
        {
          title: 'Rejected contaminated shipments',
          tool: 'shipments',
          params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true, status: 'rejected' },
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
    await harness.start({ script: [JSON.stringify(refined)] });
    const { plan } = await generate({
      request: request(`${LLM_GOAL}, only the rejected ones`),
      stamp: { ...STAMP, version: 2 },
      refinement: { previous, feedback: ['step 1.1: also filter by status rejected'] },
    });

    expect(plan.tasks.map((t) => [t.title, t.depends_on, t.steps.map((s) => s.tool)])).toEqual([
      ['Get last week contaminated shipments', [], ['shipments']],
      ['The contaminants found in them', ['1'], ['contaminants-detected']],
    ]);
    expect(plan.tasks[0]!.steps[0]!.params.status).toBe('rejected');
  });
});

describe('LlmPlanner: usage', () => {
  it('records usage for every call, failed attempts included, with cached tokens billed at the cached rate', async () => {
    await harness.start({
      script: [
        { content: 'oops', usage: { prompt_tokens: 1000, completion_tokens: 10, cached_tokens: 0 } },
        { content: planReply(), usage: { prompt_tokens: 1200, completion_tokens: 200, cached_tokens: 1000 } },
      ],
    });
    const { llm_calls } = await generate();

    expect(llm_calls.map(({ cost_usd: _cost, ...tokens }) => tokens)).toEqual([
      { model: MODEL, prompt_tokens: 1000, completion_tokens: 10, cached_tokens: 0 },
      { model: MODEL, prompt_tokens: 1200, completion_tokens: 200, cached_tokens: 1000 },
    ]);
    // gpt-4o-mini: 0.15 input, 0.075 cached input, 0.6 output per 1M tokens
    expect(llm_calls[0]!.cost_usd).toBeCloseTo((1000 * 0.15 + 10 * 0.6) / 1e6, 12);
    expect(llm_calls[1]!.cost_usd).toBeCloseTo((200 * 0.15 + 1000 * 0.075 + 200 * 0.6) / 1e6, 12);
  });

  it('sees the retry prefix served from the (simulated) prompt cache', async () => {
    await harness.start({ script: ['oops', planReply()] });
    const { llm_calls } = await generate();

    expect(llm_calls[0]!.cached_tokens).toBe(0);
    const prefixTokens = harness.messages(0).reduce((sum, m) => sum + Math.ceil(m.content.length / 4), 0);
    expect(llm_calls[1]!.cached_tokens).toBe(prefixTokens);
    expect(llm_calls[1]!.prompt_tokens).toBeGreaterThan(prefixTokens);
  });
});

describe('LlmPlanner: provider errors', () => {
  it('maps a 500 to a retryable LlmCallError', async () => {
    await harness.start({ script: [{ status: 500, message: 'upstream exploded' }] });
    const error = await caught(generate());
    expect(error).toBeInstanceOf(LlmCallError);
    expect(error.code).toBe('PLAN-005');
    expect(error.retryable).toBe(true);
    expect(error.details.status).toBe(500);
    expect(harness.server.calls).toBe(1); // the SDK does not retry: Temporal does
  });

  it('maps a 401 to a non-retryable LlmCallError that says to check the key', async () => {
    await harness.start({ script: [{ status: 401, message: 'Incorrect API key provided' }] });
    const error = await caught(generate());
    expect(error).toBeInstanceOf(LlmCallError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('Incorrect API key provided');
  });

  it('keeps the usage of earlier attempts on a provider error in the middle of the conversation', async () => {
    await harness.start({ script: ['oops', { status: 503 }] });
    const error = await caught(generate());
    expect(error).toBeInstanceOf(LlmCallError);
    expect(error.retryable).toBe(true);
    expect(error.details.llm_calls).toHaveLength(1);
  });
});

describe('prompt examples', () => {
  it('the plan example in the system prompt is a valid plan draft once completed by the system', () => {
    const stamp = {
      id: STAMP.id,
      version: 1,
      goal: 'example',
      metadata: { planner: 'llm' as const, model: null, temperature: null, created_at: STAMP.created_at },
    };
    const plan = parsePlanReply(JSON.stringify(PLAN_EXAMPLE), stamp, []);
    expect(plan.tasks[0]!.steps.map((s) => [s.id, s.depends_on])).toEqual([
      ['1.1', []],
      ['1.2', [0]],
    ]);
  });

  it('the requirements example is valid requirements', () => {
    expect(parseRequirementsJson(JSON.stringify(REQUIREMENTS_EXAMPLE)).is_clear).toBe(false);
  });
});
