/**
 * A run whose answer comes back empty on a value the goal does not say re-plans once with that value named, and a
 * run whose answer is still empty completes saying what it asked and that nothing matched: never a silent COMPLETED
 * on a guess. A lending library's search (a domain the rules were not written for), the LLM planner scripted.
 */
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { getStateQuery } from '../../src/api';
import { defineTool, defineToolPack } from '../../src/tools/define-tool';
import { planningWorkflow } from '../../src/workflows';
import { planDetails } from '../../src/workflows/details';
import { startTestPlanner } from '../support/planner-workers';
import {
  scriptedPlans,
  startScriptedLlmServer,
  toolStep,
  type ScriptedLlmServer,
} from '../support/scripted-llm-server';
import { connectClient } from '../support/temporal';

const BOOKS = [
  { id: 'B-1', title: 'Moby-Dick, or the Whale' },
  { id: 'B-2', title: 'The Whale Road' },
  { id: 'B-3', title: 'A History of Lighthouses' },
];

const library = defineToolPack('library', [
  defineTool({
    name: 'search_books',
    description: 'Search the catalogue: books whose title contains the query words.',
    params: z.object({ query: z.string().min(1).describe('Words to look for in titles') }),
    result: z.array(z.object({ id: z.string(), title: z.string() })),
    idempotent: true,
    tags: ['book', 'title', 'search'],
    run: async ({ query }) => BOOKS.filter((b) => b.title.toLowerCase().includes(query.toLowerCase())),
  }),
]);

let client: Client;
let llm: ScriptedLlmServer;
const plans = scriptedPlans({
  steps: ['Search the catalogue'],
  capabilities: ['search_books'],
  task: 'Find the books',
});
/** The plans of the next plan requests, a search for each query in turn (the last one repeats). */
const searches = (...queries: string[]) =>
  plans.set(...queries.map((query) => [toolStep('1.1', 'search_books', { query })]));

beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: plans.reply });
  client = await connectClient();
});

afterAll(async () => {
  await llm?.close();
  await client?.connection.close();
});

async function run(id: string, goal: string, options: Record<string, unknown> = {}) {
  const planner = await startTestPlanner(library, { prefix: 'empty', env: llm.env });
  try {
    const handle = await client.workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `${id}-${planner.taskQueue}`,
      args: [{ request: { goal, tool_catalog: 'library', planner: 'llm' }, options }],
    });
    const outcome = await handle.result();
    return { outcome, state: await handle.query(getStateQuery) };
  } finally {
    await planner.stop();
  }
}

test('an empty answer on a query the goal does not say re-plans once, naming it; the new plan finds the books', async () => {
  searches('cetaceans', 'whale');
  const { outcome, state } = await run('replan', 'Find the books about the whale');
  expect(state.versions.map((v) => v.reason)).toEqual(['initial', 'replan_after_failure']);
  expect(state.versions[0]!.unsaid).toEqual([{ step_id: '1.1', param: 'query', value: 'cetaceans' }]);
  expect(state.versions[1]!.explanation).toMatch(
    /step 1\.1 \(search_books\) returned no rows with query="cetaceans", which the goal does not say/,
  );
  expect(state.versions[1]!.unsaid).toBeUndefined(); // "whale" is the user's word
  expect(outcome.stage).toBe('COMPLETED');
  expect(outcome.steps.at(-1)!.items).toBe(2);
  expect(outcome.answer_note).toBeNull();
});

test('an answer still empty after that one re-plan completes with a note of what was asked, in the outcome and the Web UI details', async () => {
  searches('cetaceans', 'leviathans');
  const { outcome, state } = await run('still-empty', 'Find the books about the whale', { max_replans: 3 });
  expect(state.versions).toHaveLength(2); // once, not until re-plans run out
  expect(outcome.stage).toBe('COMPLETED');
  expect(outcome.answer_note).toBe(
    'Nothing matched: step 1.1 (search_books) with query="leviathans" returned no rows.',
  );
  expect(planDetails(state)).toContain(`**Answer:** ${outcome.answer_note}`);
});

test("an empty answer on the goal's own words is the answer: no re-plan", async () => {
  searches('submarine');
  const { outcome, state } = await run('said', 'Find the books with submarine in the title');
  expect(state.versions.map((v) => v.reason)).toEqual(['initial']);
  expect(outcome.answer_note).toBe('Nothing matched: step 1.1 (search_books) with query="submarine" returned no rows.');
});
