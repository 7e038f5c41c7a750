/**
 * One step of the plan, by its kind: a `tool_call` runs `executeStep` on its tool's queue; an `llm` step runs
 * `runLlmStep` on the planner's queue over its dependencies' results (by reference), charged like any LLM call; a
 * `human` step waits (status WAITING) for a person's `completeStep` answer, which becomes its result; a `noop`
 * completes at once, without an activity. A side-effecting step whose outcome is unknown (PLAN-014) waits for a
 * person's `resolveStep` decision when the run's option `on_outcome_unknown` is `ask`. A wait that outlasts
 * `human_step_timeout_ms` fails the step with PLAN-007, and the run re-plans or fails as for any failed step.
 */
import { condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import { failureOf, llmCallsOfFailure, readFailure, type PlanFailure } from '../api/failures';
import { approvalMode, DEFAULT_PLANNING_OPTIONS, type PlanningOptions } from '../api/input';
import { hasSideEffects } from '../domain/approval-gate';
import type { StepReply, StepWait } from '../api/state';
import { PlanRejectedError, PlanningTimeoutError } from '../domain/errors';
import { usageOfLlmCalls } from '../domain/llm-calls';
import type { Step } from '../domain/plan';
import { NULL_RESULT_REF, textResult, type StepResult } from '../domain/step-execution';
import { planningActivities, stepActivity, stepKindActivities } from './activities';
import { firstScope } from './effect-keys';
import { nowIso } from './initial-state';
import { countStepFailure } from './observability';
import type { PlanningRun } from './run';
import { inputsOf, stepInput } from './step-inputs';
import { stepKey } from './step-key';
import { stepKind, type StepKindContext } from '../step-kinds';

/** Runs one step until its outcome is recorded; rejects only with the run's cancellation (the step CANCELLED). */
export async function runStep(run: PlanningRun, step: Step, index: number): Promise<void> {
  run.setStep(index, { status: 'RUNNING' });
  try {
    await stepOutcome(run, step, index);
  } catch (err) {
    recordStepError(run, step, index, err); // e.g. activity options the SDK refuses: the step fails, the workflow task does not
  }
}

async function stepOutcome(run: PlanningRun, step: Step, index: number): Promise<void> {
  if (step.action !== 'tool_call') return stepOfKind(run, step, index);
  if (approvalMode(run.state.options) === 'per-step' && hasSideEffects(step, run.state.routes))
    return approvedFirst(run, step, index);
  return toolAttempt(run, step, index)(firstScope(run, step));
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

/** A step that calls no tool: run by its kind (src/step-kinds), through the context below. */
function stepOfKind(run: PlanningRun, step: Step, index: number): Promise<void> | void {
  const kind = stepKind(step.action);
  if (!kind) throw new Error(`no step kind "${step.action}" on this worker`); // validation refuses such plans
  return kind.run(step, kindContext(run, step, index));
}

function kindContext(run: PlanningRun, step: Step, index: number): StepKindContext {
  const { state } = run;
  return {
    workflowId: state.workflow_id,
    goal: state.request.goal,
    option: (key) => (state.options[key] ?? DEFAULT_PLANNING_OPTIONS[key]) as NonNullable<PlanningOptions[typeof key]>,
    inputs: () => inputsOf(run, step),
    activities: stepKindActivities,
    complete: (result, what) => complete(run, step, index, result, what),
    completeEmpty: (what) => complete(run, step, index, textResult(null, NULL_RESULT_REF), what),
    storedText: (text) => storedText(step, text),
    askPerson: async (question) => {
      const reply = await waitForPerson(run, step, index, 'answer', question);
      return reply && 'answer' in reply ? { answer: reply.answer } : null;
    },
  };
}

function complete(run: PlanningRun, step: Step, index: number, result: StepResult, what: string): void {
  run.stepCompleted(index, stepKey(step), result);
  run.charge(result.usage, `step ${step.id}`, { shown: 'when-parked' }); // shown with the completion, when the run parks
  run.audit('step', `step ${step.id} (${step.tool ?? step.action}) completed: ${what}`, { ref: result.ref });
}

function fail(
  run: PlanningRun,
  step: Step,
  index: number,
  { type, code, message }: Pick<PlanFailure, 'type' | 'code' | 'message'>,
): void {
  run.setStep(index, { status: 'FAILED', error: { type, code, message } });
  countStepFailure(step.tool ?? step.action, code);
  run.audit('step', `step ${step.id} (${step.tool ?? step.action}) failed: ${code} ${message}`);
}

/** A tool step's attempt under an idempotency scope: its activity, then its outcome recorded (complete, or afterToolFailure, which may ask a person, then attempt again). */
function toolAttempt(run: PlanningRun, step: Step, index: number): (scope: string) => Promise<void> {
  const { state } = run;
  const executeStep = stepActivity({
    taskQueue: state.steps[index]!.queue,
    startToCloseMs: state.options.step_start_to_close_ms,
    heartbeatMs: state.options.step_heartbeat_ms,
    // Side-effecting tools may retry too: the worker's idempotency ledger keys their effects.
    maximumAttempts: state.routes[step.tool ?? '']?.idempotent === false ? 5 : 3,
    summary: `step ${step.id}: ${step.tool ?? step.action} — ${step.title}`.slice(0, 200),
  });
  const attempt = async (scope: string): Promise<void> => {
    const outcome = executeStep(stepInput(run, step, index, scope));
    let result: StepResult;
    try {
      result = await outcome;
    } catch (err) {
      return afterToolFailure(run, step, index, err, attempt);
    }
    completeToolStep(run, step, index, result);
  };
  return attempt;
}

function completeToolStep(run: PlanningRun, step: Step, index: number, result: StepResult): void {
  complete(run, step, index, result, `${result.items ?? '-'} item(s)${result.replayed ? ' (replayed)' : ''}`);
}

/** A failed tool step fails, unless its outcome is unknown (PLAN-014) under `ask`: then a person decides. */
function afterToolFailure(
  run: PlanningRun,
  step: Step,
  index: number,
  err: unknown,
  attempt: (scope: string) => Promise<void>,
): Promise<void> | void {
  if (isCancellation(err)) throw err;
  const failure = readFailure(err);
  const policy = run.state.options.on_outcome_unknown ?? DEFAULT_PLANNING_OPTIONS.on_outcome_unknown;
  if (failure.code !== 'PLAN-014' || policy !== 'ask') return fail(run, step, index, failure);
  return decideUnknownOutcome(run, step, index, failure, attempt);
}

async function decideUnknownOutcome(
  run: PlanningRun,
  step: Step,
  index: number,
  failure: PlanFailure,
  attempt: (scope: string) => Promise<void>,
): Promise<void> {
  const question = `Step ${step.id} (${step.tool}) may or may not have acted: ${failure.message}. Check its effect, then retry it, mark it done, or fail it.`;
  const reply = await waitForPerson(run, step, index, 'decision', question);
  if (!reply || !('decision' in reply)) return;
  if (reply.decision === 'fail')
    return fail(run, step, index, {
      ...failure,
      message: `${failure.message} — failed by a person${reply.text ? `: ${reply.text}` : ''}`,
    });
  if (reply.decision === 'done')
    return complete(run, step, index, await storedText(step, reply.text ?? null), 'marked done by a person');
  // The person saw no effect: a fresh scope gives a fresh idempotency key, so the tool acts again. The history
  // length makes it unique without drawing from Math.random, whose sequence tracing interceptors share.
  const scope = `${firstScope(run, step)}:retry-${workflowInfo().historyLength}`;
  run.audit('step', `step ${step.id} (${step.tool}) retried by a person under idempotency scope ${scope}`);
  return attempt(scope);
}

/**
 * `approval: per-step`: the side-effecting step waits (WAITING for an approval) until a person approves it, then runs;
 * a rejection fails it with the reason (PLAN-011), and the run re-plans as after any failed step.
 */
async function approvedFirst(run: PlanningRun, step: Step, index: number): Promise<void> {
  const params = JSON.stringify(step.params);
  const question = `Step ${step.id} (${step.tool}) has side effects: approve it to run, or reject it with a reason. Params: ${params.length > 500 ? `${params.slice(0, 499)}…` : params}`;
  const reply = await waitForPerson(run, step, index, 'approval', question);
  if (!reply || !('approved' in reply)) return;
  if (reply.approved) return toolAttempt(run, step, index)(firstScope(run, step));
  const rejected = new PlanRejectedError(`rejected by a person: ${reply.text ?? 'no reason given'}`, {
    step_id: step.id,
  });
  fail(run, step, index, failureOf(rejected));
}

/** Status WAITING until a person replies (the reply is taken and the step runs on) or the timeout fails the step. */
async function waitForPerson(
  run: PlanningRun,
  step: Step,
  index: number,
  wanted: StepWait['for'],
  question: string,
): Promise<StepReply | null> {
  const timeoutMs = run.state.options.human_step_timeout_ms ?? DEFAULT_PLANNING_OPTIONS.human_step_timeout_ms;
  const until = new Date(Date.now() + timeoutMs).toISOString();
  run.setStep(index, {
    status: 'WAITING',
    waiting: { for: wanted, question: question.slice(0, 2_000), since: nowIso(), until },
  });
  run.audit(
    'step',
    `step ${step.id} waits for ${wanted === 'answer' ? 'an answer' : wanted === 'decision' ? 'a decision' : 'an approval'} until ${until}: ${question}`,
  );
  run.show(); // it may wait here while the other steps run on
  if (!(await condition(() => run.state.steps[index]!.reply !== undefined, timeoutMs))) {
    const timeout = new PlanningTimeoutError(`no ${wanted} for step ${step.id} within ${timeoutMs} ms`, {
      step_id: step.id,
      waited_for: wanted,
    });
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
async function storedText(step: Step, text: string | null): Promise<StepResult> {
  if (text === null) return textResult(null, NULL_RESULT_REF);
  const { ref } = await planningActivities(`store step ${step.id}'s result`, true).archive({ value: text });
  return textResult(text, ref);
}
