/**
 * A run's LLM settings (options.llm) on the real dev server with the LLM pair against the scripted server: every
 * LLM call of the run (analysis, plan, pre-mortem) goes out with the run's temperature and max_tokens and as a
 * structured output of its own schema; settings out of range fail the run at once with PLAN-006.
 */
import { planningWorkflow } from '../../src/workflows';
import { failureOfRun } from '../support/temporal';
import { planReply } from '../support/llm';
import { startTestPlanner, useWastePackAndClient, type TestPlanner } from '../support/planner-workers';
import { plannerReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';

const fixtures = useWastePackAndClient();
let llm: ScriptedLlmServer;
let planner: TestPlanner;
beforeAll(async () => {
  llm = await startScriptedLlmServer({
    reply: plannerReplies({
      steps: ['Fetch contaminated shipments', 'Fetch their contaminants'],
      capabilities: ['shipments', 'contaminants-detected'],
      plan: () => planReply(),
    }),
  });
  planner = await startTestPlanner(fixtures.pack(), {
    prefix: 'llm-settings',
    // Every kind of call is made (analysis, plan, pre-mortem), even where the rules would suffice.
    env: {
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'test-key',
      PLANNER_LLM_ANALYSIS: 'always',
      PLANNER_LLM_PREMORTEM: 'always',
      PLANNER_LLM_PLAN: 'always',
    },
  });
});
afterAll(async () => {
  await planner?.stop();
  await llm?.close();
});

let n = 0;
const start = (options: Record<string, unknown>) =>
  fixtures.client().workflow.start(planningWorkflow, {
    taskQueue: planner.taskQueue,
    workflowId: `llm-settings-${n++}-${planner.taskQueue}`,
    args: [{ request: { goal: "Get last week's contaminated shipments and their contaminants" }, options }],
  });

test("every LLM call of the run uses the run's temperature and max_tokens, each as a structured output", async () => {
  const before = llm.calls;
  const outcome = await (await start({ llm: { temperature: 0.65, max_tokens: 700 } })).result();
  expect(outcome.stage).toBe('COMPLETED');
  const bodies = llm.requests.slice(before).map((r) => r.body);
  const names = bodies.map((b) => (b.response_format as { json_schema?: { name: string } }).json_schema?.name);
  // The first plan is the model's review of the ranking planner's draft (a verdict, then the plan if revised).
  expect(names).toEqual(['requirements', 'plan_review', 'critiques']);
  expect(bodies.map((b) => [b.temperature, b.max_tokens])).toEqual([
    [0.65, 700],
    [0.65, 700],
    [0.65, 700],
  ]);
});

test('LLM settings out of range fail the run at once with PLAN-006', async () => {
  const failure = await failureOfRun(await start({ llm: { attempts: 0 } }));
  expect(failure).toMatchObject({ code: 'PLAN-006' });
  expect(failure!.message).toContain('llm.attempts');
});
