/**
 * `llm`: a language model writes text (summarize, answer) from its dependencies' results, by reference, in the
 * `runLlmStep` activity on the planner's queue (./activities.ts), charged like any LLM call.
 */
import { z } from 'zod';
import { defineStepKind } from '../kind';
import type { LlmStepActivities } from './activities';

export const llmStep = defineStepKind({
  name: 'llm',
  params: z.looseObject({ instruction: z.string().min(1).max(10_000).optional() }),
  callsLlm: true,
  draft: {
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['instruction'],
      properties: { instruction: { type: 'string', minLength: 1, maxLength: 2000 } },
    },
    rule: '{"action": "llm", "params": {"instruction": "..."}} has a language model write text (summarize, answer) from the data of the steps in its depends_on',
  },
  async run(step, ctx) {
    const instruction =
      typeof step.params.instruction === 'string' ? step.params.instruction : step.description || step.title;
    const { runLlmStep } = ctx.activities<LlmStepActivities>(`step ${step.id}: llm — ${step.title}`.slice(0, 200));
    const { llm_calls, ...result } = await runLlmStep({
      workflow_id: ctx.workflowId,
      step_id: step.id,
      goal: ctx.goal,
      // Cut to the activity's input bounds: an over-long title must not fail the step.
      title: step.title.slice(0, 1_000),
      instruction: instruction.slice(0, 10_000),
      expected_output: step.expected_output.slice(0, 2_000),
      inputs: ctx.inputs(),
      max_input_tokens: ctx.option('llm_step_input_tokens'),
    });
    ctx.complete(result, `${llm_calls.length} LLM call(s), ${result.bytes} bytes`);
  },
});
