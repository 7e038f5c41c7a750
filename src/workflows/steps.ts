/**
 * One step of the plan, by its kind: a `tool_call` runs `executeStep` on its tool's queue; an `llm` step runs
 * `runLlmStep` on the planner's queue over its dependencies' results (by reference), charged like any LLM call; a
 * `human` step waits (status WAITING) for a person's `completeStep` answer, which becomes its result; a `noop`
 * completes at once, without an activity. A side-effecting step whose outcome is unknown (PLAN-014) waits for a
 * person's `resolveStep` decision when the run's option `on_outcome_unknown` is `ask`. A wait that outlasts
 * `human_step_timeout_ms` fails the step with PLAN-007, and the run re-plans or fails as for any failed step.
 */
import { condition, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { failureOf, llmCallsOfFailure, readFailure, type PlanFailure } from '../api/failures';
import { DEFAULT_PLANNING_OPTIONS } from '../api/input';
import type { StepReply, StepWait } from '../api/state';
import { PlanningTimeoutError } from '../domain/errors';
import { usageOfLlmCalls } from '../domain/llm-calls';
import type { Step } from '../domain/plan';
import { NULL_RESULT_REF, textResult, type StepResult } from '../domain/step-execution';
import { llmStepActivity, planningActivities, stepActivity } from './activities';
import { firstScope } from './effect-keys';
import { nowIso } from './initial-state';
import { countStepFailure } from './observability';
import type { PlanningRun } from './run';
import { inputsOf, stepInput } from './step-inputs';
import { stepKey } from './step-key';

/** Runs started before this sent `llm`, `human` and `noop` steps to `executeStep` with no tool (they failed). */
export const STEP_KINDS_PATCH = 'every-step-kind-runs';

/** Runs started before this re-planned after an unknown outcome (PLAN-014) without asking anyone. */
export const OUTCOME_UNKNOWN_PATCH = 'ask-person-on-unknown-outcome';

/**
 * Runs started after this send a tool step's activity only what it cannot know itself (StepExecutionInput: no ids or
 * catalog it does not use, the default idempotency scope left to the worker, a dependency's data or its ref, not
 * both), and wait for their steps with fewer promises (phases/execute.ts). It implies CONSOLIDATED_PATCH: a new run
 * records this one marker (planning.ts asks it first), where a run without it asks the older ones.
 */
export const LEAN_STEPS_PATCH = 'lean-steps';

/**
 * Runs started after this start each step with `startStep`, which says when the step has ended through callbacks
 * rather than a promise its caller chains on: a tool step makes one promise of its own where runStep makes three.
 * It implies LEAN_STEPS_PATCH, as that one implies CONSOLIDATED_PATCH; MEMO_FROM_START_PATCH (./visibility.ts)
 * implies it in turn: a new run records that one marker.
 */
export const ONE_PROMISE_PER_STEP_PATCH = 'one-promise-per-step';

/**
 * Runs one step and records how it ended. Chained with `then` where it can be (each promise a workflow makes costs the
 * SDK a captured stack, and steps make most of a run's), yet as deep as the async functions it replaced: a tool or
 * llm step's outcome is recorded one reaction after its activity settles and the returned promise settles one
 * later, so steps finishing in one activation are recorded, and waited for, in the order recorded histories show.
 */
export function runStep(run: PlanningRun, step: Step, index: number, everyKindRuns: boolean, lean = false): Promise<void> {
  run.setStep(index, { status: 'RUNNING' });
  let outcome: Promise<void>;
  try {
    outcome = stepOfKind(run, step, index, everyKindRuns, lean);
  } catch (err) {
    outcome = Promise.reject(err); // e.g. activity options the SDK refuses: the step fails, the workflow task does not
  }
  return outcome.then(undefined, (err: unknown) => recordStepError(run, step, index, err));
}

/**
 * Starts one step (ONE_PROMISE_PER_STEP_PATCH) and calls `ended` once its outcome is recorded, or `cancelled` with
 * the run's cancellation. A tool step's activity settles straight into the recording of its outcome: no promise of
 * the step's own is chained on it, as runStep's callers chain on the promise it returns.
 */
export function startStep(run: PlanningRun, step: Step, index: number, everyKindRuns: boolean, ended: () => void, cancelled: (err: unknown) => void): void {
  run.setStep(index, { status: 'RUNNING' });
  const failed = (err: unknown): void => {
    try {
      recordStepError(run, step, index, err);
    } catch (cancellation) {
      return cancelled(cancellation);
    }
    ended();
  };
  /** Runs `record`, then ends the step at once, or when the promise it returns (a wait for a person) settles. */
  const finish = (record: () => Promise<void> | void): void => {
    let waiting: Promise<void> | void;
    try {
      waiting = record();
    } catch (err) {
      return failed(err); // e.g. activity options the SDK refuses: the step fails, the workflow task does not
    }
    if (waiting) waiting.then(ended, failed);
    else ended();
  };
  if (!isToolStep(step, everyKindRuns)) return finish(() => stepOfKind(run, step, index, everyKindRuns, true));
  let tool: ToolStep;
  let outcome: Promise<StepResult>;
  try {
    tool = toolStep(run, step, index, true);
    outcome = tool.execute(firstScope(run, step));
  } catch (err) {
    return failed(err);
  }
  outcome.then(
    (result) => finish(() => completeToolStep(run, step, index, result)),
    (err: unknown) => finish(() => afterToolFailure(run, step, index, err, tool.attempt)),
  );
}

/** A step's error: a cancellation marks it CANCELLED and goes on (thrown); anything else fails it. */
function recordStepError(run: PlanningRun, step: Step, index: number, err: unknown): void {
  if (isCancellation(err)) {
    run.setStep(index, { status: 'CANCELLED' });
    throw err;
  }
  run.charge(usageOfLlmCalls(llmCallsOfFailure(err)), `failed step ${step.id}`, { shown: 'when-parked' }); // an llm step's answered calls
  fail(run, step, index, readFailure(err));
}

/** Whether `step` runs as a tool call: every step before STEP_KINDS_PATCH, and since then each `tool_call`. */
export function isToolStep(step: Step, everyKindRuns: boolean): boolean {
  return !everyKindRuns || step.action === 'tool_call';
}

function stepOfKind(run: PlanningRun, step: Step, index: number, everyKindRuns: boolean, lean: boolean): Promise<void> {
  if (isToolStep(step, everyKindRuns)) {
    const tool = toolStep(run, step, index, lean);
    return tool.attempt(firstScope(run, step));
  }
  if (step.action === 'noop') {
    complete(run, step, index, textResult(null, NULL_RESULT_REF), 'nothing to do');
    return Promise.resolve();
  }
  return step.action === 'llm' ? runLlmStep(run, step, index) : runHumanStep(run, step, index);
}

function complete(run: PlanningRun, step: Step, index: number, result: StepResult, what: string): void {
  run.stepCompleted(index, stepKey(step), result);
  run.charge(result.usage, `step ${step.id}`, { shown: 'when-parked' }); // shown with the completion, when the run parks
  run.audit('step', `step ${step.id} (${step.tool ?? step.action}) completed: ${what}`, result.ref);
}

function fail(run: PlanningRun, step: Step, index: number, { type, code, message }: Pick<PlanFailure, 'type' | 'code' | 'message'>): void {
  run.setStep(index, { status: 'FAILED', error: { type, code, message } });
  countStepFailure(step.tool ?? step.action, code);
  run.audit('step', `step ${step.id} (${step.tool ?? step.action}) failed: ${code} ${message}`);
}

interface ToolStep {
  /** Runs the step's activity under an idempotency scope. */
  execute(scope: string): Promise<StepResult>;
  /** execute, then the outcome recorded: complete, or afterToolFailure (which may ask a person, then try again). */
  attempt(scope: string): Promise<void>;
}

function toolStep(run: PlanningRun, step: Step, index: number, lean: boolean): ToolStep {
  const { state } = run;
  const executeStep = stepActivity({
    taskQueue: state.steps[index]!.queue,
    startToCloseMs: state.options.step_start_to_close_ms,
    heartbeatMs: state.options.step_heartbeat_ms,
    // Side-effecting tools may retry too: the worker's idempotency ledger keys their effects.
    maximumAttempts: state.routes[step.tool ?? '']?.idempotent === false ? 5 : 3,
    summary: `step ${step.id}: ${step.tool ?? step.action} — ${step.title}`.slice(0, 200),
  });
  const execute = (scope: string): Promise<StepResult> => executeStep(stepInput(run, step, index, scope, lean));
  const attempt = (scope: string): Promise<void> =>
    execute(scope).then(
      (result) => completeToolStep(run, step, index, result),
      (err: unknown) => afterToolFailure(run, step, index, err, attempt),
    );
  return { execute, attempt };
}

function completeToolStep(run: PlanningRun, step: Step, index: number, result: StepResult): void {
  complete(run, step, index, result, `${result.items ?? '-'} item(s)${result.replayed ? ' (replayed)' : ''}`);
}

/** A failed tool step fails, unless its outcome is unknown (PLAN-014) under `ask`: then a person decides. */
function afterToolFailure(run: PlanningRun, step: Step, index: number, err: unknown, attempt: (scope: string) => Promise<void>): Promise<void> | void {
  if (isCancellation(err)) throw err;
  const failure = readFailure(err);
  const policy = run.state.options.on_outcome_unknown ?? DEFAULT_PLANNING_OPTIONS.on_outcome_unknown;
  if (failure.code !== 'PLAN-014' || policy !== 'ask' || !(run.paths.consolidated || patched(OUTCOME_UNKNOWN_PATCH))) return fail(run, step, index, failure);
  return decideUnknownOutcome(run, step, index, failure, attempt);
}

async function decideUnknownOutcome(run: PlanningRun, step: Step, index: number, failure: PlanFailure, attempt: (scope: string) => Promise<void>): Promise<void> {
  const question = `Step ${step.id} (${step.tool}) may or may not have acted: ${failure.message}. Check its effect, then retry it, mark it done, or fail it.`;
  const reply = await waitForPerson(run, step, index, 'decision', question);
  if (!reply || !('decision' in reply)) return;
  if (reply.decision === 'fail') return fail(run, step, index, { ...failure, message: `${failure.message} — failed by a person${reply.text ? `: ${reply.text}` : ''}` });
  if (reply.decision === 'done') return complete(run, step, index, await storedText(run, step, reply.text ?? null), 'marked done by a person');
  // The person saw no effect: a fresh scope gives a fresh idempotency key, so the tool acts again. The history
  // length makes it unique without drawing from Math.random, whose sequence tracing interceptors share.
  const scope = `${firstScope(run, step)}:retry-${workflowInfo().historyLength}`;
  run.audit('step', `step ${step.id} (${step.tool}) retried by a person under idempotency scope ${scope}`);
  return attempt(scope);
}

async function runLlmStep(run: PlanningRun, step: Step, index: number): Promise<void> {
  const { state } = run;
  const instruction = typeof step.params.instruction === 'string' ? step.params.instruction : step.description || step.title;
  const { llm_calls, ...result } = await llmStepActivity(`step ${step.id}: llm — ${step.title}`.slice(0, 200))({
    workflow_id: state.workflow_id,
    step_id: step.id,
    goal: state.request.goal,
    // Cut to the activity's input bounds: an over-long title must not fail the step.
    title: step.title.slice(0, 1_000),
    instruction: instruction.slice(0, 10_000),
    expected_output: step.expected_output.slice(0, 2_000),
    inputs: inputsOf(run, step),
    max_input_tokens: state.options.llm_step_input_tokens ?? DEFAULT_PLANNING_OPTIONS.llm_step_input_tokens,
  });
  complete(run, step, index, result, `${llm_calls.length} LLM call(s), ${result.bytes} bytes`);
}

async function runHumanStep(run: PlanningRun, step: Step, index: number): Promise<void> {
  const question = typeof step.params.question === 'string' ? step.params.question : [step.title, step.description].filter(Boolean).join(': ');
  const reply = await waitForPerson(run, step, index, 'answer', question);
  if (reply && 'answer' in reply) complete(run, step, index, await storedText(run, step, reply.answer), 'answered by a person');
}

/** Status WAITING until a person replies (the reply is taken and the step runs on) or the timeout fails the step. */
async function waitForPerson(run: PlanningRun, step: Step, index: number, wanted: StepWait['for'], question: string): Promise<StepReply | null> {
  const timeoutMs = run.state.options.human_step_timeout_ms ?? DEFAULT_PLANNING_OPTIONS.human_step_timeout_ms;
  const until = new Date(Date.now() + timeoutMs).toISOString();
  run.setStep(index, { status: 'WAITING', waiting: { for: wanted, question: question.slice(0, 2_000), since: nowIso(), until } });
  run.audit('step', `step ${step.id} waits for ${wanted === 'answer' ? 'an answer' : 'a decision'} until ${until}: ${question}`);
  run.show(); // it may wait here while the other steps run on
  if (!(await condition(() => run.state.steps[index]!.reply !== undefined, timeoutMs))) {
    const timeout = new PlanningTimeoutError(`no ${wanted} for step ${step.id} within ${timeoutMs} ms`, { step_id: step.id, waited_for: wanted });
    run.setStep(index, { status: 'FAILED', waiting: null });
    fail(run, step, index, failureOf(timeout));
    return null;
  }
  const reply = run.state.steps[index]!.reply!;
  run.setStep(index, { status: 'RUNNING', waiting: null, reply: undefined });
  run.show(); // the step runs on (an activity) without the run parking
  return reply;
}

/** A person's text as a step result, stored in the content store like a tool's data (null needs no storing). */
async function storedText(run: PlanningRun, step: Step, text: string | null): Promise<StepResult> {
  if (text === null) return textResult(null, NULL_RESULT_REF);
  const { ref } = await planningActivities(`store step ${step.id}'s result`, run.paths.lean).archive({ value: text });
  return textResult(text, ref);
}
