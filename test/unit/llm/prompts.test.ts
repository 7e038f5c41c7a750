/**
 * The prompts' shape that prompt caches depend on: analysis, planning and the pre-mortem send one system prompt per
 * catalog, byte for byte, and the role and the request come after it, in the user message.
 */
import { systemPrompt } from '../../../src/llm/prompts';
import { LlmAnalyzer } from '../../../src/planners/analyze/llm-analyzer';
import { PremortemCritic } from '../../../src/planners/critique/premortem-critic';
import { LlmPlanner } from '../../../src/planners/generate/llm-planner';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { FILES_CATALOG } from '../../support/files-catalog';
import { LLM_GOAL, LlmHarness, planReply, requirements } from '../../support/llm';
import { request, STAMP } from '../../support/planning';

const harness = new LlmHarness();
afterEach(() => harness.close());

const analysisReply = JSON.stringify({
  is_clear: true,
  clarification: null,
  steps: ['Fetch contaminated shipments of the period', 'Fetch the contaminants detected in those shipments'],
  required_capabilities: ['shipments', 'contaminants-detected'],
  intent: { type: 'query', confidence: 0.9 },
});

/** One run's three LLM calls, in the order a run makes them (analysis, plan, pre-mortem): the cached tokens of each. */
async function analysePlanAndReview(): Promise<number[]> {
  await harness.start({ script: [analysisReply, planReply(), JSON.stringify({ critiques: [] })] });
  const analysis = await new LlmAnalyzer(harness.client, { calls: 'always' }).analyze({
    request: request(LLM_GOAL),
    catalog,
  });
  const planning = await new LlmPlanner(harness.client).generate({
    request: request(LLM_GOAL),
    requirements,
    catalog,
    stamp: STAMP,
  });
  const review = await new PremortemCritic(harness.client, { calls: 'always' }).review(planning.plan, {
    request: request(LLM_GOAL),
    catalog,
  });
  return [analysis, planning, review].flatMap((r) => r.llm_calls.map((call) => call.cached_tokens));
}

describe('the system prompt', () => {
  it('is the same bytes for analysis, planning and the pre-mortem, so each call finds the one before cached', async () => {
    const cached = await analysePlanAndReview();

    expect(harness.server.requests).toHaveLength(3);
    const shared = { role: 'system', content: systemPrompt(catalog) };
    for (const i of [0, 1, 2]) expect(harness.messages(i)[0]).toEqual(shared);
    // The scripted server counts the messages an earlier request began with as cached, as a provider's cache does.
    expect(cached).toHaveLength(3);
    expect(cached[0]).toBe(0);
    expect(cached[1]).toBeGreaterThanOrEqual(shared.content.length / 4);
    expect(cached[2]).toBeGreaterThanOrEqual(shared.content.length / 4);
  });

  it("names no role's request: the role, the goal and the run's data come after it, in the user message", async () => {
    await analysePlanAndReview();

    const system = harness.messages(0)[0]!.content;
    expect(system).not.toContain(LLM_GOAL);
    expect(system).not.toContain('Now:');
    const roles = ['Role: analyst', 'Role: planner', 'Role: pre-mortem critic'];
    roles.forEach((role, i) => {
      const user = harness.messages(i)[1]!.content;
      expect(user.startsWith(`${role} (`)).toBe(true);
      expect(user.indexOf(`Goal: ${LLM_GOAL}`)).toBeGreaterThan(0);
    });
  });

  it("holds the catalog first, then every role's rules and reply format, the analyst's last", () => {
    for (const tools of [catalog, FILES_CATALOG]) {
      const system = systemPrompt(tools);
      const catalogEnd = Math.max(...tools.map((t) => system.indexOf(`### ${t.name}\n${t.description}`)));
      const sections = [
        '# Role: planner',
        '## Planner rules',
        '## Plan format',
        '# Role: pre-mortem critic',
        '## Critic rules',
        '## Critique format',
        '# Role: analyst',
        '## Analyst rules',
        '## Requirements format',
      ].map((heading) => system.indexOf(heading));
      expect(Math.min(...tools.map((t) => system.indexOf(`### ${t.name}`)))).toBeGreaterThan(0);
      expect(sections[0]).toBeGreaterThan(catalogEnd);
      expect(sections.every((pos, i) => i === 0 || pos > sections[i - 1]!)).toBe(true);
    }
  });
});
