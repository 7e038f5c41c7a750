/**
 * The one bridge from the domain's errors to Temporal's: a PlannerError becomes an ApplicationFailure whose type is
 * the error class, whose details carry code, message and hint, and which is nonRetryable when retrying the same
 * input cannot help. Other errors pass through untouched, so Temporal retries them (a crashed dependency, I/O).
 */
import { ApplicationFailure } from '@temporalio/common';
import { PlannerError } from '../domain/errors';

export function toApplicationFailure(err: unknown): unknown {
  if (!(err instanceof PlannerError)) return err;
  const details = err.toFailureDetails();
  return ApplicationFailure.create({
    type: err.name,
    message: `${err.code} ${err.message}\nHint: ${err.hint}`,
    nonRetryable: !err.retryable,
    details: [details],
    cause: err,
  });
}

/** Wraps an activity so domain errors leave it as ApplicationFailures. */
export function withPlannerFailures<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      throw toApplicationFailure(err);
    }
  };
}
