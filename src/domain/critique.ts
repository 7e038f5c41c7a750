/** Critics review a plan and emit critiques; the gatekeeper turns them into approve / refine / reject. */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';

export const SEVERITIES = ['info', 'warning', 'error'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CritiqueSchema = sharedSchema('domain/critique#CritiqueSchema', () =>
  z.object({
    critic: z.string().min(1),
    severity: z.enum(SEVERITIES),
    /** The step concerned, when the critique is about one step. */
    step_id: z.string().optional(),
    message: z.string().min(1),
    suggestion: z.string().default(''),
  }),
);
export type Critique = z.output<typeof CritiqueSchema>;

export interface GatekeeperPolicy {
  /** Warnings block too (not only errors). */
  strict: boolean;
  max_refinements: number;
  /** Refinement rounds already spent on this plan. */
  refinements_done: number;
}

export interface GatekeeperDecision {
  decision: 'approve' | 'refine' | 'reject';
  blocking: Critique[];
  reason: string;
}

/** Blocking critiques → refine while rounds remain, else reject; no blocking critique → approve. */
export function decide(critiques: readonly Critique[], policy: GatekeeperPolicy): GatekeeperDecision {
  const blocking = critiques.filter((c) => c.severity === 'error' || (policy.strict && c.severity === 'warning'));
  if (blocking.length === 0) {
    const warnings = critiques.filter((c) => c.severity === 'warning').length;
    return { decision: 'approve', blocking, reason: `no blocking critique (${warnings} warning(s) noted)` };
  }
  const what = `${blocking.length} blocking critique(s)`;
  if (policy.refinements_done < policy.max_refinements) {
    const round = policy.refinements_done + 1;
    return { decision: 'refine', blocking, reason: `${what}; refinement round ${round} of ${policy.max_refinements}` };
  }
  return {
    decision: 'reject',
    blocking,
    reason: `${what} remain after ${policy.refinements_done} refinement round(s)`,
  };
}
