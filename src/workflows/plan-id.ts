/**
 * The plan id of a run: its random bytes come from the run's first run id, the same on every replay whatever the
 * worker's interceptors (the workflow's Math.random sequence is shared with them: OpenTelemetry's span ids draw from
 * it when tracing is on).
 */
import { workflowInfo } from '@temporalio/workflow';
import { uuidv7 } from '../domain/ids';

export function newPlanId(): string {
  const bytes = Uint8Array.from(workflowInfo().firstExecutionRunId.replace(/-/g, '').slice(-20).match(/../g)!, (h) =>
    parseInt(h, 16),
  );
  return uuidv7(Date.now(), bytes);
}
