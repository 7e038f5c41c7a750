/** PlanningRequest: everything a planning run starts from. `now` is an input so planning is deterministic. */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { BudgetLimitsSchema } from './budget';
import { InvalidInputError, formatZodIssues } from './errors';
import { redactSecrets } from './secrets';

/**
 * The limits on a request, checked at the boundary before any work: whatever exceeds one is refused in milliseconds
 * with PLAN-006 naming the limit, so one oversized request cannot stall a worker's event loop (docs/messages-and-failures.md lists them).
 */
export const REQUEST_LIMITS = {
  goal_chars: 10_000,
  context_messages: 50,
  /** All context messages together, in characters. */
  context_chars: 32_000,
  name_chars: 200,
  allowed_tools: 200,
  workspace_root_chars: 4_096,
} as const;

const L = REQUEST_LIMITS;
const tooLong = (what: string, max: number) => `${what} is longer than the limit of ${max} characters`;

export const ConstraintsSchema = sharedSchema('domain/request#ConstraintsSchema', () =>
  z.object({
    max_steps: z.number().int().min(1).max(500).default(20),
    /** Absolute POSIX path; file paths in params must stay inside it. */
    workspace_root: z
      .string()
      .startsWith('/')
      .max(L.workspace_root_chars, tooLong('workspace_root', L.workspace_root_chars))
      .optional(),
    /** With a workspace: how many tokens of its structure and relevant files the LLM planner may see. */
    max_context_tokens: z.number().int().min(0).max(200_000).default(4_000),
    /** When set, only these catalog tools may be used. */
    allowed_tools: z
      .array(z.string().max(L.name_chars, tooLong('a tool name', L.name_chars)))
      .max(L.allowed_tools, `allowed_tools names more than the limit of ${L.allowed_tools} tools`)
      .optional(),
  }),
);
export type Constraints = z.output<typeof ConstraintsSchema>;

export const ConversationMessageSchema = sharedSchema('domain/request#ConversationMessageSchema', () =>
  z.object({
    role: z.enum(['user', 'assistant', 'system']),
    content: z.string().max(L.context_chars, tooLong('a context message', L.context_chars)).transform(redactSecrets),
  }),
);
export type ConversationMessage = z.output<typeof ConversationMessageSchema>;

export const PlanningRequestSchema = sharedSchema('domain/request#PlanningRequestSchema', () =>
  z.object({
    /** May be empty: analysis then asks what to plan instead of refusing the run. */
    /** Secrets in it are redacted as it is parsed (see redactSecrets): the run re-emits only the redacted goal. */
    goal: z.string().max(L.goal_chars, tooLong('goal', L.goal_chars)).trim().transform(redactSecrets),
    trace_id: z.string().min(1).max(L.name_chars, tooLong('trace_id', L.name_chars)),
    /** Which planner: the LLM one, the deterministic ranking one, or `auto` (the LLM when one is configured). */
    planner: z.enum(['auto', 'llm', 'ranking']).default('auto'),
    /** Which tool catalog (name or name@version) the planner may use. */
    tool_catalog: z.string().min(1).max(L.name_chars, tooLong('tool_catalog', L.name_chars)),
    budget: BudgetLimitsSchema,
    constraints: ConstraintsSchema.default({ max_steps: 20, max_context_tokens: 4_000 }),
    context: z
      .array(ConversationMessageSchema)
      .max(L.context_messages, `context has more than the limit of ${L.context_messages} messages`)
      .refine(
        (messages) => messages.reduce((n, m) => n + m.content.length, 0) <= L.context_chars,
        `context is longer than the limit of ${L.context_chars} characters in all`,
      )
      .default([]),
    now: z.iso.datetime({ offset: true }),
  }),
);
export type PlanningRequest = z.output<typeof PlanningRequestSchema>;
export type PlanningRequestInput = z.input<typeof PlanningRequestSchema>;

/** Checks a request from a client, signal or CLI; throws InvalidInputError (PLAN-006) listing every problem. */
export function parsePlanningRequest(input: unknown): PlanningRequest {
  const parsed = PlanningRequestSchema.safeParse(input);
  if (!parsed.success) {
    const issues = formatZodIssues(parsed.error);
    const limits = issues.some((i) => i.includes('limit of'));
    const hint = limits
      ? `Fix the fields listed (path: message). Limits: goal ${L.goal_chars} characters; context ${L.context_messages} messages and ${L.context_chars} characters in all; names ${L.name_chars} characters.`
      : 'Fix the fields listed (path: message).';
    throw new InvalidInputError(`invalid planning request:\n${issues.join('\n')}`, hint, {
      issues,
      ...(limits ? { limits: REQUEST_LIMITS } : {}),
    });
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
