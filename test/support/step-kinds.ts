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
  return { ...plan, tasks: [...plan.tasks, TaskSchema.parse({ id: 'k', title: 'Steps of every kind', steps: extra })] };
}
