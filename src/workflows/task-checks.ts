/**
 * The verifier in the step loop: when every step of a task has completed, the `verifyTask` activity checks the
 * task's acceptance criteria; the steps of a task that depends on it start only once it passed (every test
 * criterion met). A failed check stops new starts; the run re-plans the task (its steps run again) or ends naming
 * the criterion (phases/execute.ts). Tasks without criteria (plans recorded before them) are not checked.
 */
import type { PlanningState } from '../api/state';
import { taskOfSteps, type CriterionResult, type TaskCheck } from '../domain/acceptance';
import { StepFailedError } from '../domain/errors';
import type { AcceptanceCriterion } from '../domain/plan';
import { planningActivities } from './activities';
import type { PlanningRun } from './run';
import { stepKey } from './step-key';

function checkOf(state: PlanningState, taskId: string): TaskCheck | undefined {
  return state.task_checks?.find((c) => c.task === taskId && c.plan_version === state.plan!.version);
}

const criteriaOf = (state: PlanningState, task: number) => state.plan!.tasks[task]!.acceptance_criteria ?? [];

/** Tasks with criteria, every step completed, not checked in this plan version and not being checked. */
export function tasksToVerify(state: PlanningState, checking: ReadonlySet<number>): number[] {
  const taskOf = taskOfSteps(state.plan!);
  return state.plan!.tasks.flatMap((t, i) =>
    criteriaOf(state, i).length > 0 &&
    !checking.has(i) &&
    !checkOf(state, t.id) &&
    state.steps.every((s) => taskOf[s.index] !== i || s.status === 'COMPLETED')
      ? [i]
      : [],
  );
}

/** Whether step `index` waits for a task its task depends on to pass its check. */
export function waitsForCheck(state: PlanningState): (index: number) => boolean {
  const plan = state.plan!;
  const taskOf = taskOfSteps(plan);
  const passed = (id: string) => {
    const k = plan.tasks.findIndex((t) => t.id === id);
    return k < 0 || criteriaOf(state, k).length === 0 || checkOf(state, id)?.passed === true;
  };
  return (index) => (plan.tasks[taskOf[index]!]?.depends_on ?? []).some((id) => !passed(id));
}

/** This version's first failed check, if any. */
export function failedCheck(state: PlanningState): TaskCheck | undefined {
  return state.task_checks?.find((c) => c.plan_version === state.plan!.version && !c.passed);
}

/** The failure that ends a run whose task failed its check with no re-plan left, naming the criteria. */
export function criterionFailure(check: TaskCheck, used: string): StepFailedError {
  const failed = check.results.filter((r) => r.test && !r.passed);
  return new StepFailedError(
    `task ${check.task} failed acceptance criteria ${failed.map((r) => `${r.id} (${r.description}: ${r.detail})`).join('; ')} — ${used}`,
    {
      retryable: false,
      hint: "The steps ran but their results do not meet the task's criteria (planner show --task shows them).",
      details: { task: check.task, criteria: failed.map((r) => r.id) },
    },
  );
}

/** The feedback a re-plan gets for a failed check. */
export function checkFeedback(check: TaskCheck): string[] {
  return check.results
    .filter((r) => r.test && !r.passed)
    .map((r) => `task ${check.task}'s criterion ${r.id} failed: ${r.description} (${r.detail})`);
}

/** Runs the verifier on task `index` and records its verdict; rejects with the activity's failure. */
export async function verifyTask(run: PlanningRun, index: number): Promise<void> {
  const { state } = run;
  const plan = state.plan!;
  const task = plan.tasks[index]!;
  // A tool step a person marked done has their text as its result (no idempotency key): their word is taken.
  const byPerson = new Set(
    state.steps.flatMap((s) => (s.tool !== null && s.result?.idempotency_key === '' ? [s.id] : [])),
  );
  const stepsOf = (c: AcceptanceCriterion) => [
    c.assertion.step,
    ...(c.assertion.kind === 'values_among' ? [c.assertion.source_step] : []),
  ];
  const all = criteriaOf(state, index);
  const criteria = all.filter((c) => !stepsOf(c).some((id) => byPerson.has(id)));
  const taken: CriterionResult[] = all
    .filter((c) => !criteria.includes(c))
    .map((c) => ({
      id: c.id,
      description: c.description,
      test: c.test,
      passed: true,
      detail: `not checked: step ${stepsOf(c).find((id) => byPerson.has(id))} was marked done by a person`,
    }));
  const named = new Set(criteria.flatMap(stepsOf));
  const results = Object.fromEntries(
    state.steps.flatMap((s) =>
      named.has(s.id) && s.result ? [[s.id, { ref: s.result.ref, data: s.result.data }]] : [],
    ),
  );
  const root = state.request.constraints.workspace_root;
  const checked = await planningActivities(`verify task ${task.id}`, true).verifyTask({
    task: task.id,
    criteria,
    results,
    ...(root === undefined ? {} : { workspace_root: root }),
  });
  const verdicts = [...checked, ...taken].sort(
    (a, b) => all.findIndex((c) => c.id === a.id) - all.findIndex((c) => c.id === b.id),
  );
  const passed = verdicts.every((r) => r.passed || !r.test);
  run.recordTaskCheck(
    { task: task.id, plan_version: plan.version, passed, results: verdicts },
    passed ? [] : task.steps.map(stepKey),
  );
}
