/**
 * Nothing is lost or paid for twice: the LLM planner (against a chat-completions server on 127.0.0.1 that counts
 * requests) plans a side-effecting step; the worker is SIGKILLed after the plan exists and while the step runs,
 * after its effect. A new worker finishes the run: no planning call repeated, the effect applied once, the budget
 * equal to the sum of completed calls, and the plan still version 1.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { LocalContentStore } from '../../src/store/content-store';
import { getStateQuery } from '../../src/api';
import { planningWorkflow } from '../../src/workflows';
import { oneSlowStepReplies, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server';
import { withCrashDrill } from '../support/planner-process';
import { connectClient, waitFor } from '../support/temporal';

const llmReply = oneSlowStepReplies('record-note', 'Record the note', {
  text: 'crash-proof note',
  delay_after_ms: 4000,
});

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

test('SIGKILL after planning, mid-step: no repeated LLM call, effect once, budget = settled calls, same plan version', async () => {
  await withCrashDrill({ prefix: 'crash', llm }, async ({ taskQueue, env, crash }) => {
    const handle = await client.workflow.start(planningWorkflow, {
      taskQueue,
      workflowId: `crash-${taskQueue}`,
      args: [
        {
          request: { goal: 'Record a crash-proof note', tool_catalog: 'demo', planner: 'llm' },
          options: { step_heartbeat_ms: 1_500 },
        },
      ],
    });
    const notesFile = path.join(env.NOTES_DIR!, 'notes.jsonl');
    await waitFor(
      () => existsSync(notesFile) && readFileSync(notesFile, 'utf8').trim().length > 0,
      60_000,
      'the side effect',
    );
    const before = await handle.query(getStateQuery);
    expect(before.stage).toBe('EXECUTING');
    expect(before.steps[0]!.status).toBe('RUNNING');
    const llmCallsBefore = llm.calls;
    // The plan and its pre-mortem (the step has side effects); the rules analysed this clear goal alone.
    expect(llmCallsBefore).toBe(2);

    await crash();
    const outcome = await handle.result();

    expect(outcome.stage).toBe('COMPLETED');
    expect(llm.calls).toBe(llmCallsBefore);
    expect(readFileSync(notesFile, 'utf8').trim().split('\n')).toHaveLength(1);
    const state = await handle.query(getStateQuery);
    expect(state.plan!.version).toBe(1);
    expect(state.versions).toHaveLength(1);
    // The LLM conversation that produced the plan is kept out of history, by reference, and can be read back.
    const transcript = (await new LocalContentStore(env.PLANNER_STORE_DIR!).get(
      state.versions[0]!.transcript_ref!,
    )) as { role: string }[];
    expect(transcript.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    // Every settled call charged exactly once: the two LLM calls the server saw and the one tool call.
    expect(state.audit.filter((a) => a.kind === 'budget')).toHaveLength(3);
    expect(state.budget.spent.calls).toBe(llm.calls + 1);
    expect(state.steps[0]!.result!.replayed).toBe(false); // the tool saw its key in the notes file and did not append
  });
});
