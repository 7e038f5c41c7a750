/**
 * Whether a plan that passed the gatekeeper waits for a person (the run option `approval`): `always`, `never`,
 * `side-effects`, where only a plan with a step that can change something waits, or `per-step`, where the plan runs
 * and each side-effecting step waits for a person when it is reached (only its dependents wait with it). A step is read-only when it calls
 * no tool (`llm`, `human`, `noop`) or its tool is `idempotent` (MCP's `readOnlyHint` maps to it); a tool the run
 * has no route for counts as side-effecting, so an unknown tool never skips a person.
 */
import { flattenSteps, type Plan, type Step } from './plan';
import type { ToolRoute } from './routing';

/** When a person must approve a plan (the `approval` option). */
export const APPROVAL_MODES = ['always', 'side-effects', 'per-step', 'never'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** Whether `step` calls a tool that is not read-only (or one `tools` has no entry for). */
export function hasSideEffects(step: Step, tools: Readonly<Record<string, Pick<ToolRoute, 'idempotent'>>>): boolean {
  return step.action === 'tool_call' && step.tool !== null && tools[step.tool]?.idempotent !== true;
}

/** The steps of `plan` that call a tool which is not read-only, as `id (tool)` (`tools`: routes or catalog specs by name). */
export function sideEffectingSteps(
  plan: Plan,
  tools: Readonly<Record<string, Pick<ToolRoute, 'idempotent'>>>,
): string[] {
  return flattenSteps(plan)
    .filter((s) => hasSideEffects(s, tools))
    .map((s) => `${s.id} (${s.tool})`);
}

/** Whether the plan waits for a person under `mode`, and why (the audit's words). */
export function approvalGate(
  mode: ApprovalMode,
  plan: Plan,
  routes: Readonly<Record<string, ToolRoute>>,
): { wait: boolean; why: string } {
  if (mode === 'never') return { wait: false, why: 'approved by the gatekeeper' };
  if (mode === 'always') return { wait: true, why: 'a person must approve the plan' };
  const effects = sideEffectingSteps(plan, routes);
  if (mode === 'per-step')
    return {
      wait: false,
      why:
        effects.length === 0
          ? 'approved by the gatekeeper: every step is read-only (approval: per-step)'
          : `approved by the gatekeeper: step${effects.length > 1 ? 's' : ''} ${effects.join(', ')} will wait for a person when reached (approval: per-step)`,
    };
  return effects.length === 0
    ? { wait: false, why: 'approved by the gatekeeper: every step is read-only (approval: side-effects)' }
    : {
        wait: true,
        why: `a person must approve the plan: step${effects.length > 1 ? 's' : ''} ${effects.join(', ')} ${effects.length > 1 ? 'have' : 'has'} side effects (approval: side-effects)`,
      };
}
