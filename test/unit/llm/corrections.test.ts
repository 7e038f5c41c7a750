/**
 * The correction turns of a JSON conversation (askForJson) with the LLM planner over real HTTP: they name the
 * closest valid tools and the exact missing fields; a reply identical to a rejected one gets a different
 * instruction at a higher temperature, and a second repeat ends planning at once with PLAN-009. The worker's and
 * the run's LLM settings (temperature, attempts, max_tokens) decide how it is asked.
 */
import { PlanningExhaustedError, type PlannerError } from '../../../src/domain/errors';
import { LlmPlanner } from '../../../src/planners/generate/llm-planner';
import { WASTE_CATALOG as catalog } from '../../../src/tools/waste/catalog';
import { LLM_GOAL, LlmHarness, requirements } from '../../support/llm';
import { request, STAMP } from '../../support/planning';
import type { LlmSettings } from '../../../src/domain/llm-settings';

const harness = new LlmHarness();
afterEach(() => harness.close());

function generate(llm?: LlmSettings) {
  return new LlmPlanner(harness.client).generate({
    request: request(LLM_GOAL),
    requirements,
    catalog,
    stamp: STAMP,
    ...(llm ? { llm } : {}),
  });
}

const draft = (steps: unknown[], status = 'FEASIBLE') => JSON.stringify({ status, missing_capabilities: [], steps });
const good = draft([
  {
    title: 'Contaminated shipments',
    tool: 'shipments',
    params: { has_contaminants: true, date_from: '2026-11-16', date_to: '2026-11-22' },
    depends_on: [],
  },
]);
const invented = draft([
  { title: 'Contaminated shipments', tool: 'search_shipments', params: { has_contaminants: true }, depends_on: [] },
]);

async function caught(promise: Promise<unknown>): Promise<PlannerError> {
  return await promise.then(
    () => Promise.reject(new Error('expected a rejection')),
    (error: PlannerError) => error,
  );
}

describe('correction turns', () => {
  it('name the closest valid tool for an invented one', async () => {
    await harness.start({ script: [invented, good] });
    const { plan, llm_calls } = await generate();
    expect(plan.tasks[0]!.steps[0]!.tool).toBe('shipments');
    expect(llm_calls).toHaveLength(2);
    const correction = harness.messages(1).at(-1)!.content;
    expect(correction).toContain('unknown tool "search_shipments"');
    expect(correction).toContain('Did you mean "shipments"?');
  });

  it('name the exact missing field of a reply in the full plan format', async () => {
    const noSteps = JSON.stringify({
      status: 'FEASIBLE',
      tasks: [{ id: '1', title: 'Collect' }],
      complexity: 1,
      estimate: { cost_usd: 0, tokens: 0, calls: 1, duration_ms: 1 },
    });
    await harness.start({ script: [noSteps, good] });
    await generate();
    expect(harness.messages(1).at(-1)!.content).toContain(
      'tasks[0].steps: missing required field (array); add "steps"',
    );
  });

  it('do not send a repeated reply back as new: the instruction changes and the temperature rises', async () => {
    await harness.start({ script: [invented, ` ${invented}\n`, good] });
    const { llm_calls } = await generate();
    expect(llm_calls).toHaveLength(3);
    const [first, second, third] = harness.server.requests.map((r) => r.body);
    expect(second!.messages.at(-1)!.content).toMatch(/^Your reply could not be used/);
    expect(third!.messages.at(-1)!.content).toMatch(/^You sent the same reply again/);
    expect(first!.temperature).toBe(0.1);
    expect(second!.temperature).toBe(0.1);
    expect(third!.temperature).toBeCloseTo(0.5, 9);
  });

  it('stop with PLAN-009 at the second repeat, whatever attempts remain', async () => {
    await harness.start({ script: [invented, invented, invented, good] });
    const error = await caught(generate({ attempts: 6 }));
    expect(error).toBeInstanceOf(PlanningExhaustedError);
    expect(harness.server.calls).toBe(3);
    expect(error.details).toMatchObject({ repeated_replies: 2, attempts: 3 });
    expect(error.details.llm_calls).toHaveLength(3);
  });
});

describe('LLM settings', () => {
  it('the worker’s defaults set temperature, attempts and max_tokens; the run’s settings win', async () => {
    await harness.start(
      { script: [invented, good, invented] },
      { defaults: { temperature: 0.4, attempts: 2, max_tokens: 900 } },
    );
    await generate();
    expect(harness.server.requests.map((r) => [r.body.temperature, r.body.max_tokens])).toEqual([
      [0.4, 900],
      [0.4, 900],
    ]);

    const error = await caught(generate({ attempts: 1, temperature: 0.9 }));
    expect(error).toBeInstanceOf(PlanningExhaustedError);
    expect(harness.server.requests.slice(2).map((r) => [r.body.temperature, r.body.max_tokens])).toEqual([[0.9, 900]]);
  });
});
