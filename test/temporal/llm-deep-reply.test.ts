/**
 * A hostile model's reply on the dev server (issue 33): a plan nesting 40,000 levels deep in 80 KB, under the size
 * limit, is refused as a typed parse error and corrected like any malformed reply, and every call it cost is charged.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { getStateQuery } from '../../src/api';
import { readFailure } from '../../src/api/failures';
import { PLAN_LIMITS } from '../../src/domain/plan';
import { MAX_JSON_ATTEMPTS } from '../../src/llm/json-conversation';
import { planningWorkflow } from '../../src/workflows';
import { startTestPlanner, useWastePackAndClient } from '../support/planner-workers';
import { plannerReplies, promptKind, startScriptedLlmServer } from '../support/scripted-llm-server';

const GOAL = 'Get contaminated shipments and show them';
const LEVELS = 40_000;
/** A plan draft whose one step's params hold an array nested 40,000 levels deep: 80 KB of brackets. */
const DEEP_PLAN = JSON.stringify({
  status: 'FEASIBLE',
  missing_capabilities: [],
  steps: [
    { title: 'Fetch contaminated shipments', tool: 'shipments', params: { has_contaminants: 'DEEP' }, depends_on: [] },
  ],
}).replace('"DEEP"', '['.repeat(LEVELS) + ']'.repeat(LEVELS));

const fixtures = useWastePackAndClient();

test('a reply nesting 40,000 levels is a typed parse error the model is asked to correct; the run fails PLAN-009 with every call charged', async () => {
  expect(DEEP_PLAN.length).toBeLessThan(PLAN_LIMITS.reply_chars);
  const llm = await startScriptedLlmServer({
    reply: plannerReplies({
      steps: ['Fetch contaminated shipments'],
      capabilities: ['shipments'],
      plan: () => DEEP_PLAN,
    }),
  });
  // Without the ranking planner's draft to fall back on, the model's replies are all the plan there is.
  const planner = await startTestPlanner(fixtures.pack(), {
    prefix: 'deep-reply',
    env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'test-key', PLANNER_LLM_DRAFT: 'none' },
  });
  try {
    const handle = await fixtures.client().workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `deep-reply-${planner.taskQueue}`,
      args: [{ request: { goal: GOAL, planner: 'llm' } }],
    });
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const failure = readFailure(err);
    expect(failure.code).toBe('PLAN-009');
    // each attempt was refused before parsing, and the correction told the model why
    const refusal = `[PLAN-001] plan nests objects and arrays deeper than the limit of ${PLAN_LIMITS.reply_depth} levels`;
    expect(failure.details.attempt_errors).toEqual(Array.from({ length: MAX_JSON_ATTEMPTS }, () => [refusal]));
    const plans = llm.requests.filter((r) => promptKind(r.body) === 'plan');
    expect(plans).toHaveLength(MAX_JSON_ATTEMPTS); // one conversation, not retried activities
    expect(plans.at(-1)!.body.messages.at(-1)!.content).toContain(refusal);

    const state = await handle.query(getStateQuery);
    expect(state.stage).toBe('FAILED');
    expect(state.budget.spent.calls).toBe(llm.requests.length); // the analysis and every plan attempt
    expect(state.budget.spent.tokens).toBeGreaterThan(MAX_JSON_ATTEMPTS * (DEEP_PLAN.length / 4)); // the deep replies' tokens among them
  } finally {
    await planner.stop();
    await llm.close();
  }
});
