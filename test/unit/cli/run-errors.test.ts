/**
 * How the CLI explains an update the Temporal server refused because the run already holds as many updates as it
 * allows (RESOURCE_EXHAUSTED, after the client's retries): the cause is named, not "Workflow Update failed".
 */
import { ServiceError } from '@temporalio/client';
import { PROGRESS_WAITERS_MAX } from '../../../src/api/progress';
import { CliError, EXIT, explainRunError } from '../../../src/cli/context';

/** The error `executeUpdate` throws then, as the dev server (CLI 1.9.1, server 1.32) produced it. */
function inFlightUpdatesRefused(): ServiceError {
  const details = 'limit on number of concurrent in-flight updates has been reached (10)';
  const grpc = Object.assign(new Error(`8 RESOURCE_EXHAUSTED: ${details}`), { code: 8, details, metadata: {} });
  return new ServiceError('Workflow Update failed', { cause: grpc });
}

test('an update refused for the in-flight limit names the limit, who holds the places, and what to do', () => {
  const explained = explainRunError(inFlightUpdatesRefused(), 'plan-1');
  expect(explained).toBeInstanceOf(CliError);
  const { message, hint, exitCode } = explained as CliError;
  expect(message).toBe(
    "the server refused the update to run plan-1: limit on number of concurrent in-flight updates has been reached (10); other clients' updates hold every place (a watcher that is not `planner watch` keeps long-polls open, for instance)",
  );
  expect(hint).toContain(`\`planner watch\` holds at most ${PROGRESS_WAITERS_MAX} per run`);
  expect(exitCode).toBe(EXIT.error);
});
