/** Plans with steps of every kind for workflow tests (the seed scenario's plan plus a task of extra steps), and a planner that writes them. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPlanningDependencies } from '../../src/activities';
import { loadConfig } from '../../src/config';
import { TaskSchema, type Plan, type Step } from '../../src/domain/plan';
import { RankingPlanner } from '../../src/planners/generate/ranking-planner';
import { LocalContentStore } from '../../src/store/content-store';
import { stepDefaults } from './plans';

export type ExtraStep = Partial<Step> & Pick<Step, 'action'>;

/** `plan` with one more task holding `steps` (ids k.1, k.2, …; titles from their kind unless given). */
export function withExtraSteps(plan: Plan, steps: ExtraStep[]): Plan {
  const extra = steps.map((s, i): Step => ({ id: `k.${i + 1}`, title: `${s.action} step`, ...stepDefaults(), ...s }));
  // The task depends on the tasks whose steps its steps read.
  const taskOf = plan.tasks.flatMap((t) => t.steps.map(() => t.id));
  const depends_on = [...new Set(extra.flatMap((s) => s.depends_on.flatMap((d) => taskOf[d] ?? [])))];
  const task = TaskSchema.parse({ id: 'k', title: 'Steps of every kind', depends_on, steps: extra });
  return { ...plan, tasks: [...plan.tasks, task] };
}

/**
 * The real planning dependencies (default config, a fresh local content store) whose planner is the ranking planner
 * with each plan it generates passed through `rewrite`: the real generatePlan activity then validates what it wrote.
 */
export function planningDependenciesRewriting(rewrite: (plan: Plan) => Plan) {
  const deps = createPlanningDependencies({
    config: loadConfig({}),
    store: new LocalContentStore(mkdtempSync(path.join(os.tmpdir(), 'planner-store-'))),
  });
  const ranking = new RankingPlanner();
  const planner = {
    kind: 'ranking' as const,
    generate: async (input: Parameters<RankingPlanner['generate']>[0]) => {
      const generated = await ranking.generate(input);
      return { ...generated, plan: rewrite(generated.plan) };
    },
  };
  return { ...deps, rules: { ...deps.rules, planner } };
}
