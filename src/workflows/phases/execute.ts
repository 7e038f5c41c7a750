/**
 * EXECUTING: runs the plan's step DAG, every ready step at once (each by its kind, ../steps.ts), a task's steps after
 * the tasks it depends on have completed and passed their acceptance criteria (../task-checks.ts). A failed step
 * re-plans (the completed ones are kept), and so, once, does an empty answer on a value the goal does not say; a step the budget cannot afford under `block` pauses the run (under `fail` ends it, PLAN-004); an unknown
 * outcome under `on_outcome_unknown: fail` ends the run at once.
 */
import { emptyAnswerFeedback } from '../../api/answer';
import { addUsage, canAfford, stepUsageEstimate, ZERO_USAGE, type Usage } from '../../domain/budget';
import { StepFailedError, StepOutcomeUnknownError } from '../../domain/errors';
import { stepsInTaskOrder } from '../../domain/acceptance';
import { flattenSteps, type Step } from '../../domain/plan';
import { stepsToStart, type StepsToStart } from '../../domain/step-scheduler';
import type { PlanningRun } from '../run';
import { settleForecast } from '../forecast';
import { runStep } from '../steps';
import { checkFeedback, criterionFailure, failedCheck, tasksToVerify, verifyTask, waitsForCheck } from '../task-checks';
import { failWith, move, type Transition } from '../transitions';
import { pauseForBudget } from './budget';

export async function execute(run: PlanningRun): Promise<Transition> {
  const { state } = run;
  const plan = state.plan!;
  const steps = flattenSteps(plan);
  const estimate = (step: Step): Usage =>
    stepUsageEstimate(step.action, step.tool ? state.routes[step.tool] : undefined);
  const pending = state.steps.filter((s) => s.status !== 'COMPLETED');
  const pause = pauseForBudget(
    run,
    pending.reduce((sum, s) => addUsage(sum, estimate(steps[s.index]!)), ZERO_USAGE),
    `plan v${plan.version}'s remaining ${pending.length} step(s)`,
  );
  if (pause) return pause;

  const affordable = (index: number) =>
    state.budget.policy === 'warn' || canAfford(state.budget, estimate(steps[index]!));
  const stop = await runSteps(run, steps, affordable);
  if (state.given_plan) return move('PLANNING', `re-run: plan v${state.given_plan.plan.version} is recorded next`);

  const failed = state.steps.filter((s) => s.status === 'FAILED');
  const unknown = failed.find((s) => s.error!.code === 'PLAN-014');
  if (unknown && state.options.on_outcome_unknown === 'fail') {
    return failWith(
      new StepOutcomeUnknownError(`step ${unknown.id} (${unknown.tool}): ${unknown.error!.message}`, {
        step: unknown.id,
        on_outcome_unknown: 'fail',
      }),
    );
  }
  if (failed.length > 0) {
    const reasons = failed.map((s) => `step ${s.id} (${s.tool ?? steps[s.index]!.action}) failed: ${s.error!.message}`);
    if (state.replans >= state.options.max_replans) {
      const used = `no re-plans left (${state.replans} of ${state.options.max_replans} used)`;
      return failWith(
        new StepFailedError(`${reasons.join('; ')} — ${used}`, {
          retryable: false,
          details: { steps: failed.map((s) => s.id) },
        }),
      );
    }
    run.requestVersion('replan_after_failure', reasons);
    return move('PLANNING', `re-plan ${state.replans} of ${state.options.max_replans} after a step failure`);
  }
  const check = failedCheck(state);
  if (check) {
    if (state.replans >= state.options.max_replans) {
      return failWith(
        criterionFailure(check, `no re-plans left (${state.replans} of ${state.options.max_replans} used)`),
      );
    }
    run.requestVersion('replan_after_failure', checkFeedback(check));
    return move(
      'PLANNING',
      `re-plan ${state.replans} of ${state.options.max_replans}: task ${check.task} failed its criteria`,
    );
  }
  if (stop === 'budget') {
    const next = state.steps.find((s) => s.status === 'PENDING')!;
    return pauseForBudget(run, estimate(steps[next.index]!), `step ${next.id}`)!;
  }
  const suspicious = emptyAnswerFeedback(state);
  // Once per run: every final step came back empty while a step passed a value the goal does not say (src/api/answer.ts).
  if (suspicious.length > 0 && !state.empty_answer_replanned && state.replans < state.options.max_replans) {
    run.requestVersion('replan_after_failure', suspicious, { emptyAnswer: true });
    return move(
      'PLANNING',
      `re-plan ${state.replans} of ${state.options.max_replans}: the answer is empty on a value the goal does not say`,
    );
  }
  await settleForecast(run);
  return move('COMPLETED', `all ${steps.length} step(s) completed`);
}

type Stop = StepsToStart['stop'] | 'criterion';

/**
 * Starts every ready step (and each that becomes ready) until none runs; returns why steps were left unstarted, if
 * any were.
 */
async function runSteps(run: PlanningRun, steps: Step[], affordable: (index: number) => boolean): Promise<Stop> {
  let running = 0;
  let ended = 0;
  let failure: { error: unknown } | undefined; // a step's cancellation: the run's
  let wake = (): void => undefined;
  const end = (): void => {
    running--;
    ended++;
    wake();
  };
  const fail = (error: unknown): void => {
    failure ??= { error };
    end();
  };
  let stop: Stop = null;
  const checking = new Set<number>();
  const scheduled = stepsInTaskOrder(run.state.plan!, steps);
  for (;;) {
    if (failure) throw failure.error;
    if (failedCheck(run.state)) stop ??= 'criterion';
    if (stop === null) {
      for (const task of tasksToVerify(run.state, checking)) {
        running++;
        checking.add(task);
        verifyTask(run, task).then(end, fail);
      }
      const next = stepsToStart(
        scheduled,
        run.state.steps.map((s) => s.status),
        affordable,
        waitsForCheck(run.state),
      );
      for (const index of next.start) {
        running++;
        runStep(run, steps[index]!, index).then(end, fail);
      }
      stop = next.stop;
    }
    if (running === 0) return stop;
    run.park(); // the steps run, or wait for a person: what visibility shows must be current
    if (ended === 0) await new Promise<void>((resolve) => (wake = resolve));
    ended = 0;
  }
}
