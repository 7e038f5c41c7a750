/**
 * EXECUTING: runs the plan's step DAG, every ready step at once on its routed queue. A failed step re-plans (the
 * completed ones are kept); a step the budget cannot afford under `block` pauses the run.
 */
import { isCancellation } from '@temporalio/workflow';
import { readFailure } from '../../api/failures';
import { addUsage, canAfford, ZERO_USAGE, type Usage } from '../../domain/budget';
import { StepFailedError } from '../../domain/errors';
import { flattenSteps, type Step } from '../../domain/plan';
import { stepsToStart, type StepsToStart } from '../../domain/step-scheduler';
import { stepActivity } from '../activities';
import type { PlanningRun } from '../run';
import { stepKey } from '../step-key';
import { failWith, move, type Transition } from '../transitions';

export async function execute(run: PlanningRun): Promise<Transition> {
  const { state } = run;
  const plan = state.plan!;
  const steps = flattenSteps(plan);
  const estimate = (tool: string | null): Usage => {
    const r = tool ? state.routes[tool] : undefined;
    return { calls: 1, tokens: r?.tokens_per_call ?? 0, cost_usd: r?.cost_per_call_usd ?? 0 };
  };
  const pending = state.steps.filter((s) => s.status !== 'COMPLETED');
  const pause = run.pauseForBudget(pending.reduce((sum, s) => addUsage(sum, estimate(s.tool)), ZERO_USAGE), `plan v${plan.version}'s remaining ${pending.length} step(s)`);
  if (pause) return pause;

  const running = new Map<number, Promise<void>>();
  let stop: StepsToStart['stop'] = null;
  const affordable = (index: number) => state.budget.policy !== 'block' || canAfford(state.budget, estimate(steps[index]!.tool));
  for (;;) {
    if (stop === null) {
      const next = stepsToStart(steps, state.steps.map((s) => s.status), affordable);
      for (const index of next.start) running.set(index, runStep(run, steps[index]!, index).finally(() => running.delete(index)));
      stop = next.stop;
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }

  const failed = state.steps.filter((s) => s.status === 'FAILED');
  if (failed.length > 0) {
    const reasons = failed.map((s) => `step ${s.id} (${s.tool}) failed: ${s.error!.message}`);
    if (state.replans >= state.options.max_replans) {
      const used = `no re-plans left (${state.replans} of ${state.options.max_replans} used)`;
      return failWith(new StepFailedError(`${reasons.join('; ')} — ${used}`, { retryable: false, details: { steps: failed.map((s) => s.id) } }));
    }
    run.requestVersion('replan_after_failure', reasons);
    return move('PLANNING', `re-plan ${state.replans} of ${state.options.max_replans} after a step failure`);
  }
  if (stop === 'budget') {
    const next = state.steps.find((s) => s.status === 'PENDING')!;
    return run.pauseForBudget(estimate(next.tool), `step ${next.id}`)!;
  }
  return move('COMPLETED', `all ${steps.length} step(s) completed`);
}

async function runStep(run: PlanningRun, step: Step, index: number): Promise<void> {
  const { state } = run;
  const plan = state.plan!;
  const record = state.steps[index]!;
  run.markStep(index, 'RUNNING');
  const inputs = Object.fromEntries(step.depends_on.map((d) => [String(d), { ref: state.steps[d]!.result!.ref, data: state.steps[d]!.result!.data }]));
  const executeStep = stepActivity({
    taskQueue: record.queue,
    startToCloseMs: state.options.step_start_to_close_ms,
    heartbeatMs: state.options.step_heartbeat_ms,
    // Side-effecting tools may retry too: the worker's idempotency ledger keys their effects.
    maximumAttempts: state.routes[step.tool ?? '']?.idempotent === false ? 5 : 3,
    summary: `step ${step.id}: ${step.tool ?? step.action} — ${step.title}`.slice(0, 200),
  });
  try {
    const result = await executeStep({
      workflow_id: state.workflow_id,
      plan_id: plan.id,
      plan_version: plan.version,
      step_index: index,
      step_id: step.id,
      tool: step.tool ?? '',
      tool_catalog: state.request.tool_catalog,
      params: step.params,
      inputs,
      idempotency_scope: `${state.workflow_id}:${step.id}`,
      workspace_root: state.request.constraints.workspace_root,
    });
    run.stepCompleted(index, stepKey(step), result);
    run.charge(result.usage, `step ${step.id}`);
    run.audit('step', `step ${step.id} (${step.tool}) completed: ${result.items ?? '-'} item(s)${result.replayed ? ' (replayed)' : ''}`, result.ref);
  } catch (err) {
    if (isCancellation(err)) {
      run.markStep(index, 'CANCELLED');
      throw err;
    }
    const { type, code, message } = readFailure(err);
    run.stepFailed(index, { type, code, message });
    run.audit('step', `step ${step.id} (${step.tool}) failed: ${code} ${message}`);
  }
}
