/**
 * The eval harness (bench/eval-harness.ts) on its smoke goals, against the scripted chat-completions server: every
 * goal goes through a whole planning run on the real dev server (planning as of the eval's pinned day, over waste
 * data seeded for it), and the figures come from the run's state and history. The scripted model plans each smoke
 * goal as a good model would, so the harness must report them all as expected and with the golden set's gold answer,
 * one LLM call per plan generation; a wrong status or unnamed missing capability is judged a miss.
 */
import path from 'node:path';
import { executeGold } from '../../bench/eval-gold';
import {
  EVAL_DAY,
  judge,
  loadGoldenSet,
  runGoal,
  summarize,
  type GoalResult,
  type GoldenGoal,
} from '../../bench/eval-harness';
import { rowsOf } from '../../bench/eval-scoring';
import { projectRoot } from '../../src/project-root';
import { LocalContentStore } from '../../src/store/content-store';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';
import {
  promptKind,
  startScriptedLlmServer,
  type ChatRequestBody,
  type ScriptedLlmServer,
} from '../support/scripted-llm-server';

const SMOKE = loadGoldenSet(path.join(projectRoot(), 'bench/eval-goals.json')).filter((g) => g.smoke);

const step = (title: string, tool: string, params: Record<string, unknown>, depends_on: number[] = []) => ({
  title,
  tool,
  params,
  depends_on,
});

/** Last week as of the eval's pinned day (Wednesday 2026-06-10): Monday to Sunday. */
const lastWeek = { date_from: '2026-06-01', date_to: '2026-06-07' };

/** The plan draft a good model writes for each smoke goal, told by the goal's words. */
function planFor(goal: string): Record<string, unknown> {
  const plan = (status: string, steps: ReturnType<typeof step>[], missing: string[] = []) => ({
    status,
    missing_capabilities: missing,
    steps,
  });
  if (goal.includes('Hannover'))
    return plan('FEASIBLE', [step('Hannover facilities', 'facilities', { location: 'Hannover' })]);
  if (goal.includes('email'))
    return plan(
      'PARTIAL',
      [step('Contaminated shipments', 'shipments', { ...lastWeek, has_contaminants: true })],
      ['sending email'],
    );
  if (goal.includes('bins')) return plan('IMPOSSIBLE', [], ['ordering from a supplier']);
  if (goal.includes('contaminant details')) {
    return plan('FEASIBLE', [
      step('Contaminated shipments', 'shipments', { ...lastWeek, has_contaminants: true }),
      step('Their contaminants', 'contaminants-detected', { shipment_ids: '${step[0].data.*.id}' }, [0]),
    ]);
  }
  return plan('FEASIBLE', [step('Shipments of last week', 'shipments', lastWeek)]);
}

function reply(body: ChatRequestBody): string {
  const kind = promptKind(body);
  const user = body.messages[1]?.content ?? '';
  const goal = /^Goal: (.*)$/m.exec(user)?.[1] ?? '';
  if (kind === 'premortem') return JSON.stringify({ critiques: [] });
  if (kind === 'plan') return JSON.stringify(planFor(goal));
  const vague = goal === 'Check the reports' && !user.includes('Conversation so far');
  return JSON.stringify({
    is_clear: !vague,
    clarification: vague
      ? { question: 'Which report?', options: ['Shipments from last week', 'Inspections'], default_option: 0 }
      : null,
    steps: ['Fetch the data'],
    required_capabilities: ['shipments'],
    intent: { type: 'query', confidence: 0.9 },
  });
}

describe('the eval harness on its smoke goals (scripted LLM)', () => {
  const fixtures = useWastePackAndClient(EVAL_DAY);
  let llm: ScriptedLlmServer;
  beforeAll(async () => {
    llm = await startScriptedLlmServer({ reply });
  });
  afterAll(async () => {
    await llm.close();
  });

  it('carries every smoke goal through a run and reports them all as expected and with the gold answer, one LLM call per plan generation', async () => {
    expect(SMOKE.map((g) => g.kind).sort()).toEqual(['feasible', 'feasible', 'impossible', 'partial', 'vague']);
    expect(SMOKE.filter((g) => !g.gold)).toEqual([]);
    const goldData = await executeGold(SMOKE, [fixtures.pack()]);
    const planner = await startTestPlanner(fixtures.pack(), {
      prefix: 'eval',
      env: llm.env,
    });
    const store = new LocalContentStore(planner.storeDir);
    const results: GoalResult[] = [];
    try {
      for (const goal of SMOKE) {
        results.push(
          await runGoal(goal, {
            client: fixtures.client(),
            taskQueue: planner.taskQueue,
            timeoutMs: 60_000,
            pollMs: 200,
            readStored: (ref) => store.get(ref),
            goldData,
          }),
        );
      }
    } finally {
      await planner.stop();
    }
    expect(results.map((r) => [r.id, r.answer_right, r.expected, r.answer_outcome])).toEqual(
      SMOKE.map((g) => [g.id, true, true, expect.any(String)]),
    );
    expect(
      results.map((r) => [r.plan_nodes_f1, r.plan_edges_f1, r.constraint_coverage, r.valid, r.unverified_id_literal]),
    ).toEqual(SMOKE.map((g) => [1, 1, g.constraints.length > 0 ? 1 : null, true, false]));
    // Every gold call returned rows: a right answer is rows the run returned too, not two empty sets.
    expect(SMOKE.flatMap((g) => goldData.get(g.id)!.map((data) => rowsOf(data).length)).every((rows) => rows > 0)).toBe(
      true,
    );
    expect(results.find((r) => r.kind === 'vague')!.asked_question).toBe(true);
    expect(results.find((r) => r.kind === 'impossible')).toMatchObject({
      stage: 'FAILED',
      plan_status: 'IMPOSSIBLE',
      steps: 0,
    });
    expect(results.find((r) => r.kind === 'partial')).toMatchObject({
      stage: 'COMPLETED',
      plan_status: 'PARTIAL',
      tools: ['shipments'],
    });
    // Analysis (twice for the vague goal: before and after its answer), plan and pre-mortem are the LLM calls.
    for (const r of results) expect(r.activities.map((a) => a.activity)).toContain('generatePlan');
    const totals = summarize(results, 1);
    expect(totals).toMatchObject({
      goals: SMOKE.length,
      answer_graded: SMOKE.length,
      share_answer_right: 1,
      expected: SMOKE.length,
      share_expected: 1,
      clear_goals_asked: 0,
    });
    expect(totals).toMatchObject({ plan_generations: SMOKE.length, mean_llm_calls_per_plan_generation: 1 });
    expect(totals.mean_tokens_per_run).toBeGreaterThan(0);
    expect(totals.p50_planning_latency_s).not.toBeNull();
    expect(results.reduce((sum, r) => sum + r.llm_calls, 0)).toBe(llm.calls);
  });

  /** Runs the smoke goal f01 on a planner whose scripted model answers plan prompts with `planReply`. */
  async function runF01(prefix: string, planReply: (body: ChatRequestBody) => string | undefined) {
    const goal = SMOKE.find((g) => g.id.startsWith('f01'))!;
    const scripted = await startScriptedLlmServer({ reply: (body) => planReply(body) ?? reply(body) });
    const planner = await startTestPlanner(fixtures.pack(), { prefix, env: scripted.env });
    const store = new LocalContentStore(planner.storeDir);
    try {
      return await runGoal(goal, {
        client: fixtures.client(),
        taskQueue: planner.taskQueue,
        timeoutMs: 60_000,
        pollMs: 200,
        readStored: (ref) => store.get(ref),
      });
    } finally {
      await planner.stop();
      await scripted.close();
    }
  }

  it('records why plan replies were sent back: each refused reply and its errors, read from the stored conversation', async () => {
    let planCalls = 0;
    const invented = JSON.stringify({
      status: 'FEASIBLE',
      missing_capabilities: [],
      steps: [step('Facilities', 'facility-finder', { city: 'Hannover' })],
    });
    const result = await runF01('eval-rej', (body) =>
      promptKind(body) === 'plan' && planCalls++ === 0 ? invented : undefined,
    );
    expect(result).toMatchObject({
      expected: true,
      plan_generations: [expect.objectContaining({ llm_calls: 2, ok: true })],
    });
    expect(result.rejections).toEqual([
      `reply: ${invented}`,
      expect.stringMatching(/^\[UNKNOWN_TOOL\] .*facility-finder/),
      expect.stringMatching(
        /^\[UNBOUND_CONSTRAINT\] the goal says "Hannover", but no step passes "Hannover" \(fix: .*facilities\.location/,
      ),
    ]);
    expect(result.activities[0]).not.toHaveProperty('transcript_ref');
  });

  it("records every refused reply where the rules' plan stood after the model's attempts ran out, the last one's errors too", async () => {
    const result = await runF01('eval-given-up', (body) => (promptKind(body) === 'plan' ? 'not json' : undefined));
    // The rules' plan completed the goal; the three refused calls are on record with why each was refused.
    expect(result).toMatchObject({
      expected: true,
      plan_generations: [expect.objectContaining({ llm_calls: 3, ok: true })],
    });
    expect(result.rejections.filter((line) => line === 'reply: not json')).toHaveLength(3);
    expect(result.rejections.filter((line) => line.startsWith('[PLAN-00'))).toHaveLength(3);
  });

  it('judges a wrong status, an unnamed missing capability and an unfinished run as misses', () => {
    const goal = (g: Partial<GoldenGoal>): GoldenGoal => ({
      id: 'x',
      kind: 'partial',
      goal: 'x',
      catalog: 'waste',
      smoke: false,
      expected_tools: [],
      expected_missing: [['email', 'mail']],
      constraints: [],
      held_out: false,
      ...g,
    });
    const plan = (status: 'FEASIBLE' | 'PARTIAL' | 'IMPOSSIBLE', missing: string[]) =>
      ({ status, missing_capabilities: missing }) as never;
    expect(judge(goal({}), { stage: 'COMPLETED', plan: plan('PARTIAL', ['Sending E-Mail']) }).expected).toBe(true);
    expect(judge(goal({}), { stage: 'COMPLETED', plan: plan('FEASIBLE', []) })).toEqual({
      expected: false,
      outcome: 'plan FEASIBLE, expected PARTIAL (COMPLETED)',
    });
    expect(judge(goal({}), { stage: 'COMPLETED', plan: plan('PARTIAL', ['a printer']) })).toEqual({
      expected: false,
      outcome: 'missing capabilities do not name email',
    });
    expect(judge(goal({}), { stage: 'FAILED', plan: plan('PARTIAL', ['email']) })).toEqual({
      expected: false,
      outcome: 'plan PARTIAL but run FAILED',
    });
    expect(judge(goal({ kind: 'feasible', expected_missing: [] }), { stage: 'FAILED', plan: null }).expected).toBe(
      false,
    );
  });
});
