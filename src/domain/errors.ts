/**
 * The single error hierarchy of the planner. Every failure the domain reports is a `PlannerError` with a stable
 * `code`, a remediation `hint` and a `retryable` flag, so activities can turn it into a Temporal ApplicationFailure
 * (type = `name`, nonRetryable = !retryable, details = [toFailureDetails()]) without inspecting messages.
 *
 * `retryable` means "running the same operation again with the same input may succeed" (transient faults such as a
 * provider outage or a timeout). Bad LLM output is not retryable at this level: the planning loop re-prompts with
 * the errors and gives up with PLAN-009 after its own attempt limit.
 */
import type { z } from 'zod';
import { formatPath } from './walk';

/**
 * Every failure type the planner raises, with its code: the one table. The codes, each error class's `code` and the
 * contract's failure vocabulary (src/api/failures.ts) derive from it; docs/messages-and-failures.md lists the same.
 */
export const FAILURE_TYPES = {
  PlanParseError: 'PLAN-001',
  PlanSchemaError: 'PLAN-002',
  PlanValidationError: 'PLAN-003',
  BudgetExceededError: 'PLAN-004',
  LlmCallError: 'PLAN-005',
  InvalidInputError: 'PLAN-006',
  InvalidTransitionError: 'PLAN-006',
  CatalogUnavailableError: 'PLAN-006',
  PlanningTimeoutError: 'PLAN-007',
  StepFailedError: 'PLAN-008',
  TemplateResolutionError: 'PLAN-008',
  PlanningExhaustedError: 'PLAN-009',
  PlanImpossibleError: 'PLAN-010',
  PlanRejectedError: 'PLAN-011',
  GoalUnclearError: 'PLAN-012',
  WorkerFailureError: 'PLAN-013',
  StoreUnavailableError: 'PLAN-013',
  StepOutcomeUnknownError: 'PLAN-014',
} as const;
export type FailureType = keyof typeof FAILURE_TYPES;
export type PlannerErrorCode = (typeof FAILURE_TYPES)[FailureType];

/** The distinct codes, in order. */
export const PLANNER_ERROR_CODES = [...new Set(Object.values(FAILURE_TYPES))] as [
  PlannerErrorCode,
  ...PlannerErrorCode[],
];

/**
 * Plain-JSON form of an error, safe to put in workflow history: what a failure's details carry (src/api/failures.ts
 * parses it back), `details.llm_calls` listing the LLM calls a failed activity made.
 */
export interface FailureDetails {
  code: PlannerErrorCode;
  message: string;
  hint: string;
  details: Record<string, unknown>;
}

interface ErrorOptions {
  hint: string;
  details?: Record<string, unknown>;
  retryable?: boolean;
  cause?: unknown;
}

export abstract class PlannerError extends Error {
  abstract readonly code: PlannerErrorCode;
  readonly hint: string;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;

  protected constructor(message: string, options: ErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
  }

  toFailureDetails(): FailureDetails {
    return { code: this.code, message: this.message, hint: this.hint, details: this.details };
  }
}

/** PLAN-001: the text is not JSON (after stripping Markdown fences). */
export class PlanParseError extends PlannerError {
  override readonly name = 'PlanParseError';
  readonly code = FAILURE_TYPES.PlanParseError;
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, {
      hint: 'Return a single JSON object, optionally inside one ```json fence, with no other text.',
      details,
    });
  }
}

/** PLAN-002: the JSON does not match a schema; `issues` are readable "path: message" lines. */
export class PlanSchemaError extends PlannerError {
  override readonly name = 'PlanSchemaError';
  readonly code = FAILURE_TYPES.PlanSchemaError;
  readonly issues: readonly string[];
  constructor(what: string, issues: readonly string[]) {
    super(`${what} does not match its schema:\n${issues.join('\n')}`, {
      hint: 'Fix the fields listed (path: message) and return the whole object again.',
      details: { issues },
    });
    this.issues = issues;
  }
}

/** One problem found by validatePlan; `code` is a fine-grained issue code, not a PLAN-xxx code. */
export interface ValidationIssue {
  code: ValidationIssueCode;
  message: string;
  step_index?: number;
  hint: string;
}

export type ValidationIssueCode =
  | 'SCHEMA'
  | 'TOO_MANY_STEPS'
  | 'DUPLICATE_STEP_ID'
  | 'COMPOUND_STEP'
  | 'STEP_KIND_NOT_RUNNABLE'
  | 'UNKNOWN_TOOL'
  | 'TOOL_NOT_ALLOWED'
  | 'MISSING_PARAM'
  | 'INVALID_PARAM'
  | 'DEPENDENCY_OUT_OF_RANGE'
  | 'CYCLE'
  | 'MALFORMED_TEMPLATE'
  | 'TEMPLATE_OUT_OF_RANGE'
  | 'TEMPLATE_NOT_DEPENDENCY'
  | 'SECRET_IN_PARAMS'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'PARAMS_TOO_LARGE'
  | 'BUDGET_INSUFFICIENT'
  | 'MISSING_BUT_AVAILABLE'
  | 'STATUS_CONTRADICTS_STEPS'
  | 'IMPOSSIBLE_BUT_TOOLS_FIT'
  | 'TEMPLATE_PATH_INVALID'
  | 'PLACEHOLDER_VALUE'
  | 'UNBOUND_CONSTRAINT'
  | 'UNVERIFIED_ID'
  | 'DUPLICATE_TASK_ID'
  | 'UNKNOWN_TASK_DEPENDENCY'
  | 'TASK_CYCLE'
  | 'STEP_CROSSES_TASKS'
  | 'CRITERION_UNKNOWN_STEP';

/** PLAN-003: the plan is well-formed but not executable; carries every issue found. */
export class PlanValidationError extends PlannerError {
  override readonly name = 'PlanValidationError';
  readonly code = FAILURE_TYPES.PlanValidationError;
  readonly issues: readonly ValidationIssue[];
  constructor(issues: readonly ValidationIssue[]) {
    super(
      `plan failed validation with ${issues.length} issue(s):\n${issues.map((i) => `[${i.code}] ${i.message}`).join('\n')}`,
      {
        hint: 'Fix each issue listed (see the hint of each) and produce the plan again.',
        details: { issues },
      },
    );
    this.issues = issues;
  }
}

export type BudgetDimension = 'cost_usd' | 'tokens' | 'calls';

export interface Shortfall {
  dimension: BudgetDimension;
  required: number;
  available: number;
}

/** PLAN-004: an estimate or a charge does not fit in what is left of the budget. */
export class BudgetExceededError extends PlannerError {
  override readonly name = 'BudgetExceededError';
  readonly code = FAILURE_TYPES.BudgetExceededError;
  readonly shortfalls: readonly Shortfall[];
  /** `what`: the work that does not fit ("plan v1's remaining 3 step(s)"). */
  constructor(shortfalls: readonly Shortfall[], what?: string) {
    super(
      `budget exceeded${what ? ` by ${what}` : ''}: ${shortfalls.map((s) => `${s.dimension} required ${s.required}, available ${s.available}`).join('; ')}`,
      {
        hint: 'Raise the budget ceiling, or ask for a cheaper plan (fewer steps or cheaper tools).',
        details: { shortfalls },
      },
    );
    this.shortfalls = shortfalls;
  }
}

/** PLAN-005: the LLM provider failed (network, rate limit, 5xx are retryable; auth or bad request are not). */
export class LlmCallError extends PlannerError {
  override readonly name = 'LlmCallError';
  readonly code = FAILURE_TYPES.LlmCallError;
  constructor(message: string, options: { retryable: boolean; details?: Record<string, unknown>; cause?: unknown }) {
    super(message, { hint: 'Check the provider status, the API key and the model name.', ...options });
  }
}

/** PLAN-006: a request, signal, update or CLI argument is invalid. */
export class InvalidInputError extends PlannerError {
  override readonly name: string = 'InvalidInputError';
  readonly code = FAILURE_TYPES.InvalidInputError;
  constructor(message: string, hint: string, details?: Record<string, unknown>) {
    super(message, { hint, details });
  }
}

/** PLAN-006: a stage change the stage machine does not allow (for example approving a plan that is executing). */
export class InvalidTransitionError extends InvalidInputError {
  override readonly name = 'InvalidTransitionError';
  constructor(from: string, to: string, reason: string) {
    super(
      `invalid stage transition ${from} → ${to}: ${reason}`,
      'Query the current stage and send only the moves it allows.',
      { from, to },
    );
  }
}

/** PLAN-007: a wait or an activity ran out of time (no approval, no budget raise, an activity past its retries). */
export class PlanningTimeoutError extends PlannerError {
  override readonly name = 'PlanningTimeoutError';
  readonly code = FAILURE_TYPES.PlanningTimeoutError;
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, {
      hint: 'Answer sooner, raise the timeout in the run options, or check that a worker serves the queue.',
      details,
      retryable: true,
    });
  }
}

/** PLAN-008: a plan step (tool call) failed. */
export class StepFailedError extends PlannerError {
  override readonly name: string = 'StepFailedError';
  readonly code = FAILURE_TYPES.StepFailedError;
  constructor(
    message: string,
    options: { retryable: boolean; hint?: string; details?: Record<string, unknown>; cause?: unknown },
  ) {
    super(message, {
      ...options,
      hint: options.hint ?? 'Inspect the step result; the planner may re-plan around the failure.',
    });
  }
}

export type TemplateFailure = 'missing_result' | 'unresolved_path';

/** PLAN-008: a step cannot run because a `${step[N]...}` template in its params cannot be resolved. */
export class TemplateResolutionError extends StepFailedError {
  override readonly name = 'TemplateResolutionError';
  readonly failure: TemplateFailure;
  constructor(failure: TemplateFailure, message: string, details: Record<string, unknown>) {
    super(message, {
      retryable: false,
      hint:
        failure === 'missing_result'
          ? 'Declare the referenced step in depends_on so it runs first.'
          : 'Check the referenced step output shape; the template path must exist in it.',
      details: { failure, ...details },
    });
    this.failure = failure;
  }
}

/** PLAN-009: planning gave up after its attempt limit; `details.last_error` holds the final attempt's failure. */
export class PlanningExhaustedError extends PlannerError {
  override readonly name = 'PlanningExhaustedError';
  readonly code = FAILURE_TYPES.PlanningExhaustedError;
  constructor(attempts: number, lastError: PlannerError) {
    super(`planning failed after ${attempts} attempt(s): ${lastError.message}`, {
      hint: 'Rephrase the goal more concretely, or check that the tool catalog can serve it.',
      details: { attempts, last_error: lastError.toFailureDetails() },
      cause: lastError,
    });
  }
}

/** PLAN-010: the planner found the goal impossible with the catalog; `details.missing` names what is missing. */
export class PlanImpossibleError extends PlannerError {
  override readonly name = 'PlanImpossibleError';
  readonly code = FAILURE_TYPES.PlanImpossibleError;
  constructor(missing: readonly string[], details?: Record<string, unknown>) {
    super(`the plan is IMPOSSIBLE: missing ${missing.join('; ') || 'unnamed capabilities'}`, {
      hint: 'Add tools that provide the missing capabilities to the catalog, or change the goal.',
      details: { missing, ...details },
    });
  }
}

/** PLAN-011: the gatekeeper rejected the plan after its refinements. */
export class PlanRejectedError extends PlannerError {
  override readonly name = 'PlanRejectedError';
  readonly code = FAILURE_TYPES.PlanRejectedError;
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, {
      hint: 'Read the critiques (planner show), then rephrase the goal or allow more refinements (max_refinements).',
      details,
    });
  }
}

/** PLAN-012: the goal stayed unclear after the allowed clarifications. */
export class GoalUnclearError extends PlannerError {
  override readonly name = 'GoalUnclearError';
  readonly code = FAILURE_TYPES.GoalUnclearError;
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, {
      hint: 'Start again with a goal that names what to do and on what, or allow more clarifications (max_clarifications).',
      details,
    });
  }
}

/** PLAN-013: a worker failed in a way the planner does not classify (a crash, an unregistered activity, a bug). */
export class WorkerFailureError extends PlannerError {
  override readonly name = 'WorkerFailureError';
  readonly code = FAILURE_TYPES.WorkerFailureError;
  /** `retryable`: another worker may succeed (e.g. one that has the LLM this run's planner needs). */
  constructor(message: string, details?: Record<string, unknown>, options: { retryable?: boolean } = {}) {
    super(message, {
      hint: 'Check the worker logs, and that the workers run the same version as the workflow.',
      details,
      retryable: options.retryable ?? false,
    });
  }
}

/**
 * PLAN-013 (retryable): the planner's store (PostgreSQL at DATABASE_URL) cannot be reached now. The worker did not
 * fail and the input is fine: Temporal retries the activity, and a step that hit it is not a step failure.
 */
export class StoreUnavailableError extends PlannerError {
  override readonly name = 'StoreUnavailableError';
  readonly code = FAILURE_TYPES.StoreUnavailableError;
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, {
      hint: 'Check that the database at DATABASE_URL is up and reachable from every worker; runs wait and retry meanwhile.',
      details,
      retryable: true,
    });
  }
}

/**
 * PLAN-014: a side-effecting step may or may not have acted. Its intent is in the idempotency ledger without an
 * outcome (the worker died, or the connection was lost after the request was sent), and the tool can neither be
 * called twice safely nor dedupe by the idempotency key. Never retried: repeating the call could repeat the effect.
 */
export class StepOutcomeUnknownError extends PlannerError {
  override readonly name = 'StepOutcomeUnknownError';
  readonly code = FAILURE_TYPES.StepOutcomeUnknownError;
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, {
      hint: 'The tool may have acted; check it, then approve a re-run or mark it done.',
      details,
      retryable: false,
    });
  }
}

/**
 * PLAN-006 (retryable): the run names a tool catalog this worker does not serve, or one whose MCP server cannot start
 * right now. Retryable, so Temporal retries the activity, possibly on a worker that serves the catalog.
 */
export class CatalogUnavailableError extends PlannerError {
  override readonly name = 'CatalogUnavailableError';
  readonly code = FAILURE_TYPES.CatalogUnavailableError;
  constructor(message: string, hint: string, details?: Record<string, unknown>) {
    super(message, { hint, details, retryable: true });
  }
}

/** zod issues as "path: message" lines, the form PLAN-002 and PLAN-006 errors carry. */
export function formatZodIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${formatPath(issue.path) || '(root)'}: ${issue.message}`);
}
