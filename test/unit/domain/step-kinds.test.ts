/**
 * The step-kind registry (src/step-kinds) is the one list the plan schema, validation and the LLM planner's draft
 * read: every registered kind is a step action, its params are checked with its own schema, a kind that calls the
 * LLM runs only where the run plans with one, and the draft offers the kinds that describe themselves to it.
 */
import { ACTION_TYPES } from '../../../src/domain/plan';
import { DRAFT_STEP_KINDS, planDraftJsonSchema } from '../../../src/domain/plan-draft';
import { planIssues, runnableStepKinds } from '../../../src/domain/validation';
import { STEP_KINDS } from '../../../src/step-kinds';
import { planOfSteps } from '../../support/planning';

test('every registered kind is a step action, beside tool_call', () => {
  expect(ACTION_TYPES).toEqual(['tool_call', ...STEP_KINDS.map((k) => k.name)]);
});

test("a step's params are checked with its kind's schema (INVALID_PARAM); the ones it reads pass", () => {
  const plan = planOfSteps('Ask before shipping', [
    { action: 'human', params: { question: 42 } },
    { action: 'human', params: { question: 'Ship it?' } },
    { action: 'llm', params: { instruction: '' } },
  ]);
  const issues = planIssues(plan, { catalog: [] }).filter((i) => i.code === 'INVALID_PARAM');
  expect(issues.map((i) => [i.step_index, i.message.split(':')[0]])).toEqual([
    [0, 'step 0 ("1.1")'],
    [2, 'step 2 ("1.3")'],
  ]);
  expect(issues[0]!.message).toMatch(/human step params: question/);
});

test('a kind that calls the LLM runs only in a run that plans with one', () => {
  const llmKinds = STEP_KINDS.filter((k) => k.callsLlm).map((k) => k.name);
  expect(llmKinds).toEqual(['llm']);
  expect(runnableStepKinds('llm')).toEqual(ACTION_TYPES);
  expect(runnableStepKinds('ranking')).toEqual(ACTION_TYPES.filter((k) => !llmKinds.includes(k as 'llm')));
});

test("the LLM planner's draft offers each kind with a draft, with that kind's params schema", () => {
  expect(DRAFT_STEP_KINDS).toEqual(STEP_KINDS.filter((k) => k.draft).map((k) => k.name));
  const schema = JSON.stringify(planDraftJsonSchema([], 5, DRAFT_STEP_KINDS));
  for (const kind of STEP_KINDS) expect(schema).toContain(JSON.stringify(kind.draft!.params));
});
