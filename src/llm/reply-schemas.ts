/**
 * The JSON Schemas of the replies the planner's prompts ask for, sent as structured outputs (see
 * structured-output.ts): the requirements (only what the model decides: the system resolves dates and fills the
 * indicators), the plan draft (the catalog's tools, each with its params) and the critiques (step ids of the plan
 * under review). They are built from zod schemas with z.toJSONSchema where the format is fixed, by hand where it
 * depends on the catalog.
 */
import { z } from 'zod';
import { SEVERITIES } from '../domain/critique';
import type { JsonSchema } from '../domain/json-schema';
import { DRAFT_STEP_KINDS, planDraftJsonSchema, withoutFormatPatterns } from '../domain/plan-draft';
import { INTENTS } from '../domain/requirements';
import type { ToolSpec } from '../domain/tool-spec';
import type { ReplySchema } from './structured-output';

const MAX_LIST = 10;
const MAX_TEXT = 300;

/** The requirements as the model writes them (RequirementsSchema's defaults fill the rest). */
export const RequirementsReplySchema = z
  .object({
    is_clear: z.boolean(),
    clarification: z
      .object({
        question: z.string().min(1).max(MAX_TEXT),
        options: z.array(z.string().min(1).max(MAX_TEXT)).min(2).max(5),
        default_option: z.number().int().min(0).max(4),
      })
      .strict()
      .nullable(),
    steps: z.array(z.string().min(1).max(MAX_TEXT)).max(MAX_LIST),
    required_capabilities: z.array(z.string().min(1).max(100)).max(MAX_LIST),
    intent: z.object({ type: z.enum(INTENTS), confidence: z.number().min(0).max(1) }).strict(),
  })
  .strict();

function fromZod(schema: z.ZodType): JsonSchema {
  return withoutFormatPatterns(z.toJSONSchema(schema, { io: 'input' }) as JsonSchema);
}

export function requirementsReplySchema(): ReplySchema {
  return { name: 'requirements', schema: fromZod(RequirementsReplySchema) };
}

/** The plan draft: a step calls one of `tools`, or is an llm, human or noop step (the LLM planner's runs execute every kind). */
export function planReplySchema(tools: readonly ToolSpec[], maxSteps: number): ReplySchema {
  return { name: 'plan', schema: planDraftJsonSchema(tools, maxSteps, DRAFT_STEP_KINDS) };
}

/** The verdicts on a draft plan: keep it as it is, or revise it (then `plan` is the corrected plan). */
export const DRAFT_VERDICTS = ['keep', 'revise'] as const;

/**
 * The reply to a draft (a first plan the ranking planner made): the verdict first, then the corrected plan or null.
 * A draft that answers the goal costs the model a dozen tokens instead of the whole plan again.
 */
export function draftReviewReplySchema(tools: readonly ToolSpec[], maxSteps: number): ReplySchema {
  return {
    name: 'plan_review',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['verdict', 'plan'],
      properties: {
        verdict: { type: 'string', enum: [...DRAFT_VERDICTS] },
        plan: { anyOf: [planDraftJsonSchema(tools, maxSteps, DRAFT_STEP_KINDS), { type: 'null' }] },
      },
    },
  };
}

/** At most 5 critiques, each about a step of the plan (by id) or the whole plan (null). */
export function critiquesReplySchema(stepIds: readonly string[]): ReplySchema {
  const critique = z
    .object({
      severity: z.enum(SEVERITIES),
      step_id: stepIds.length > 0 ? z.enum(stepIds as [string, ...string[]]).nullable() : z.null(),
      message: z.string().min(1).max(MAX_TEXT),
      suggestion: z.string().max(MAX_TEXT),
    })
    .strict();
  return { name: 'critiques', schema: fromZod(z.object({ critiques: z.array(critique).max(5) }).strict()) };
}
