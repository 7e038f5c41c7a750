/**
 * The `runLlmStep` activity: an `llm` step of a plan, on the planner's queue. Its dependencies' results arrive by
 * reference (content-store refs; small ones inline), are loaded here and fitted into the run's step-input token
 * budget (src/llm/step-prompt.ts), and one chat call answers the step's instruction over them. The answer is stored
 * like a tool result (ref, preview, data inlined when small); every call the provider answered is charged, through
 * the result's `usage` or, when the activity fails, its failure details (chargingEveryCall).
 */
import { log } from '@temporalio/activity';
import { z } from 'zod';
import { canonicalJson } from '../../domain/canonical-json';
import { InvalidInputError, WorkerFailureError, formatZodIssues } from '../../domain/errors';
import { usageOfLlmCalls, type LlmCallUsage } from '../../domain/llm-calls';
import { redactSecrets } from '../../domain/secrets';
import { INLINE_RESULT_BYTES, StepResultSchema, previewOf, type StepResult } from '../../domain/step-execution';
import type { LlmClient } from '../../llm/chat';
import { fitInputs, llmStepMessages } from '../../llm/step-prompt';
import type { ContentStore } from '../../store/content-store';
import type { IdempotencyLedger } from '../../store/idempotency';
import { withPlannerFailures } from '../../api/failures';
import { chargingEveryCall } from '../../activities/planning';

export const LlmStepInputSchema = z.object({
  workflow_id: z.string().min(1),
  step_id: z.string().min(1).max(64),
  goal: z.string().max(10_000),
  title: z.string().max(1_000),
  instruction: z.string().max(10_000),
  expected_output: z.string().max(2_000).default(''),
  /** Results of the steps this one depends on, by step index. */
  inputs: z.record(z.string(), StepResultSchema.pick({ ref: true, data: true })),
  max_input_tokens: z.number().int().min(100).max(200_000),
});
export type LlmStepInput = z.input<typeof LlmStepInputSchema>;

export interface LlmStepDependencies {
  /** Absent on a worker without an LLM: the activity then fails retryably, for a worker that has one. */
  client?: Pick<LlmClient, 'complete'>;
  store: ContentStore;
  ledger: IdempotencyLedger;
}

/** Deterministic: a step answers its instruction, it does not invent. */
const TEMPERATURE = 0;

export function createLlmStepActivities(deps: LlmStepDependencies) {
  async function runLlmStep(raw: LlmStepInput): Promise<StepResult & { llm_calls: LlmCallUsage[] }> {
    const parsed = LlmStepInputSchema.safeParse(raw);
    if (!parsed.success) {
      throw new InvalidInputError(
        'runLlmStep: invalid input',
        'The workflow sent input this worker does not understand; check that workflow and worker versions match.',
        {
          issues: formatZodIssues(parsed.error),
        },
      );
    }
    const input = parsed.data;
    const client = deps.client;
    if (!client) {
      throw new WorkerFailureError(
        'this run has an llm step but this worker has no LLM configured (set OPENAI_API_KEY / OPENAI_BASE_URL on it)',
        { step_id: input.step_id },
        { retryable: true },
      );
    }
    const texts = [];
    for (const [index, given] of Object.entries(input.inputs).sort(([a], [b]) => Number(a) - Number(b))) {
      const data = given.data !== undefined ? given.data : await deps.store.get(given.ref);
      texts.push({ label: `step ${index}`, ref: given.ref, text: JSON.stringify(data, null, 1) ?? 'null' });
    }
    const fitted = fitInputs(texts, input.max_input_tokens);
    for (const f of fitted.filter((i) => i.truncated)) {
      log.info(`llm step ${input.step_id}: ${f.label} cut to ${f.shown_tokens} of ${f.tokens} tokens`, {
        workflow_id: input.workflow_id,
        ref: f.ref,
      });
    }
    const { answer, llm_calls } = await chargingEveryCall(deps.ledger, async () => {
      const completion = await client.complete(llmStepMessages(input, fitted), { temperature: TEMPERATURE });
      // Stored, shown and fed to later steps: a credential the model repeats (from its inputs or its own) is redacted.
      return { answer: redactSecrets(completion.content.trim()), llm_calls: [] as LlmCallUsage[] };
    });
    const { ref, bytes } = await deps.store.put(answer, { workflowId: input.workflow_id });
    return {
      ref,
      bytes,
      items: null,
      preview: previewOf(canonicalJson(answer)),
      ...(bytes <= INLINE_RESULT_BYTES ? { data: answer } : {}),
      usage: usageOfLlmCalls(llm_calls),
      idempotency_key: `${input.workflow_id}:${input.step_id}:llm`,
      replayed: false,
      llm_calls,
    };
  }
  return { runLlmStep: withPlannerFailures(runLlmStep) };
}

export type LlmStepActivities = ReturnType<typeof createLlmStepActivities>;
