/** PlanningRequest: everything a planning run starts from. `now` is an input so planning is deterministic. */
import { z } from 'zod';
import { BudgetLimitsSchema } from './budget';
import { InvalidInputError, formatZodIssues } from './errors';

export const ConstraintsSchema = z.object({
  max_steps: z.number().int().min(1).max(500).default(20),
  /** Absolute POSIX path; file paths in params must stay inside it. */
  workspace_root: z.string().startsWith('/').optional(),
  /** With a workspace: how many tokens of its structure and relevant files the LLM planner may see. */
  max_context_tokens: z.number().int().min(0).max(200_000).default(4_000),
  /** When set, only these catalog tools may be used. */
  allowed_tools: z.array(z.string()).optional(),
});
export type Constraints = z.output<typeof ConstraintsSchema>;

export const ConversationMessageSchema = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string(),
});
export type ConversationMessage = z.output<typeof ConversationMessageSchema>;

export const PlanningRequestSchema = z.object({
  /** May be empty: analysis then asks what to plan instead of refusing the run. */
  goal: z.string().trim().max(10_000),
  trace_id: z.string().min(1),
  /** Which planner: the LLM one, the deterministic ranking one, or `auto` (the LLM when one is configured). */
  planner: z.enum(['auto', 'llm', 'ranking']).default('auto'),
  /** Which tool catalog (name or name@version) the planner may use. */
  tool_catalog: z.string().min(1),
  budget: BudgetLimitsSchema,
  constraints: ConstraintsSchema.default({ max_steps: 20, max_context_tokens: 4_000 }),
  context: z.array(ConversationMessageSchema).default([]),
  now: z.iso.datetime({ offset: true }),
});
export type PlanningRequest = z.output<typeof PlanningRequestSchema>;
export type PlanningRequestInput = z.input<typeof PlanningRequestSchema>;

/** Checks a request from a client, signal or CLI; throws InvalidInputError (PLAN-006) listing every problem. */
export function parsePlanningRequest(input: unknown): PlanningRequest {
  const parsed = PlanningRequestSchema.safeParse(input);
  if (!parsed.success) {
    const issues = formatZodIssues(parsed.error);
    throw new InvalidInputError(`invalid planning request:\n${issues.join('\n')}`, 'Fix the fields listed (path: message).', { issues });
  }
  return parsed.data;
}

/**
 * The goal as the planners read it: the goal text followed by the user's answers from the conversation (a
 * clarification answer joins the context, so "Add validation" + "Email format validation" plans email validation).
 */
export function effectiveGoal(request: Pick<PlanningRequest, 'goal' | 'context'>): string {
  const answers = request.context.filter((m) => m.role === 'user').map((m) => m.content.trim());
  return [request.goal.trim(), ...answers].filter((part) => part.length > 0).join('. ');
}
