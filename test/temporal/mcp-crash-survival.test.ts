/**
 * The crash drill with an MCP tool (issue 13, finding 2): the LLM planner plans one call of `apply_effect`, a
 * side-effecting tool of a real stdio MCP server (test/fixtures/effect-mcp-server.ts, no idempotentHint) that
 * appends one line per effect. The worker is SIGKILLed after the effect and before the reply; a new worker takes
 * the retry. Nothing is repeated:
 *   - the plain server (cannot dedupe): the retry finds the step's intent without an outcome and does not call again;
 *     the step fails with StepOutcomeUnknownError (PLAN-014, non-retryable) and, with no re-plans allowed and
 *     `on_outcome_unknown: replan` (the default `ask` would wait for a person), so does the run: at-most-once, one line;
 *   - the server that honours the `_meta` idempotency key: the retry calls again with the same key, the server
 *     answers from its record: exactly-once, one line, the run COMPLETED.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getStateQuery, readFailure } from '../../src/api';
import { isTerminal } from '../../src/domain/stages';
import { planningWorkflow } from '../../src/workflows';
import { oneSlowStepReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { withCrashDrill } from '../support/planner-process';
import { connectClient, waitFor } from '../support/temporal';

const llmReply = oneSlowStepReplies('apply_effect', 'Apply the effect', { text: 'exactly one', delay_after_ms: 4000 });

let llm: ScriptedLlmServer;
let client: Client;
beforeAll(async () => {
  llm = await startScriptedLlmServer({ reply: llmReply });
  client = await connectClient();
});
afterAll(async () => {
  await llm?.close();
  await client?.connection.close();
});

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
}

/** Starts a run, SIGKILLs its worker once the effect is in the file (the reply 4 s away), and lets a new worker finish. */
async function drill(honourKeys: boolean) {
  const effects = path.join(mkdtempSync(path.join(os.tmpdir(), 'effects-')), 'effects.jsonl');
  const env = { MCP_EFFECTS_FILE: effects, MCP_HONOUR_KEYS: honourKeys ? '1' : '' };
  return await withCrashDrill(
    { prefix: honourKeys ? 'mcp-crash-keyed' : 'mcp-crash', llm, env },
    async ({ taskQueue, crash }) => {
      const handle = await client.workflow.start(planningWorkflow, {
        taskQueue,
        workflowId: `mcp-crash-${taskQueue}`,
        args: [
          {
            request: { goal: 'Apply the effect exactly once', tool_catalog: 'effects', planner: 'llm' },
            options: { step_heartbeat_ms: 1_500, max_replans: 0, on_outcome_unknown: 'replan' },
          },
        ],
      });
      await waitFor(() => lines(effects).length > 0, 60_000, 'the side effect');
      expect((await handle.query(getStateQuery)).steps[0]!.status).toBe('RUNNING');
      await crash();
      // The state as the run ends (queried while it is open); then its outcome or typed failure.
      let state = await handle.query(getStateQuery);
      await waitFor(
        async () => isTerminal((state = await handle.query(getStateQuery)).stage),
        90_000,
        'the run to end',
      );
      const failure = await handle.result().then(
        () => null,
        (err: unknown) => readFailure(err),
      );
      return { failure, state, effects: lines(effects) };
    },
  );
}

jest.setTimeout(240_000);

test('a side-effecting MCP tool that cannot dedupe: SIGKILL between effect and reply → one effect, then outcome unknown', async () => {
  const { failure, state, effects } = await drill(false);
  expect(effects).toHaveLength(1);
  expect(state.stage).toBe('FAILED');
  expect(failure).toMatchObject({ type: 'StepFailedError', code: 'PLAN-008' });
  expect(state.steps[0]!.error).toMatchObject({ type: 'StepOutcomeUnknownError', code: 'PLAN-014' });
});

test('a side-effecting MCP tool that honours the _meta idempotency key: SIGKILL between effect and reply → exactly one effect, COMPLETED', async () => {
  const { failure, state, effects } = await drill(true);
  expect(effects).toHaveLength(1);
  expect(failure).toBeNull();
  expect(state.stage).toBe('COMPLETED');
  expect(state.steps[0]!.result!.data).toMatchObject({ text: 'exactly one', line: 1 });
  expect(JSON.parse(effects[0]!)).toMatchObject({ key: state.steps[0]!.result!.idempotency_key });
});
