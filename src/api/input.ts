/**
 * What a planning run starts from: the request (goal, catalog, budget, constraints) and the options that shape the
 * run (approval, refinement and re-plan limits, timeouts), with their defaults. Parsed at the workflow's boundary.
 */
import { z } from 'zod';
import { sharedSchema } from '../domain/shared-schema';
import { BUDGET_MAXIMA, limitsPastMaxima, type BudgetLimits } from '../domain/budget';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import { LlmSettingsSchema } from '../domain/llm-settings';
import { APPROVAL_MODES, type ApprovalMode } from '../domain/approval-gate';
import { redactSecrets } from '../domain/secrets';
import { StepResultSchema } from '../domain/step-execution';
import { jsonByteLength } from '../domain/walk';
import { parsePlanningRequest, type PlanningRequest, type PlanningRequestInput } from '../domain/request';
import type { PlanningState } from './state';

export { APPROVAL_MODES, type ApprovalMode };

/**
 * Who sent a start or a decision, as the client says it (PlannerClient sends its Temporal client identity): bounded,
 * one line, secrets redacted. Temporal records the identity of a start and of an update in the history, but workflow
 * code cannot read the identity of an update, so the client carries it in the payload.
 */
export const IdentitySchema = sharedSchema('api/input#IdentitySchema', () =>
  z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters')
    .transform(redactSecrets),
);

const ms = sharedSchema('api/input#ms', () =>
  z
    .number()
    .int()
    .min(0)
    .max(365 * 24 * 60 * 60_000),
);

export const PlanningOptionsSchema = sharedSchema('api/input#PlanningOptionsSchema', () =>
  z
    .object({
      /**
       * When a person must approve the plan before it runs: `always`, `side-effects` (only a plan with a step whose
       * tool is not read-only, i.e. not `idempotent`; MCP `readOnlyHint` maps to it) or `never`.
       */
      approval: z.enum(APPROVAL_MODES),
      /** The option `approval` replaced: `true` is `approval: always`, `false` is `never` (kept so old inputs work; the parse keeps it in step). */
      require_approval: z.boolean(),
      /** Four eyes: an approval by the identity that started the run (`started_by`) is refused, PLAN-006. */
      four_eyes: z.boolean(),
      max_refinements: z.number().int().min(0).max(20),
      max_replans: z.number().int().min(0).max(20),
      max_clarifications: z.number().int().min(0).max(20),
      /** The run ends (PLAN-011) when a person has rejected this many versions; keeps a run's state from growing without end. */
      max_rejections: z.number().int().min(1).max(1_000),
      strict_critique: z.boolean(),
      clarification_timeout_ms: ms,
      approval_timeout_ms: ms,
      budget_timeout_ms: ms,
      step_start_to_close_ms: ms.min(1),
      step_heartbeat_ms: ms.min(1),
      /** Continue as new once history has this many events (Temporal's own suggestion also triggers it). */
      continue_as_new_after_events: z.number().int().min(10),
      /**
       * Publish PlanStage & co. Turn off for a namespace without them registered (upserting an unknown search
       * attribute fails every workflow task) and on Temporal's time-skipping test server, which cannot register any.
       */
      search_attributes: z.boolean(),
      /**
       * Let the ranking planner drop steps until its plan fits the budget. Off by default: under `block` a plan that
       * does not fit is kept whole and the run pauses in BUDGET_EXHAUSTED before executing, saying what it needs.
       */
      trim_to_budget: z.boolean(),
      /** How long a `human` step (or a decision on an unknown outcome) waits for a person; then it fails with PLAN-007. */
      human_step_timeout_ms: ms.min(1),
      /**
       * A side-effecting step whose effect may or may not have happened (PLAN-014): `ask` waits for a person's
       * `resolveStep` decision, `replan` treats it as a failed step (re-plan, then fail), `fail` ends the run at once.
       */
      on_outcome_unknown: z.enum(['ask', 'replan', 'fail']),
      /** Tokens of the dependencies' data an `llm` step reads; more is cut, explicitly marked as truncated. */
      llm_step_input_tokens: z.number().int().min(100).max(200_000),
      /** 'use': a first LLM plan may come from the plan cache (and is cached); 'off': this run always asks the LLM. */
      plan_cache: z.enum(['use', 'off']),
      /** This run's LLM settings (temperature, max_tokens, attempts, timeout_ms); unset ones come from the worker's configuration. */
      llm: LlmSettingsSchema.optional(),
    })
    .strict(),
);
export type PlanningOptions = z.output<typeof PlanningOptionsSchema>;

/** The options a run's input sets; the defaults fill the rest. */
const PlanningOptionsPatchSchema = sharedSchema('api/input#PlanningOptionsPatchSchema', () =>
  PlanningOptionsSchema.partial(),
);

export const DEFAULT_PLANNING_OPTIONS: PlanningOptions = {
  approval: 'never',
  require_approval: false,
  four_eyes: false,
  max_refinements: 2,
  max_replans: 2,
  max_clarifications: 3,
  max_rejections: 20,
  strict_critique: false,
  clarification_timeout_ms: 60 * 60_000,
  approval_timeout_ms: 24 * 60 * 60_000,
  budget_timeout_ms: 60 * 60_000,
  step_start_to_close_ms: 5 * 60_000,
  step_heartbeat_ms: 20_000,
  continue_as_new_after_events: 5_000,
  search_attributes: true,
  trim_to_budget: false,
  human_step_timeout_ms: 24 * 60 * 60_000,
  on_outcome_unknown: 'ask',
  llm_step_input_tokens: 4_000,
  plan_cache: 'use',
};

/** The budget of a run whose request names none. */
export const DEFAULT_BUDGET = { cost_usd: 1, tokens: 200_000, calls: 100, policy: 'block' } as const;
export const DEFAULT_TOOL_CATALOG = 'waste';

/** Request fields the workflow can fill itself: trace id, catalog, budget and the planning clock. */
export type PlanningRequestArg = Omit<PlanningRequestInput, 'trace_id' | 'tool_catalog' | 'budget' | 'now'> &
  Partial<Pick<PlanningRequestInput, 'trace_id' | 'tool_catalog' | 'budget' | 'now'>>;

export interface PlanningWorkflowInput {
  request: PlanningRequestArg;
  options?: Partial<PlanningOptions>;
  /** The identity of who starts the run (PlannerClient sends its client identity); what `four_eyes` compares an approval's with. */
  started_by?: string;
  /** State carried across continue-as-new; never set by clients. */
  resume?: PlanningState;
  /** A re-run of a closed run (`planner rerun`): see RerunInputSchema. */
  rerun?: RerunInput;
}

/** A re-run's input (plan and kept results) as JSON, in UTF-8 bytes, at most. */
export const RERUN_INPUT_BYTES = 512 * 1024;

/**
 * A new run that re-runs a closed one from step `from`: the old run's plan (its last version, patched if asked) and
 * its completed steps' results, by reference to the content store. The new run keeps every completed step outside
 * `from`'s downstream cone and runs the cone again; its own run chain gives side effects new idempotency keys.
 */
export const RerunInputSchema = sharedSchema('api/input#RerunInputSchema', () =>
  z
    .object({
      of: z.string().min(1).max(1_000),
      from: z.string().trim().min(1).max(64),
      plan: z.record(z.string(), z.unknown()),
      completed_steps: z.record(
        z.string().max(100_000),
        z.object({ version: z.number().int().min(1), result: StepResultSchema }),
      ),
    })
    .strict()
    .refine((r) => jsonByteLength(r) <= RERUN_INPUT_BYTES, {
      message: `a re-run's plan and results together are at most ${RERUN_INPUT_BYTES} bytes as JSON`,
    }),
);
export type RerunInput = z.output<typeof RerunInputSchema>;

const WorkflowInputSchema = sharedSchema('api/input#WorkflowInputSchema', () =>
  z.object({
    request: z.record(z.string(), z.unknown()),
    options: z.record(z.string(), z.unknown()).optional(),
    started_by: IdentitySchema.optional(),
    rerun: RerunInputSchema.optional(),
  }),
);

/**
 * `approval` from the options a run was given: `approval` itself, else the old `require_approval` (true: always,
 * false: never), else the default. Both given and disagreeing is refused: `require_approval: true` means `always`,
 * and `require_approval: false` anything but `always` (the parsed options keep `require_approval` as approval === always).
 */
function approvalOf(patch: Partial<PlanningOptions>): ApprovalMode {
  const { approval, require_approval } = patch;
  if (approval !== undefined && require_approval !== undefined && require_approval !== (approval === 'always')) {
    throw new InvalidInputError(
      `invalid planning options: require_approval: ${require_approval} contradicts approval: ${approval}`,
      'Set {"approval": "always" | "side-effects" | "never"} alone; require_approval is its older form (true is "always", false is "never").',
    );
  }
  return (
    approval ??
    (require_approval === undefined ? DEFAULT_PLANNING_OPTIONS.approval : require_approval ? 'always' : 'never')
  );
}

/** The approval mode of a run's options; options carried from an older worker may lack `approval`. */
export function approvalMode(options: Partial<PlanningOptions>): ApprovalMode {
  return options.approval ?? (options.require_approval ? 'always' : 'never');
}

/**
 * The request and options of a new run, with the workflow's defaults filled in; throws InvalidInputError (PLAN-006)
 * listing every problem, so malformed input ends the run at once instead of failing its workflow tasks forever.
 */
export function parseWorkflowInput(
  input: unknown,
  defaults: { trace_id: string; now: string },
): { request: PlanningRequest; options: PlanningOptions; started_by?: string; rerun?: RerunInput } {
  const shape = WorkflowInputSchema.safeParse(input);
  if (!shape.success) {
    throw new InvalidInputError(
      `invalid workflow input: ${formatZodIssues(shape.error).join('; ')}`,
      'Start the run with {"request": {"goal": "…"}, "options": {…}}.',
    );
  }
  const request = parsePlanningRequest({
    tool_catalog: DEFAULT_TOOL_CATALOG,
    budget: DEFAULT_BUDGET,
    ...defaults,
    ...shape.data.request,
  });
  const options = PlanningOptionsPatchSchema.safeParse(shape.data.options ?? {});
  if (!options.success) {
    throw new InvalidInputError(
      `invalid planning options: ${formatZodIssues(options.error).join('; ')}`,
      'Fix the options listed (path: message); see docs/messages-and-failures.md for each option.',
    );
  }
  const approval = approvalOf(options.data);
  const { started_by } = shape.data;
  const parsed = { ...DEFAULT_PLANNING_OPTIONS, ...options.data, approval, require_approval: approval === 'always' };
  if (parsed.four_eyes && started_by === undefined) {
    throw new InvalidInputError(
      "invalid workflow input: four_eyes needs started_by, the identity of who starts the run, to refuse that identity's approval",
      'Start the run through PlannerClient or `planner start` (they send their identity), or add "started_by": "<your identity>" to the input.',
    );
  }
  const { rerun } = shape.data;
  return {
    request,
    options: parsed,
    ...(started_by !== undefined ? { started_by } : {}),
    ...(rerun !== undefined ? { rerun } : {}),
  };
}

/**
 * The start budget held to the maxima a raise keeps: a limit past one could never be raised again (every raise would
 * take it further past), so a run that ran out would wait in BUDGET_EXHAUSTED until its timeout. Throws
 * InvalidInputError (PLAN-006) naming each limit.
 */
export function checkStartBudget(budget: BudgetLimits): void {
  const past = limitsPastMaxima(budget);
  if (past.length === 0) return;
  throw new InvalidInputError(
    `invalid planning request:\n${past.map((d) => `budget.${d}: ${budget[d]} is past the maximum of ${BUDGET_MAXIMA[d]}`).join('\n')}`,
    `A run's limits stay at most cost_usd ${BUDGET_MAXIMA.cost_usd}, tokens ${BUDGET_MAXIMA.tokens}, calls ${BUDGET_MAXIMA.calls}, at start and after raises; start with less, and raise it later (raiseBudget) if the run needs more.`,
    { limits: BUDGET_MAXIMA },
  );
}

/**
 * The check a client makes before it starts a run (PlannerClient.start, the CLI): the workflow's own parse (schemas,
 * limits, options), with placeholders for what the workflow fills in (trace id, clock), and no `resume` (only the
 * workflow sets it). Throws InvalidInputError (PLAN-006) naming every problem, so malformed or oversized input is
 * refused in milliseconds, before it is sent to the server and a worker.
 */
export function checkWorkflowInput(input: unknown): {
  request: PlanningRequest;
  options: PlanningOptions;
  started_by?: string;
} {
  if (input !== null && typeof input === 'object' && 'resume' in input && input.resume !== undefined) {
    throw new InvalidInputError(
      'invalid workflow input: `resume` is set only by the workflow when it continues as new',
      'Start the run with {"request": {…}, "options": {…}} and no `resume`.',
    );
  }
  const parsed = parseWorkflowInput(input, { trace_id: 'checked-by-client', now: new Date().toISOString() });
  checkStartBudget(parsed.request.budget);
  return parsed;
}
