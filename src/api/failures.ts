/**
 * The one bridge between the planner's errors (src/domain/errors.ts) and Temporal's failures, used by activities,
 * the workflow, the client and the CLI alike:
 *   - `toApplicationFailure`: a PlannerError becomes an ApplicationFailure whose type is the error class, whose
 *     message reads `PLAN-xxx … Hint: …`, whose details are typed `FailureDetails`, and which is nonRetryable when
 *     retrying the same input cannot help. Other errors pass through, so Temporal retries them.
 *   - `readFailure`: the one parser back, from whatever wraps it (ActivityFailure, WorkflowFailedError, a timeout).
 * Pure: safe in workflow code.
 */
import { ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { z } from 'zod';
import { sharedSchema } from '../domain/shared-schema';
import {
  PLANNER_ERROR_CODES,
  PlannerError,
  PlanningTimeoutError,
  WorkerFailureError,
  type FailureDetails,
} from '../domain/errors';
import { LlmCallUsageSchema, type LlmCallUsage } from '../domain/llm-calls';

/** Failure types a client can see, with their codes, and the details a failure carries (src/domain/errors.ts). */
export { FAILURE_TYPES, type FailureDetails, type FailureType } from '../domain/errors';

export const FailureDetailsSchema: z.ZodType<FailureDetails> = sharedSchema('api/failures#FailureDetailsSchema', () =>
  z.object({
    code: z.enum(PLANNER_ERROR_CODES),
    message: z.string(),
    hint: z.string(),
    details: z
      .object({
        /** LLM calls the failed activity made: the workflow charges them like a result's. */
        llm_calls: z.array(LlmCallUsageSchema).optional(),
      })
      .catchall(z.unknown()),
  }),
);

/** A failure as the planner reports it: its type, code, message without the hint, hint, and typed details. */
export interface PlanFailure extends FailureDetails {
  type: string;
}

/** The message every planner failure carries, in one form. */
export function failureMessage(f: Pick<PlanFailure, 'code' | 'message' | 'hint'>): string {
  return `${f.code} ${f.message}\nHint: ${f.hint}`;
}

export function failureOf(err: PlannerError): PlanFailure {
  return { type: err.name, ...err.toFailureDetails() };
}

export function toApplicationFailure(err: unknown): unknown {
  if (!(err instanceof PlannerError)) return err;
  return planFailureToApplicationFailure(failureOf(err), !err.retryable, err);
}

/** A failure (or a planner error) as the ApplicationFailure that ends a run or refuses a message (always final), or an activity's. */
export function planFailureToApplicationFailure(
  failure: PlanFailure | PlannerError,
  nonRetryable = true,
  cause?: Error,
): ApplicationFailure {
  if (failure instanceof PlannerError) return planFailureToApplicationFailure(failureOf(failure), nonRetryable, cause);
  const { type, ...details } = failure;
  return ApplicationFailure.create({ type, message: failureMessage(failure), nonRetryable, details: [details], cause });
}

/** Wraps an activity so planner errors leave it as ApplicationFailures. */
export function withPlannerFailures<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      throw toApplicationFailure(err);
    }
  };
}

/** The innermost failure: Temporal wraps an activity's in ActivityFailure, a run's in WorkflowFailedError. */
function innermost(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 8; depth++) {
    if (current instanceof ApplicationFailure || current instanceof TimeoutFailure || current instanceof PlannerError)
      return current;
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) return current;
    current = cause;
  }
  return current;
}

/**
 * What went wrong, typed: a planner failure as it was raised; a timeout as PLAN-007; anything else (a worker crash,
 * an unregistered activity) as PLAN-013 with its message.
 */
export function readFailure(err: unknown): PlanFailure {
  const cause = innermost(err);
  if (cause instanceof PlannerError) return failureOf(cause);
  if (cause instanceof ApplicationFailure) {
    const parsed = FailureDetailsSchema.safeParse(cause.details?.[0]);
    if (parsed.success) return { type: cause.type ?? 'ApplicationFailure', ...parsed.data };
  }
  if (cause instanceof TimeoutFailure) {
    return failureOf(new PlanningTimeoutError(`timed out (${cause.timeoutType ?? 'timeout'}): ${cause.message}`));
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return failureOf(new WorkerFailureError(message));
}

/** LLM calls a failed activity reports, to be charged like a result's (FailureDetailsSchema checked their form). */
export function llmCallsOfFailure(err: unknown): LlmCallUsage[] {
  return (readFailure(err).details.llm_calls as LlmCallUsage[] | undefined) ?? [];
}
