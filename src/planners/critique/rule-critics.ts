/**
 * Rule critics: deterministic reviews of a plan before it runs. The gatekeeper (src/domain/critique.ts `decide`)
 * turns their critiques into approve / refine / reject; the LLM pre-mortem critic (premortem-critic.ts) plugs in
 * through the same Critic interface (../types.ts).
 */
import { canAfford, createBudget, remaining } from '../../domain/budget';
import type { Critique } from '../../domain/critique';
import { flattenSteps, type Plan, type Step } from '../../domain/plan';
import { referencedSteps } from '../../domain/templates';
import { indexCatalog } from '../../domain/tool-spec';
import type { Critic, CritiqueContext } from '../types';
import { toolTerms } from '../catalog-match';
import { uncoveredActions } from '../coverage';
import { contentStems } from '../../domain/text';

/** A critic that needs no I/O: a pure function of the plan. */
type Finding = Omit<Critique, 'critic'>;

function ruleCritic(id: string, check: (steps: Step[], plan: Plan, context: CritiqueContext) => Finding[]): Critic {
  return {
    id,
    async review(plan, context) {
      const critiques = check(flattenSteps(plan), plan, context).map((c) => ({ critic: id, ...c }));
      return { critiques, llm_calls: [] };
    },
  };
}

/** Dependencies that carry no data, point forward, or serialize steps that could run side by side. */
export const dependencyCritic = ruleCritic('dependency', (steps) =>
  steps.flatMap((step, i) => {
    const used = new Set(referencedSteps(step.params));
    const out: Finding[] = [];
    for (const dep of step.depends_on) {
      if (dep > i) {
        out.push({
          severity: 'warning',
          step_id: step.id,
          message: `step ${step.id} depends on step ${steps[dep]?.id ?? dep}, which comes later in the plan`,
          suggestion: 'Order steps so that every dependency comes first.',
        });
      } else if (step.action === 'tool_call' && !used.has(dep)) {
        out.push({
          severity: 'info',
          step_id: step.id,
          message: `step ${step.id} waits for step ${steps[dep]?.id ?? dep} but uses none of its data`,
          suggestion:
            'Drop the dependency so the steps can run in parallel, or pass the data with a ${step[N]...} template.',
        });
      }
    }
    return out;
  }),
);

/**
 * The plan's estimate against what the budget has left: over it or above 80% is a warning. Not an error even under
 * `block`: a plan that does not fit is kept whole and the run pauses in BUDGET_EXHAUSTED before executing it (saying
 * what it needs), rather than being refined into a smaller plan that answers less than was asked.
 */
export const budgetCritic = ruleCritic('budget', (_steps, plan, { request, budget }): Finding[] => {
  const left = budget ?? createBudget(request.budget);
  const rest = remaining(left);
  if (!canAfford({ ...left, policy: 'block' }, plan.estimate)) {
    return [
      {
        severity: 'warning',
        message: `estimate (${plan.estimate.calls} calls, ${plan.estimate.tokens} tokens, $${plan.estimate.cost_usd.toFixed(4)}) exceeds what the budget has left (${rest.calls} calls, ${rest.tokens} tokens, $${rest.cost_usd.toFixed(4)})`,
        suggestion:
          left.policy === 'block'
            ? 'The run pauses in BUDGET_EXHAUSTED before executing: raise the budget, or start the run with trim_to_budget.'
            : left.policy === 'fail'
              ? 'The run ends with PLAN-004 before executing: raise the budget, or start the run with trim_to_budget.'
              : 'Use fewer or cheaper steps, or raise the budget.',
      },
    ];
  }
  const tight = (['calls', 'tokens', 'cost_usd'] as const).filter(
    (d) => rest[d] > 0 && plan.estimate[d] > 0.8 * rest[d],
  );
  return tight.length
    ? [
        {
          severity: 'warning',
          message: `estimate uses over 80% of the remaining ${tight.join(', ')}`,
          suggestion: 'A re-plan may not fit; consider a larger budget.',
        },
      ]
    : [];
});

/**
 * Each tool step's tool exists and fits what the step says it does. One step that does not fit is a warning (its
 * title may just be worded oddly); a plan none of whose tool steps fits is an error: the model has forced the goal
 * onto tools that do something else ("the weather forecast" from contaminants-detected).
 */
export const toolFitnessCritic = ruleCritic('tool-fitness', (steps, _plan, { catalog }) => {
  const tools = indexCatalog(catalog);
  const toolSteps = steps.filter((step) => step.action === 'tool_call' && step.tool !== null);
  const findings = toolSteps.flatMap((step): Finding[] => {
    const tool = tools.get(step.tool!);
    if (!tool) {
      return [
        {
          severity: 'error',
          step_id: step.id,
          message: `step ${step.id} uses unknown tool "${step.tool}"`,
          suggestion: `Use one of: ${[...tools.keys()].join(', ')}.`,
        },
      ];
    }
    const { vocabulary } = toolTerms(tool);
    const words = contentStems(`${step.title} ${step.description}`);
    if (words.length === 0 || words.some((w) => vocabulary.has(w))) return [];
    return [
      {
        severity: 'warning',
        step_id: step.id,
        message: `tool "${tool.name}" does not obviously fit step ${step.id} "${step.title}"`,
        suggestion: "Check the tool choice against the step, or describe the step in the tool's terms.",
      },
    ];
  });
  const unfit = findings.filter((f) => f.severity === 'warning').length;
  if (unfit === 0 || unfit < toolSteps.length) return findings;
  return [
    ...findings,
    {
      severity: 'error',
      message: `no tool of the plan fits what its step does (${unfit} of ${toolSteps.length} step(s)): the catalog may have no tool for this goal`,
      suggestion:
        'Call the tool whose description matches each step. If no tool of the catalog does what the goal asks, answer IMPOSSIBLE with no steps and name the missing capability.',
    },
  ];
});

/** A plan names every action of its goal that no catalog tool does (../coverage): a FEASIBLE one thus becomes PARTIAL. */
export const coverageCritic = ruleCritic('coverage', (_steps, plan, { request, catalog }): Finding[] =>
  uncoveredActions(plan, request, catalog).map((action) => ({
    severity: 'error',
    message: `the goal asks to "${action}", which no tool of the catalog does, yet the plan is ${plan.status} and does not name it as missing`,
    suggestion: `Name "${action}" in missing_capabilities (status PARTIAL), and keep only the steps that do the rest.`,
  })),
);

export const RULE_CRITICS: readonly Critic[] = [dependencyCritic, budgetCritic, toolFitnessCritic, coverageCritic];
