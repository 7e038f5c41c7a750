/**
 * The task level of a plan's validation (part of PLAN-003): task ids unique, task dependencies naming tasks of the
 * plan and acyclic, a step reading only steps of its own task or of a task its task depends on (else the scheduler
 * could start it before its data exists), acceptance criteria naming steps of their task or of an earlier one.
 */
import { findCycle } from './dag';
import type { ValidationIssue } from './errors';
import type { Plan } from './plan';

/** Ids of the tasks `task` depends on, directly or not (itself excluded unless on a cycle). */
function prerequisites(plan: Pick<Plan, 'tasks'>, taskIndex: number): Set<number> {
  const index = new Map(plan.tasks.map((t, i) => [t.id, i]));
  const seen = new Set<number>();
  const stack = [taskIndex];
  while (stack.length > 0) {
    for (const id of plan.tasks[stack.pop()!]!.depends_on ?? []) {
      const i = index.get(id);
      if (i !== undefined && !seen.has(i)) (seen.add(i), stack.push(i));
    }
  }
  return seen;
}

export function taskIssues(plan: Pick<Plan, 'tasks'>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const firstOf = new Map<string, number>();
  plan.tasks.forEach((t, i) => {
    const first = firstOf.get(t.id);
    if (first === undefined) firstOf.set(t.id, i);
    else
      issues.push({
        code: 'DUPLICATE_TASK_ID',
        message: `task ${i} reuses id "${t.id}" of task ${first}`,
        hint: 'Give every task a unique id such as "2".',
      });
  });
  plan.tasks.forEach((t) => {
    for (const d of t.depends_on ?? []) {
      if (firstOf.has(d) && d !== t.id) continue;
      issues.push({
        code: 'UNKNOWN_TASK_DEPENDENCY',
        message: `task "${t.id}" depends on ${d === t.id ? 'itself' : `"${d}", which is no task of the plan`}`,
        hint: `A task depends only on other tasks of the plan: ${[...firstOf.keys()].join(', ')}.`,
      });
    }
  });
  const cycle = findCycle(
    plan.tasks.map((t) => ({
      depends_on: (t.depends_on ?? []).flatMap((d) => (d === t.id ? [] : [firstOf.get(d) ?? -1])),
    })),
  );
  if (cycle) {
    issues.push({
      code: 'TASK_CYCLE',
      message: `task dependency cycle ${cycle.map((i) => `"${plan.tasks[i]!.id}"`).join(' → ')}`,
      hint: 'Remove one task dependency of the cycle, or merge the tasks that need each other.',
    });
  }
  const taskOfStep: number[] = plan.tasks.flatMap((t, i) => t.steps.map(() => i));
  const stepIds = plan.tasks.flatMap((t) => t.steps.map((s) => s.id));
  let index = 0;
  plan.tasks.forEach((t, ti) => {
    const before = prerequisites(plan, ti);
    for (const step of t.steps) {
      for (const d of step.depends_on) {
        const other = taskOfStep[d];
        if (other === undefined || other === ti || before.has(other)) continue;
        issues.push({
          code: 'STEP_CROSSES_TASKS',
          message: `step ${index} ("${step.id}") of task "${t.id}" depends on step ${d} ("${stepIds[d]}") of task "${plan.tasks[other]!.id}", which task "${t.id}" does not depend on`,
          step_index: index,
          hint: `Add "${plan.tasks[other]!.id}" to task "${t.id}"'s depends_on, or move the step into task "${t.id}".`,
        });
      }
      index++;
    }
    const visible = new Set([ti, ...before].flatMap((k) => plan.tasks[k]!.steps.map((s) => s.id)));
    for (const c of t.acceptance_criteria ?? []) {
      const named = [c.assertion.step, ...(c.assertion.kind === 'values_among' ? [c.assertion.source_step] : [])];
      for (const id of named) {
        if (visible.has(id)) continue;
        issues.push({
          code: 'CRITERION_UNKNOWN_STEP',
          message: `criterion ${c.id} of task "${t.id}" names step "${id}", no step of the task or of a task it depends on`,
          hint: 'A criterion checks steps of its own task (or data of a task it depends on).',
        });
      }
    }
  });
  return issues;
}
