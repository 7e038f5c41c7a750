/**
 * The plan as JSON (snake_case, because the LLM writes and reads it): tasks group steps; steps are addressed by
 * their 0-based index in the plan flattened across tasks in order. `depends_on` and `${step[N]...}` templates both
 * use that index.
 */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { PlanParseError, PlanSchemaError, formatZodIssues } from './errors';
import { UsageSchema } from './budget';
import { depthExceeds, jsonNestingExceeds } from './walk';
import { ACTION_TYPES } from '../step-kinds';

/** A step's `action`: `tool_call` or a registered step kind (src/step-kinds). */
export { ACTION_TYPES };
export type ActionType = (typeof ACTION_TYPES)[number];

export const FIBONACCI = [1, 2, 3, 5, 8, 13, 21] as const;
export type Complexity = (typeof FIBONACCI)[number];

export const PLAN_STATUSES = ['FEASIBLE', 'PARTIAL', 'IMPOSSIBLE'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Deeper params are rejected so every later walk over them is bounded. */
export const MAX_PARAM_DEPTH = 16;

/**
 * Size limits on a plan and on the LLM reply that carries one (the contract re-exports them, src/api/limits.ts): a plan
 * lives in the run's state and history, so its params are bounded (validatePlan reports PARAMS_TOO_LARGE), and a
 * reply is refused (PLAN-001, re-prompted) before it is parsed at all.
 */
export const PLAN_LIMITS = {
  /** One step's params, as JSON in UTF-8 bytes. */
  step_params_bytes: 32 * 1024,
  /** The params of all steps of a plan together, as JSON in UTF-8 bytes. */
  plan_params_bytes: 128 * 1024,
  /** A JSON reply of the LLM (plan, requirements, critique), in characters. */
  reply_chars: 200_000,
  /** How deep a JSON reply of the LLM nests objects and arrays (a plan needs about 22 levels: 6 of its own, 16 of params). */
  reply_depth: 64,
} as const;

/**
 * The grammar of a step id ("1.2", "fetch-shipments"): ids a model writes are printed in suggested commands and go
 * into idempotency keys, so no shell syntax, spaces or key separators.
 */
export const STEP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const StepSchema = sharedSchema('domain/plan#StepSchema', () =>
  z
    .strictObject({
      /** Unique in the plan, e.g. "1.1" (task 1, step 1). */
      id: z
        .string()
        .regex(
          STEP_ID_PATTERN,
          'a step id is 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. "1.2")',
        ),
      title: z.string().min(1),
      description: z.string().default(''),
      action: z.enum(ACTION_TYPES).default('tool_call'),
      /** Catalog tool name; required for tool_call steps. */
      tool: z.string().min(1).nullable().default(null),
      params: z
        .record(z.string(), z.unknown())
        .default({})
        .refine((p) => !depthExceeds(p, MAX_PARAM_DEPTH), `must not nest deeper than ${MAX_PARAM_DEPTH} levels`),
      depends_on: z.array(z.number().int().nonnegative()).default([]),
      /** May run at the same time as other steps; a step with false runs alone. */
      parallel: z.boolean().default(false),
      expected_output: z.string().default(''),
      /** Criteria a verifier checks on the step result. */
      verification: z.array(z.string()).default([]),
    })
    .refine((s) => s.action !== 'tool_call' || s.tool !== null, {
      path: ['tool'],
      message: 'a tool_call step needs a tool',
    }),
);
export type Step = z.output<typeof StepSchema>;

/** A task id: like a step id ("1", "fetch"), and no dots, so "2.3" reads as task 2, step 3. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A task's complexity: Fibonacci points up to 13 (a larger task is split; the plan's sum may reach 21). */
export const TASK_COMPLEXITY = [1, 2, 3, 5, 8, 13] as const;

/**
 * What a task uses, derived from its steps and the tools' annotations (never written by a model). Tool plans fill
 * `tools`, `reads`, `writes` and `side_effects`; workspace plans also `files_read`, `files_written`, `folders_created`
 * and `commands`.
 */
export const TaskResourcesSchema = sharedSchema('domain/plan#TaskResourcesSchema', () =>
  z.strictObject({
    tools: z.array(z.string()).default([]),
    /** Catalog tools whose data the task reads (read-only tools). */
    reads: z.array(z.string()).default([]),
    /** Tools that write or change something. */
    writes: z.array(z.string()).default([]),
    side_effects: z.array(z.string()).default([]),
    files_read: z.array(z.string()).default([]),
    files_written: z.array(z.string()).default([]),
    folders_created: z.array(z.string()).default([]),
    commands: z.array(z.string()).default([]),
  }),
);
export type TaskResources = z.output<typeof TaskResourcesSchema>;

/**
 * A machine-checkable assertion over step results (by step id; `field` names a field of the step's rows):
 * - rows_non_empty: the step's data is a non-empty list;
 * - values_in_range: every row's `field` (a date) lies in [from, to] (days, UTC, both included);
 * - values_among: every row's `field` is among the values of `source_field` in `source_step`'s rows;
 * - path_exists: `path` (a workspace path the step wrote) exists after the step;
 * - step_completed: the step completed (llm, human and steps without a list result).
 */
export const AssertionSchema = sharedSchema('domain/plan#AssertionSchema', () =>
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('rows_non_empty'), step: z.string().min(1) }),
    z.strictObject({
      kind: z.literal('values_in_range'),
      step: z.string().min(1),
      field: z.string().min(1),
      from: z.string().min(1),
      to: z.string().min(1),
    }),
    z.strictObject({
      kind: z.literal('values_among'),
      step: z.string().min(1),
      field: z.string().min(1),
      source_step: z.string().min(1),
      source_field: z.string().min(1),
    }),
    z.strictObject({ kind: z.literal('path_exists'), step: z.string().min(1), path: z.string().min(1) }),
    z.strictObject({ kind: z.literal('step_completed'), step: z.string().min(1) }),
  ]),
);
export type Assertion = z.output<typeof AssertionSchema>;

/**
 * An acceptance criterion of a task. `test`: the verifier's verdict on it gates the run (a failure re-plans the task
 * or ends the run); a criterion that is not a test is checked and reported only (an empty list may be the true answer).
 */
export const AcceptanceCriterionSchema = sharedSchema('domain/plan#AcceptanceCriterionSchema', () =>
  z.strictObject({
    id: z.string().regex(STEP_ID_PATTERN),
    description: z.string().min(1),
    assertion: AssertionSchema,
    test: z.boolean(),
  }),
);
export type AcceptanceCriterion = z.output<typeof AcceptanceCriterionSchema>;

export const TaskSchema = sharedSchema('domain/plan#TaskSchema', () =>
  z.strictObject({
    id: z
      .string()
      .regex(
        TASK_ID_PATTERN,
        'a task id is 1–64 letters, digits, "_" or "-", starting with a letter or digit (e.g. "2")',
      ),
    title: z.string().min(1),
    description: z.string().default(''),
    /** Ids of the tasks whose steps must all complete (and pass their criteria) before this task's steps start. */
    depends_on: z.array(z.string()).default([]),
    complexity: z.literal(TASK_COMPLEXITY).default(1),
    resources: TaskResourcesSchema.default(() => TaskResourcesSchema.parse({})),
    acceptance_criteria: z.array(AcceptanceCriterionSchema).default([]),
    steps: z.array(StepSchema).min(1),
  }),
);
export type Task = z.output<typeof TaskSchema>;

export const PlanEstimateSchema = sharedSchema('domain/plan#PlanEstimateSchema', () =>
  UsageSchema.extend({ duration_ms: z.number().int().nonnegative() }).strict(),
);
export type PlanEstimate = z.output<typeof PlanEstimateSchema>;

export const PlanMetadataSchema = sharedSchema('domain/plan#PlanMetadataSchema', () =>
  z.strictObject({
    planner: z.enum(['llm', 'ranking']),
    model: z.string().nullable().default(null),
    temperature: z.number().min(0).max(2).nullable().default(null),
    created_at: z.iso.datetime({ offset: true }),
  }),
);
export type PlanMetadata = z.output<typeof PlanMetadataSchema>;

export const PlanSchema = sharedSchema('domain/plan#PlanSchema', () =>
  z
    .strictObject({
      id: z.uuid(),
      version: z.number().int().min(1),
      goal: z.string().min(1),
      status: z.enum(PLAN_STATUSES),
      missing_capabilities: z.array(z.string()).default([]),
      tasks: z.array(TaskSchema),
      assumptions: z.array(z.string()).default([]),
      complexity: z.literal(FIBONACCI),
      estimate: PlanEstimateSchema,
      metadata: PlanMetadataSchema,
    })
    .superRefine((plan, ctx) => {
      if (plan.status !== 'IMPOSSIBLE' && plan.tasks.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['tasks'], message: `a ${plan.status} plan needs at least one task` });
      }
      if (plan.status !== 'FEASIBLE' && plan.missing_capabilities.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['missing_capabilities'],
          message: `a ${plan.status} plan must name what is missing`,
        });
      }
      if (plan.status === 'FEASIBLE' && plan.missing_capabilities.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['missing_capabilities'],
          message: 'a FEASIBLE plan cannot miss capabilities',
        });
      }
    }),
);
export type Plan = z.output<typeof PlanSchema>;

/** What a new version of a plan starts from: the one it replaces and why (critiques, a rejection, a failed step). */
export interface Refinement {
  previous: Plan;
  /** Why a new version is needed: critiques, a human's rejection reason, a failed step's error. */
  feedback: string[];
}

/** What a plan looks like before defaults are applied (what an LLM may write). */
export type PlanInput = z.input<typeof PlanSchema>;

/** Fields the caller owns; they override whatever the JSON says (an LLM must not pick ids or versions). */
export type PlanStamp = Partial<Pick<PlanInput, 'id' | 'version' | 'goal' | 'metadata'>>;

/** Steps of all tasks in order; position i is step index i. */
export function flattenSteps(plan: Pick<Plan, 'tasks'>): Step[] {
  return plan.tasks.flatMap((t) => t.steps);
}

const FENCED = /```(?:json|JSON)?[ \t]*\r?\n?([\s\S]*?)```/;

/** The JSON text inside the first Markdown code fence, or the whole text when there is none. */
function stripFences(text: string): string {
  const m = FENCED.exec(text);
  return (m ? m[1]! : text).trim();
}

/** Parses JSON text (optionally fenced) and checks it against `schema`; throws only PlanParseError / PlanSchemaError. */
export function parseJsonWith<S extends z.ZodType>(
  schema: S,
  text: unknown,
  what: string,
  stamp: object = {},
): z.output<S> {
  if (typeof text !== 'string')
    throw new PlanParseError(`${what} must be text, got ${text === null ? 'null' : typeof text}`);
  if (text.length > PLAN_LIMITS.reply_chars) {
    throw new PlanParseError(
      `${what} is ${text.length} characters, longer than the limit of ${PLAN_LIMITS.reply_chars}`,
      {
        excerpt: text.slice(0, 200),
        limit_chars: PLAN_LIMITS.reply_chars,
      },
    );
  }
  const body = stripFences(text);
  // Checked on the text: JSON.parse copes with any depth, but the walks after it (schemas, stringify) recurse.
  if (jsonNestingExceeds(body, PLAN_LIMITS.reply_depth)) {
    throw new PlanParseError(
      `${what} nests objects and arrays deeper than the limit of ${PLAN_LIMITS.reply_depth} levels`,
      {
        excerpt: body.slice(0, 200),
        limit_depth: PLAN_LIMITS.reply_depth,
      },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    throw new PlanParseError(`${what} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`, {
      excerpt: body.slice(0, 200),
    });
  }
  const withStamp =
    Object.keys(stamp).length > 0 && json !== null && typeof json === 'object' && !Array.isArray(json)
      ? { ...json, ...stamp }
      : json;
  const parsed = schema.safeParse(withStamp);
  if (!parsed.success) throw new PlanSchemaError(what, formatZodIssues(parsed.error));
  return parsed.data;
}

/**
 * Plan JSON text (as an LLM returns it, ```json fences tolerated) → Plan. `stamp` fills or overrides id, version,
 * goal and metadata. Throws PlanParseError (PLAN-001) or PlanSchemaError (PLAN-002), never anything else.
 */
export function parsePlanJson(text: string, stamp: PlanStamp = {}): Plan {
  return parseJsonWith(PlanSchema, text, 'plan', stamp);
}
