/**
 * Coding goals: with a workspace_root the LLM planner sees the workspace's structure and the files most relevant to
 * the goal, within max_context_tokens, and the plan records what it saw.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPlanningDependencies } from '../../../src/activities';
import { createPlanningActivities } from '../../../src/activities/planning';
import { loadConfig } from '../../../src/config';
import type { Plan } from '../../../src/domain/plan';
import { MemoryContentStore } from '../../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';
import { analyze, request, STAMP } from '../../support/planning';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scripted-llm-server';

const IMPOSSIBLE = JSON.stringify({
  status: 'IMPOSSIBLE',
  missing_capabilities: ['a tool that edits source files'],
  tasks: [],
  complexity: 3,
  estimate: { cost_usd: 0, tokens: 0, calls: 0, duration_ms: 0 },
});

let llm: ScriptedLlmServer;
let root: string;
beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: () => IMPOSSIBLE });
  root = mkdtempSync(path.join(os.tmpdir(), 'workspace-'));
  mkdirSync(path.join(root, 'src', 'forms'), { recursive: true });
  mkdirSync(path.join(root, 'src', 'util'), { recursive: true });
  writeFileSync(
    path.join(root, 'src', 'forms', 'signup.ts'),
    'export function signupForm(email: string) {\n  return { email };\n}\n',
  );
  writeFileSync(
    path.join(root, 'src', 'util', 'math.ts'),
    `export const numbers = [${Array.from({ length: 400 }, (_, i) => i).join(', ')}];\n`,
  );
});
afterAll(() => llm.close());

test('the LLM planner is shown the relevant files within the token budget, and the plan records them', async () => {
  const config = loadConfig({ OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'k', PLANNER_WORKSPACE_ROOTS: root });
  const activities = createPlanningActivities(
    createPlanningDependencies({ config, store: new MemoryContentStore(), ledger: new MemoryIdempotencyLedger() }),
  );
  const goal = 'Add email validation to the signup form';
  const req = request(goal, {
    planner: 'llm',
    constraints: { max_steps: 20, workspace_root: root, max_context_tokens: 300 },
  });
  const { plan } = (await new MockActivityEnvironment().run(activities.generatePlan, {
    request: req,
    requirements: analyze(goal),
    stamp: STAMP,
  })) as {
    plan: Plan;
  };

  const prompt = llm.requests.at(-1)!.body.messages[1]!.content;
  expect(prompt).toContain('Workspace (its structure and the files most relevant to the goal)');
  expect(prompt).toContain('return { email };'); // signup.ts, the relevant file, in full
  expect(prompt).not.toContain('399'); // math.ts does not fit beside it
  expect(plan.status).toBe('IMPOSSIBLE');
  expect(plan.assumptions.at(-1)).toMatch(
    /^Planned with workspace context from .*: src\/forms\/signup\.ts \(full\).*; \d+ of 300 tokens \(o200k_base\)$/,
  );
});
