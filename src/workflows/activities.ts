/** The activities the workflow calls, with their options: planning work and the steps of a plan. */
import {
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { PlannerActivities } from '../activities';
import type { StepExecutionInput, StepResult } from '../domain/step-execution';

const PLANNING_ACTIVITY_OPTIONS: ActivityOptions = {
  // Long enough for a local model on a CPU: a call may take minutes (PLANNER_LLM_TIMEOUT_MS bounds each one, the
  // attempts bound their number); with 3 minutes every slow call was cut off and asked again from the start.
  startToCloseTimeout: '60 minutes',
  // Planning activities heartbeat every 2 s, so a dead worker is noticed within this, not after the timeout above.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
};

/** Deterministic planning work takes milliseconds: as local activities it needs no round trip through the server. */
const LOCAL_PLANNING_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: PLANNING_ACTIVITY_OPTIONS.retry,
};

/**
 * The cost forecast and the recording of step costs (./forecast): advisory, so a failure is not worth retrying for
 * long — the run goes on without them, at once, rather than hold a person's prompt for a minute of retries.
 */
export function adviceActivities(summary: string): PlannerActivities {
  return proxyLocalActivities<PlannerActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { ...PLANNING_ACTIVITY_OPTIONS.retry, maximumAttempts: 2 },
    summary,
  });
}

export function planningActivities(summary: string, local: boolean): PlannerActivities {
  return local
    ? proxyLocalActivities<PlannerActivities>({ ...LOCAL_PLANNING_OPTIONS, summary })
    : proxyActivities<PlannerActivities>({ ...PLANNING_ACTIVITY_OPTIONS, summary });
}

/** `executeStep` on the step's queue, with the run's step timeouts; side-effecting tools retry under their key. */
export function stepActivity(options: {
  taskQueue: string;
  startToCloseMs: number;
  heartbeatMs: number;
  maximumAttempts: number;
  summary: string;
}) {
  return proxyActivities<{ executeStep(input: StepExecutionInput): Promise<StepResult> }>({
    taskQueue: options.taskQueue,
    startToCloseTimeout: options.startToCloseMs,
    heartbeatTimeout: options.heartbeatMs,
    retry: { maximumAttempts: options.maximumAttempts, initialInterval: 1_000 },
    summary: options.summary,
  }).executeStep;
}

/**
 * A step kind's activities (src/step-kinds/activities.ts) on the planner's queue: regular activities (never local;
 * an `llm` step's is an LLM call), heartbeating like planning work.
 */
export function stepKindActivities<A extends object>(summary: string): A {
  return proxyActivities<A>({ ...PLANNING_ACTIVITY_OPTIONS, summary }) as A;
}
