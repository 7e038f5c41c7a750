/**
 * The plan id of a run. Runs started before PLAN_ID_PATCH drew its bytes from the workflow's Math.random; but that
 * sequence is shared with interceptors (OpenTelemetry's span ids draw from it when tracing is on), so the same run
 * replayed on a worker with another tracing setting would get another id. Newer runs take the bytes from their first
 * run id: the same on every replay, whatever the worker's interceptors.
 */
import { workflowInfo } from '@temporalio/workflow';
import { uuidv7 } from '../domain/ids';

/** Checked once when the workflow starts, with the other patches (planning.ts). */
export const PLAN_ID_PATCH = 'plan-id-from-first-run-id';

export function newPlanId(fromRunId: boolean): string {
  const bytes = fromRunId
    ? Uint8Array.from(workflowInfo().firstExecutionRunId.replace(/-/g, '').slice(-20).match(/../g)!, (h) => parseInt(h, 16))
    : Uint8Array.from({ length: 10 }, () => Math.floor(Math.random() * 256));
  return uuidv7(Date.now(), bytes);
}
