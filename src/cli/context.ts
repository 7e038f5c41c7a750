/**
 * What every `planner` command shares: exit codes, the one-line errors with a hint, zod parsing of arguments and the
 * connection to Temporal (envconfig via loadTemporalTarget, overridden by --address / --namespace).
 */
import os from 'node:os';
import {
  TerminatedFailure,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowFailedError,
  isGrpcServiceError,
} from '@temporalio/client';
import { z } from 'zod';
import { readFailure } from '../api/failures';
import { PROGRESS_WAITERS_MAX } from '../api/progress';
import { PlannerClient } from '../client';
import { DEFAULT_TASK_QUEUE, loadConfig, type PlannerConfig } from '../config';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import { loadTemporalTarget, type TemporalTarget } from '../temporal-connection';
import { safeJson, shellArg, terminalSafe } from './safe-text';

export const EXIT = { ok: 0, error: 1, usage: 2, notFound: 3, planFailed: 4 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as one line (plus a hint) and an exit code, never as a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface GlobalOptions {
  address?: string;
  namespace?: string;
  json?: boolean;
  verbose?: boolean;
}

/** Parses CLI input with a zod schema; a failure is a usage error naming `what`. */
export function parseArg<S extends z.ZodType>(schema: S, value: unknown, what: string, hint?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new CliError(`invalid ${what}: ${formatZodIssues(parsed.error).join('; ')}`, EXIT.usage, hint);
}

/** ` --task-queue <q>` for a printed command, or nothing for the default queue (which every command uses anyway). */
export function taskQueueFlag(taskQueue: string): string {
  return taskQueue === DEFAULT_TASK_QUEUE ? '' : ` --task-queue ${shellArg(taskQueue)}`;
}

export const WorkflowIdSchema = z.string().trim().min(1, 'a workflow id is required').max(1000);

/** The planner's configuration; a bad variable is a usage error whose hint names it. */
export function cliConfig(): PlannerConfig {
  try {
    return loadConfig();
  } catch (err) {
    throw usageErrorOf(err);
  }
}

/** Input refused by the contract's own check (InvalidInputError, PLAN-006) is a usage error (exit 2) with its hint. */
export function usageErrorOf(err: unknown): unknown {
  return err instanceof InvalidInputError ? new CliError(err.message.replace(/\n/g, ' '), EXIT.usage, err.hint) : err;
}

export function targetOf(options: GlobalOptions, config: PlannerConfig = cliConfig()): TemporalTarget {
  return loadTemporalTarget(config.temporal, { address: options.address, namespace: options.namespace });
}

/** Connects the client, turning an unreachable server into one line that names the address tried. */
/**
 * The CLI's client identity: the user and the machine (`alice@laptop`), the same for every command a person runs, so
 * a run records who decided and `four_eyes` can tell the starter's approval (Temporal's default, `<pid>@<host>`,
 * changes with every process).
 */
export function cliIdentity(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username || user;
  } catch {
    // no passwd entry for this uid (a container): the machine alone
  }
  return `${user}@${os.hostname()}`;
}

export async function connect(options: GlobalOptions): Promise<PlannerClient> {
  const config = cliConfig();
  const target = targetOf(options, config);
  // Fail fast on a wrong address (the client's default waits 10 s); PLANNER_CONNECT_TIMEOUT overrides.
  const connectionOptions = { ...target.connectionOptions, connectTimeout: config.connectTimeout };
  try {
    return await PlannerClient.connect(
      { ...target, connectionOptions: connectionOptions as TemporalTarget['connectionOptions'] },
      { identity: cliIdentity(), config },
    );
  } catch (err) {
    throw new CliError(
      `cannot reach Temporal at ${target.address} (namespace ${target.namespace}): ${firstLine((err as Error).message)}`,
      EXIT.error,
      'start a local server with `planner dev`, or point TEMPORAL_ADDRESS / --address at yours',
    );
  }
}

/** Runs `fn` with a connected client and closes it afterwards. */
export async function withClient<T>(options: GlobalOptions, fn: (client: PlannerClient) => Promise<T>): Promise<T> {
  const client = await connect(options);
  try {
    return await fn(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_NOT_FOUND = 5;
const GRPC_RESOURCE_EXHAUSTED = 8;
const GRPC_FAILED_PRECONDITION = 9;

/** The gRPC status of an error or of the error it wraps (the client wraps query failures in a ServiceError). */
function grpcStatusOf(err: unknown): { code: number; details: string } | undefined {
  for (const e of [err, err instanceof Error ? err.cause : undefined]) {
    if (isGrpcServiceError(e)) return { code: e.code, details: e.details ?? e.message };
  }
  return undefined;
}
const GRPC_UNAVAILABLE = 14;

/** Maps Temporal's errors on a run to CliErrors: unknown id → 3, a message the workflow refused → 2. */
export function explainRunError(err: unknown, workflowId: string, address?: string): unknown {
  if (err instanceof CliError || err instanceof InvalidInputError) return usageErrorOf(err);
  const text = err instanceof Error ? `${err.message} ${err.cause instanceof Error ? err.cause.message : ''}` : '';
  if (/already completed/i.test(text)) {
    return new CliError(
      `run ${workflowId} has already ended`,
      EXIT.usage,
      `see how with \`planner show ${shellArg(workflowId)}\``,
    );
  }
  if (
    err instanceof WorkflowNotFoundError ||
    (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) ||
    (err instanceof Error && isGrpcServiceError(err.cause) && err.cause.code === GRPC_NOT_FOUND)
  ) {
    return new CliError(`no planning run with id "${workflowId}"`, EXIT.notFound, 'list the runs with `planner list`');
  }
  if (err instanceof WorkflowUpdateFailedError) {
    const refusal = readFailure(err);
    // A refused plan (PLAN-003, editPlan) lists its issues on the lines after the first: a person needs them.
    const [head = '', ...issues] = refusal.message.split('\n');
    const message = refusal.code === 'PLAN-003' ? `${head.replace(/:$/, '')}: ${issues.join('; ')}` : firstLine(head);
    return new CliError(
      `the run refused it: ${message}`,
      refusal.code === 'PLAN-006' || refusal.code === 'PLAN-003' ? EXIT.usage : EXIT.error, // PLAN-003: a plan a person sent (editPlan)
      `${refusal.hint.replace(/\.$/, '')}; see the run's stage and question with \`planner show ${shellArg(workflowId)}\``,
    );
  }
  if (err instanceof WorkflowFailedError && err.cause instanceof TerminatedFailure) {
    return new CliError(
      `run ${workflowId} was terminated: ${firstLine(err.cause.message)}`,
      EXIT.planFailed,
      `see its events with \`planner history ${shellArg(workflowId)}\``,
    );
  }
  if (err instanceof WorkflowFailedError) {
    const failure = readFailure(err);
    return new CliError(
      `run ${workflowId} failed: ${failure.code} ${firstLine(failure.message)}`,
      EXIT.planFailed,
      `${failure.hint.replace(/\.$/, '')}; see why with \`planner history ${shellArg(workflowId)}\``,
    );
  }
  const status = grpcStatusOf(err);
  if (status?.code === GRPC_RESOURCE_EXHAUSTED && /in-flight updates/.test(status.details)) {
    return new CliError(
      `the server refused the update to run ${workflowId}: ${firstLine(status.details)}; other clients' updates hold every place (a watcher that is not \`planner watch\` keeps long-polls open, for instance)`,
      EXIT.error,
      `try again once they return; \`planner watch\` holds at most ${PROGRESS_WAITERS_MAX} per run and reads by query beyond that`,
    );
  }
  if (status && (status.code === GRPC_DEADLINE_EXCEEDED || status.code === GRPC_FAILED_PRECONDITION)) {
    return new CliError(
      `no worker answered for run ${workflowId} (${firstLine(status.details)}); its state comes from a worker, which replays a closed run`,
      EXIT.error,
      'start one with `planner worker` (or `planner dev`) and try again; `planner history` still shows the event history',
    );
  }
  if (isGrpcServiceError(err) && err.code === GRPC_UNAVAILABLE) {
    return new CliError(
      `cannot reach Temporal${address ? ` at ${address}` : ''}: ${firstLine(err.details ?? err.message)}`,
      EXIT.error,
      'is the server running? `planner dev` starts a local one',
    );
  }
  return err;
}

export interface Output {
  json: boolean;
  /** Human output (stdout). */
  line(text?: string): void;
  /** The command's JSON result (stdout), printed once. */
  data(value: unknown): void;
  /** Progress and notes that must not pollute --json output (stderr when --json). */
  note(text: string): void;
}

export function output(options: GlobalOptions): Output {
  const json = Boolean(options.json);
  return {
    json,
    // Human output is multi-line by design; every other control character is escaped (src/cli/safe-text.ts).
    line: (text = '') => process.stdout.write(`${terminalSafe(text, { multiline: true })}\n`),
    data: (value) => process.stdout.write(`${safeJson(value)}\n`),
    note: (text) => (json ? process.stderr : process.stdout).write(`${terminalSafe(text, { multiline: true })}\n`),
  };
}

/** Prints an error the way the CLI promises: one line and a hint; the stack only with --verbose. */
export function reportError(err: unknown, verbose: boolean): ExitCode {
  if (err instanceof CliError) {
    process.stderr.write(
      `error: ${terminalSafe(err.message)}${err.hint ? ` (hint: ${terminalSafe(err.hint)})` : ''}\n`,
    );
    if (verbose && err.stack) process.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? firstLine(err.message) : String(err);
  process.stderr.write(`error: ${terminalSafe(message)} (hint: run again with --verbose for details)\n`);
  if (verbose) process.stderr.write(`${err instanceof Error ? err.stack : ''}\n`);
  return EXIT.error;
}
