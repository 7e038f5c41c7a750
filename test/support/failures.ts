/** Asserting on activity failures. */
import { ApplicationFailure } from '@temporalio/common';

/** The ApplicationFailure `promise` rejects with (fails the test when it resolves or rejects with anything else). */
export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}
