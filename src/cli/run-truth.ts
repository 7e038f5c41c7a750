/**
 * What Temporal itself knows about a run, read without a worker: describe() (status, task queue), the event history
 * (the last workflow-task failure, the termination reason, the run's typed failure, its result, a timeout) and the
 * workflow pollers of its task queue. The CLI reads it when a query cannot be answered, to say why instead of
 * guessing "no worker", and to show a closed run when no worker is there to replay it.
 */
import { QueryNotRegisteredError, ServiceError, isGrpcServiceError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { readFailure, type PlanFailure } from '../api/failures';
import type { PlanningOutcome } from '../api/state';
import type { PlannerClient } from '../client';
import { CliError, EXIT } from './context';
import { shellArg } from './safe-text';

const EventType = temporal.api.enums.v1.EventType;

export interface RunTruth {
  workflowId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, CONTINUED_AS_NEW. */
  status: string;
  taskQueue: string;
  /** The PlanStage search attribute, if the run published one. */
  stage: string | null;
  goal: string | null;
  /** The message of the last WorkflowTaskFailed event not followed by a completed workflow task. */
  workflowTaskFailure: string | null;
  termination: { reason: string; identity: string } | null;
  /** A FAILED run's typed failure. */
  failure: PlanFailure | null;
  timedOut: boolean;
  /** A COMPLETED run's result. */
  outcome: PlanningOutcome | null;
  /** Workers polling the run's task queue for workflow tasks; null when that could not be read. */
  pollers: number | null;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

export async function readRunTruth(client: PlannerClient, workflowId: string): Promise<RunTruth> {
  const handle = client.client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const history = await handle.fetchHistory();
  const { payloadConverter, failureConverter } = client.client.options.loadedDataConverter;
  const truth: RunTruth = {
    workflowId,
    status: description.status.name,
    taskQueue: description.taskQueue,
    stage:
      typeof description.searchAttributes?.PlanStage?.[0] === 'string'
        ? (description.searchAttributes.PlanStage[0] as string)
        : null,
    goal: typeof description.memo?.goal === 'string' ? description.memo.goal : null,
    workflowTaskFailure: null,
    termination: null,
    failure: null,
    timedOut: false,
    outcome: null,
    pollers: null,
  };
  for (const e of history.events ?? []) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED: {
        const a = e.workflowTaskFailedEventAttributes;
        truth.workflowTaskFailure =
          firstLine(a?.failure?.message ?? '') || `workflow task failed (cause ${a?.cause ?? 'unknown'})`;
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        truth.workflowTaskFailure = null;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: {
        const a = e.workflowExecutionTerminatedEventAttributes;
        truth.termination = { reason: a?.reason || '(no reason given)', identity: a?.identity ?? '' };
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: {
        const failure = e.workflowExecutionFailedEventAttributes?.failure;
        if (failure) truth.failure = readFailure(failureConverter.failureToError(failure, payloadConverter));
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
        truth.timedOut = true;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: {
        const payload = e.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
        if (payload) truth.outcome = payloadConverter.fromPayload<PlanningOutcome>(payload);
        break;
      }
    }
  }
  if (truth.status === 'RUNNING') truth.pollers = await workflowPollers(client, truth.taskQueue);
  return truth;
}

/** How many workers poll `taskQueue` for workflow tasks (those seen in the last minutes); null when it cannot be read. */
export async function workflowPollers(client: PlannerClient, taskQueue: string): Promise<number | null> {
  return await client.client.workflowService
    .describeTaskQueue({
      namespace: client.client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    })
    .then((r) => r.pollers?.length ?? 0)
    .catch(() => null);
}

/** The warning for a run on a task queue no worker polls: it makes no progress until one starts there. */
export function noWorkerWarning(taskQueue: string): string {
  return `warning: no worker polls task queue ${taskQueue}: the run waits until one starts there (\`durable-planner worker --task-queue ${shellArg(taskQueue)}\`, or \`planner dev --task-queue ${shellArg(taskQueue)}\` locally)`;
}

/** Writes noWorkerWarning to stderr when no worker polls `taskQueue` (nothing when it cannot tell). */
export async function warnIfNoWorker(client: PlannerClient, taskQueue: string): Promise<void> {
  if ((await workflowPollers(client, taskQueue)) === 0) process.stderr.write(`${noWorkerWarning(taskQueue)}\n`);
}

/** A running run's task queue, for warnIfNoWorker; null when the run is closed or cannot be described. */
export async function runningQueue(client: PlannerClient, workflowId: string): Promise<string | null> {
  const d = await client
    .handle(workflowId)
    .describe()
    .catch(() => null);
  return d?.status.name === 'RUNNING' ? d.taskQueue : null;
}

const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_FAILED_PRECONDITION = 9;

/**
 * A query that got no answer: the deadline passed, the server refused it (FAILED_PRECONDITION: the workflow task is
 * failing, or no worker), or the client's "Failed to query Workflow" (any other gRPC status, e.g. under load).
 */
export function isUnansweredQuery(err: unknown): boolean {
  if (err instanceof ServiceError && /^Failed to query Workflow/.test(err.message)) return true;
  for (const e of [err, err instanceof Error ? err.cause : undefined]) {
    if (isGrpcServiceError(e) && (e.code === GRPC_DEADLINE_EXCEEDED || e.code === GRPC_FAILED_PRECONDITION))
      return true;
  }
  return false;
}

/** A run that never registered its state query: it ended first (its input refused), so only its history tells. */
export function isUnregisteredQuery(err: unknown): boolean {
  return err instanceof QueryNotRegisteredError;
}

/** Why a run's state could not be read, from what Temporal knows of it (for `history`, which shows the events anyway). */
export async function whyNoState(client: PlannerClient, workflowId: string, err: unknown): Promise<string> {
  const truth = await readRunTruth(client, workflowId).catch(() => null);
  if (truth && isUnregisteredQuery(err)) return `the run kept no state: it ${endingOf(truth)}`;
  if (truth && isUnansweredQuery(err)) return explainUnanswered(truth, err).message;
  return `its state could not be read: ${queryErrorDetail(err)}`;
}

/** The gRPC detail of a query error, for the message. */
export function queryErrorDetail(err: unknown): string {
  for (const e of [err instanceof Error ? err.cause : undefined, err]) {
    if (isGrpcServiceError(e)) return firstLine(e.details || e.message);
  }
  return err instanceof Error ? firstLine(err.message) : String(err);
}

/** Why a closed run ended, in one phrase: "failed: PLAN-006 …", "was terminated: reason", "timed out", … */
export function endingOf(truth: RunTruth): string {
  if (truth.termination)
    return `was terminated: ${truth.termination.reason}${truth.termination.identity ? ` (by ${truth.termination.identity})` : ''}`;
  if (truth.failure) return `failed: ${truth.failure.code} ${firstLine(truth.failure.message)}`;
  if (truth.timedOut) return 'timed out (its workflow execution timeout passed)';
  return `is ${truth.status}`;
}

/**
 * The true reason a query on a run got no answer. Only a RUNNING run whose workflow task is not failing and whose
 * task queue no worker polls is "no worker answered".
 */
export function explainUnanswered(truth: RunTruth, err: unknown): CliError {
  const id = truth.workflowId;
  const detail = queryErrorDetail(err);
  if (truth.status !== 'RUNNING') {
    return new CliError(
      `run ${id} ${endingOf(truth)}; its state needs a worker to replay it (${detail})`,
      truth.status === 'COMPLETED' ? EXIT.error : EXIT.planFailed,
      `\`planner history ${shellArg(id)}\` shows its events without a worker; start one with \`planner worker --task-queue ${shellArg(truth.taskQueue)}\` for the full state`,
    );
  }
  if (truth.workflowTaskFailure !== null) {
    return new CliError(
      `the run's workflow task keeps failing: ${truth.workflowTaskFailure}`,
      EXIT.error,
      `the worker on task queue ${truth.taskQueue} cannot run this workflow's code (a bug, or a non-deterministic change); fix and restart it, or end the run with \`temporal workflow terminate --workflow-id ${id}\``,
    );
  }
  if (truth.pollers === 0) {
    return new CliError(
      `no worker answered for run ${id}: no worker polls its task queue ${truth.taskQueue} (${detail})`,
      EXIT.error,
      `start one with \`planner worker --task-queue ${shellArg(truth.taskQueue)}\` (or \`planner dev --task-queue ${shellArg(truth.taskQueue)}\`) and try again; \`planner history\` still shows the event history`,
    );
  }
  return new CliError(
    `the worker on task queue ${truth.taskQueue} did not answer for run ${id} in time (${detail})`,
    EXIT.error,
    'the server or the worker is busy: try again, or allow more time with PLANNER_QUERY_TIMEOUT_MS',
  );
}
