/**
 * The typed client for planning runs, used by the CLI and by users' own code. Every method is a thin wrapper over
 * one Temporal call with the message names of src/domain/messages.ts, so anything here can also be done with the
 * stock `temporal` CLI or another SDK. Input and message payloads are checked here first, with the contract's own
 * schemas and limits (src/api), so what the run would refuse is refused in milliseconds with the same InvalidInputError
 * (PLAN-006, with a hint), before anything is sent.
 */
import { randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { loadConfig, type PlannerConfig } from './config';
import {
  completeStepUpdate,
  editPlanUpdate,
  rerunFromUpdate,
  resolveStepUpdate,
  type EditPlanInput,
  type ResolveStepInput,
} from './api/messages';
import { InvalidInputError } from './domain/errors';
import { applyJsonPatch, type JsonPatch } from './domain/json-patch';
import { isTerminal } from './domain/stages';
import { tracingFromConfig, tracingPlugins, type Tracing } from './telemetry/tracing';
import { loadTemporalTarget, workflowUiUrl, type TemporalTarget } from './temporal-connection';
import {
  answerClarificationUpdate,
  approveUpdate,
  checkWorkflowInput,
  getProgressQuery,
  getStateQuery,
  parseMessagePayload,
  raiseBudgetUpdate,
  rejectUpdate,
  waitForProgressUpdate,
  type ClarificationAnswer,
  type PlanningState,
  type PlanningWorkflowInput,
  type ProgressBatch,
} from './api';
import { planningWorkflow } from './workflows';

export interface StartOptions {
  workflowId?: string;
  taskQueue?: string;
  /**
   * What to do when a closed run already has `workflowId` (Temporal's default, ALLOW_DUPLICATE, starts a new run
   * under it; REJECT_DUPLICATE refuses with WorkflowExecutionAlreadyStartedError). A running one is always refused.
   */
  idReusePolicy?: WorkflowIdReusePolicy;
}

/** `list` reads at most this many runs from visibility to find the newest ones. */
export const LIST_SCAN_CAP = 10_000;

export type PlanningHandle = WorkflowHandle<typeof planningWorkflow>;

export class PlannerClient {
  private constructor(
    readonly client: Client,
    readonly target: TemporalTarget,
    private readonly config: PlannerConfig,
    private readonly tracing?: Tracing,
  ) {}

  /**
   * The client factory, an entry point: `options.config` is the planner's configuration, built here from the
   * environment when not given (once per client). `target` defaults to the config's Temporal settings. With
   * OTEL_EXPORTER_OTLP_ENDPOINT set, the client traces too: a run's trace begins with its start. `identity`: the
   * Temporal client identity (default `<pid>@<host>`), which the client also sends as who starts a run and who decides.
   */
  static async connect(
    target?: TemporalTarget,
    options: { identity?: string; config?: PlannerConfig } = {},
  ): Promise<PlannerClient> {
    const config = options.config ?? loadConfig();
    const resolved = target ?? loadTemporalTarget(config.temporal);
    const connection = await Connection.connect(resolved.connectionOptions);
    const tracing = tracingFromConfig(config);
    const identity = options.identity === undefined ? {} : { identity: options.identity };
    return new PlannerClient(
      new Client({ connection, namespace: resolved.namespace, plugins: tracingPlugins(tracing), ...identity }),
      resolved,
      config,
      tracing,
    );
  }

  /**
   * Who this client is, as a run records it: its Temporal client identity, one line of at most 200 characters.
   * Workflow code cannot read an update's identity, so the client sends it in the payload (`identity`) and in the
   * start input (`started_by`); Temporal's history keeps its own record of both (`planner history` shows it).
   */
  get identity(): string {
    return clientIdentity(this.client.options.identity);
  }

  /**
   * Throws InvalidInputError (PLAN-006) without contacting the server when the run would refuse `input`. The input
   * names who starts it (`started_by`: this client's identity, unless the input names someone).
   */
  async start(
    input: PlanningWorkflowInput,
    options: StartOptions = {},
  ): Promise<WorkflowHandleWithFirstExecutionRunId<typeof planningWorkflow>> {
    return await this.client.workflow.start(
      planningWorkflow,
      // An option left undefined (a CLI flag not given) keeps the configured queue.
      planningStartOptions(
        { started_by: this.identity, ...input },
        { ...options, taskQueue: options.taskQueue ?? this.config.taskQueue },
      ),
    );
  }

  /** `payload` with this client's identity, unless it names one. */
  private signed<P extends object>(payload: P): P & { identity: string } {
    return { identity: this.identity, ...payload };
  }

  /**
   * The run's progress events after `afterSeq`, as soon as there are any (the waitForProgress update: the workflow
   * holds it until something changes or `waitMs` passes). Targets the workflow id's current run, so after
   * continue-as-new the same sequence goes on in the new run.
   */
  async waitForProgress(workflowId: string, afterSeq: number, waitMs?: number): Promise<ProgressBatch> {
    const args = [{ after_seq: afterSeq, ...(waitMs === undefined ? {} : { wait_ms: waitMs }) }] as const;
    return await this.handle(workflowId).executeUpdate(waitForProgressUpdate, { args: [...args] });
  }

  /** The events after `afterSeq` at once, by query: also for a closed run (a worker replays it). */
  async progress(workflowId: string, afterSeq: number, timeoutMs = this.config.queryTimeoutMs): Promise<ProgressBatch> {
    return await this.client.connection.withDeadline(Date.now() + timeoutMs, () =>
      this.handle(workflowId).query(getProgressQuery, { after_seq: afterSeq }),
    );
  }

  handle(workflowId: string): PlanningHandle {
    return this.client.workflow.getHandle<typeof planningWorkflow>(workflowId);
  }

  /**
   * The run's state. A query needs a worker to answer it (a closed run is replayed by one), so it is bounded:
   * after `timeoutMs` (PLANNER_QUERY_TIMEOUT_MS, default 10 s) it fails with DEADLINE_EXCEEDED instead of hanging.
   */
  async state(workflowId: string, timeoutMs = this.config.queryTimeoutMs): Promise<PlanningState> {
    return await this.client.connection.withDeadline(Date.now() + timeoutMs, () =>
      this.handle(workflowId).query(getStateQuery),
    );
  }

  /** `answer` is `{ option: n }` (1-based, as shown) or `{ text }`; rejected with a clear message if invalid. */
  async answer(workflowId: string, answer: ClarificationAnswer): Promise<string> {
    const signed = this.signed(answer);
    parseMessagePayload('answerClarification', signed);
    return await this.handle(workflowId).executeUpdate(answerClarificationUpdate, { args: [signed] });
  }

  /**
   * Approves `planVersion`, the version the person was shown (send it: the run refuses a decision on any other
   * version, so a plan that changed meanwhile is never approved unseen).
   */
  async approve(workflowId: string, comment?: string, planVersion?: number, step?: string): Promise<string> {
    const version = planVersion === undefined ? {} : { plan_version: planVersion };
    const approval = this.signed({
      ...(comment ? { comment } : {}),
      ...version,
      ...(step === undefined ? {} : { step }),
    });
    parseMessagePayload('approve', approval);
    return await this.handle(workflowId).executeUpdate(approveUpdate, { args: [approval] });
  }

  /**
   * Rejects `planVersion` (the version shown) with a reason that shapes the next version; with `step` (under
   * `approval: per-step`), the side-effecting step waiting for a person, which fails with the reason.
   */
  async reject(workflowId: string, reason: string, planVersion?: number, step?: string): Promise<string> {
    const rejection = this.signed({
      reason,
      ...(planVersion === undefined ? {} : { plan_version: planVersion }),
      ...(step === undefined ? {} : { step }),
    });
    parseMessagePayload('reject', rejection);
    return await this.handle(workflowId).executeUpdate(rejectUpdate, { args: [rejection] });
  }

  async raiseBudget(workflowId: string, raise: { cost_usd?: number; tokens?: number; calls?: number }) {
    const signed = this.signed(raise);
    parseMessagePayload('raiseBudget', signed);
    return await this.handle(workflowId).executeUpdate(raiseBudgetUpdate, { args: [signed] });
  }

  /** Answers the `human` step `step` (status WAITING); the answer becomes the step's result. */
  async completeStep(workflowId: string, step: string, answer: string): Promise<string> {
    const signed = this.signed({ step, answer });
    parseMessagePayload('completeStep', signed);
    return await this.handle(workflowId).executeUpdate(completeStepUpdate, { args: [signed] });
  }

  /** Decides on the step `step` whose outcome is unknown (PLAN-014): retry it, mark it done, or fail it. */
  async resolveStep(workflowId: string, decision: ResolveStepInput): Promise<string> {
    const signed = this.signed(decision);
    parseMessagePayload('resolveStep', signed);
    return await this.handle(workflowId).executeUpdate(resolveStepUpdate, { args: [signed] });
  }

  /**
   * Edits plan `edit.plan_version`, the version awaiting approval: the whole changed `plan` or a JSON `patch` over it.
   * The run validates it as a generated plan (an invalid edit is refused naming each issue) and records it as the next
   * version, which is critiqued and awaits approval again.
   */
  async editPlan(
    workflowId: string,
    edit: Pick<EditPlanInput, 'plan_version' | 'plan' | 'patch' | 'comment'>,
  ): Promise<string> {
    const signed = this.signed(edit);
    parseMessagePayload('editPlan', signed);
    return await this.handle(workflowId).executeUpdate(editPlanUpdate, { args: [signed] });
  }

  /** An open run re-runs `step` and its downstream cone as a new plan version (rerunFrom); `patch` changes the plan first. */
  async rerunFrom(workflowId: string, step: string, patch?: JsonPatch): Promise<string> {
    const signed = this.signed({ step, ...(patch ? { patch } : {}) });
    parseMessagePayload('rerunFrom', signed);
    return await this.handle(workflowId).executeUpdate(rerunFromUpdate, { args: [signed] });
  }

  /**
   * A closed run re-run from `from`: a new run with the old run's request and options, its plan (patched by `patch`),
   * and its completed steps' results by reference; it keeps the steps outside `from`'s downstream cone.
   */
  async rerunClosed(
    workflowId: string,
    rerun: { from: string; patch?: JsonPatch },
    options: StartOptions = {},
  ): Promise<WorkflowHandleWithFirstExecutionRunId<typeof planningWorkflow>> {
    const old = await this.state(workflowId);
    if (!isTerminal(old.stage) || !old.plan)
      throw new InvalidInputError(
        `${workflowId} is ${old.stage}${old.plan ? '' : ' with no plan'}: only a closed run with a plan is re-run as a new run`,
        old.plan ? 'Send rerunFrom to the open run (`planner rerun` does when it is open).' : 'Start a new run.',
      );
    const plan = rerun.patch ? applyJsonPatch(old.plan, rerun.patch) : old.plan;
    const { trace_id: _trace, ...request } = old.request;
    return await this.start(
      {
        request,
        options: old.options,
        rerun: {
          of: workflowId,
          from: rerun.from,
          plan: plan as Record<string, unknown>,
          completed_steps: old.completed_steps,
        },
      },
      options,
    );
  }

  /**
   * Requests Temporal cancellation. A `reason` goes with the request (RequestCancelWorkflowExecution's reason), so
   * the run's history keeps it on its WorkflowExecutionCancelRequested event (`planner history` prints it).
   */
  async cancel(workflowId: string, reason?: string): Promise<void> {
    if (reason === undefined) {
      await this.handle(workflowId).cancel();
      return;
    }
    await this.client.workflowService.requestCancelWorkflowExecution({
      namespace: this.target.namespace,
      workflowExecution: { workflowId },
      identity: this.client.options.identity,
      requestId: randomUUID(),
      reason,
    });
  }

  /** Ends the run at once (Temporal termination: no cleanup runs in the workflow); the reason is kept in its history. */
  async terminate(workflowId: string, reason?: string): Promise<void> {
    await this.handle(workflowId).terminate(reason);
  }

  /**
   * The `limit` newest planning runs (by start time) from Temporal visibility: `WorkflowType = 'planningWorkflow'`,
   * optionally only those in `stage` (the PlanStage search attribute), on `taskQueue` (Temporal's TaskQueue), or open at
   * or after `activeSince` (running, or closed since). The server does not list by start time (the
   * SQL visibility of the dev server lists running runs first, then closed ones by close time) and SQL visibility
   * refuses ORDER BY, so this pages through the matches, at most LIST_SCAN_CAP of them, and sorts. Visibility is
   * eventually consistent: a run shows up a moment after it starts or moves.
   */
  async list(
    filter: { stage?: string; taskQueue?: string; limit?: number; activeSince?: Date } = {},
  ): Promise<WorkflowExecutionInfo[]> {
    const quoted = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    const clauses = [`WorkflowType = 'planningWorkflow'`];
    if (filter.stage) clauses.push(`PlanStage = ${quoted(filter.stage)}`);
    if (filter.taskQueue) clauses.push(`TaskQueue = ${quoted(filter.taskQueue)}`);
    // Runs that could have acted at or after `activeSince`: still open, or closed since.
    if (filter.activeSince)
      clauses.push(`(ExecutionStatus = 'Running' OR CloseTime >= '${filter.activeSince.toISOString()}')`);
    const limit = filter.limit ?? 50;
    const runs: WorkflowExecutionInfo[] = [];
    for await (const info of this.client.workflow.list({ query: clauses.join(' AND '), pageSize: 1000 })) {
      runs.push(info);
      if (runs.length >= Math.max(limit, LIST_SCAN_CAP)) break;
    }
    return runs.sort((a, b) => b.startTime.getTime() - a.startTime.getTime()).slice(0, limit);
  }

  /** The run's event history (the latest run of `workflowId` unless `runId` is given). */
  async history(workflowId: string, runId?: string): Promise<temporal.api.history.v1.IHistory> {
    return await this.client.workflow.getHandle(workflowId, runId).fetchHistory();
  }

  uiUrl(workflowId: string, runId?: string): string | undefined {
    return workflowUiUrl(this.target, workflowId, runId);
  }

  async close(): Promise<void> {
    await this.client.connection.close();
    await this.tracing?.shutdown();
  }
}

/** A Temporal client identity as a run takes it: control characters to spaces, trimmed, at most 200 characters. */
export function clientIdentity(identity: string): string {
  return (
    identity
      .replace(/\p{Cc}+/gu, ' ')
      .trim()
      .slice(0, 200) || 'unknown'
  );
}

/**
 * How PlannerClient.start (and the bench) start a run: `input` checked first (InvalidInputError, PLAN-006, for what
 * the run would refuse), the goal as the run reads it (trimmed, secrets redacted) in the memo, so the run publishes
 * no memo of its own (src/workflows/visibility.ts), and the Web UI's summary and details.
 */
export function planningStartOptions(
  input: PlanningWorkflowInput,
  options: StartOptions & { taskQueue: string },
): WorkflowStartOptions<typeof planningWorkflow> {
  const { goal } = checkWorkflowInput(input).request;
  return {
    args: [input],
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? `plan-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    memo: { goal },
    ...(options.idReusePolicy ? { workflowIdReusePolicy: options.idReusePolicy } : {}),
    staticSummary: `Plan: ${goal}`.slice(0, 200),
    staticDetails: startDetails(input, goal),
  };
}

/** The most of the goal the start's static details show (the Web UI's "Details"; the whole goal is in the input). */
export const STATIC_GOAL_MAX_CHARS = 2_000;

/** The start's static details, markdown: the goal (checked: secrets redacted) and the options the run was started with. */
export function startDetails(input: PlanningWorkflowInput, goal: string): string {
  const { request, options = {} } = input;
  const b = request.budget;
  const lines = [
    `**Goal:** ${(goal.length > STATIC_GOAL_MAX_CHARS ? `${goal.slice(0, STATIC_GOAL_MAX_CHARS - 1)}…` : goal).replace(/\s+/g, ' ')}`,
    `**Catalog:** ${request.tool_catalog ?? 'waste'} · **Planner:** ${request.planner ?? 'auto'}`,
    b
      ? `**Budget:** ${b.calls ?? '–'} calls · ${b.tokens ?? '–'} tokens · ${b.cost_usd ?? '–'} USD (${b.policy ?? 'block'})`
      : '**Budget:** defaults',
    `**Options:** ${
      Object.entries(options)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(', ') || 'defaults'
    }`,
  ];
  return lines.join('  \n');
}
