/** Plans with steps of every kind for workflow tests: the seed scenario's plan plus a task of extra steps. */
import { TaskSchema, type Plan, type Step } from '../../src/domain/plan';

export type ExtraStep = Partial<Step> & Pick<Step, 'action'>;

/** `plan` with one more task holding `steps` (ids k.1, k.2, …; titles from their kind unless given). */
export function withExtraSteps(plan: Plan, steps: ExtraStep[]): Plan {
  const extra = steps.map((s, i): Step => ({
    id: `k.${i + 1}`,
    title: `${s.action} step`,
    description: '',
    tool: null,
    params: {},
    depends_on: [],
    parallel: false,
    expected_output: '',
    verification: [],
    ...s,
  }));
  // The task depends on the tasks whose steps its steps read.
  const taskOf = plan.tasks.flatMap((t) => t.steps.map(() => t.id));
  const depends_on = [...new Set(extra.flatMap((s) => s.depends_on.flatMap((d) => taskOf[d] ?? [])))];
  const task = TaskSchema.parse({ id: 'k', title: 'Steps of every kind', depends_on, steps: extra });
  return { ...plan, tasks: [...plan.tasks, task] };
}
