/**
 * Re-running a plan from one step: the step and every step downstream of it (its cone) run again; every completed
 * step outside the cone keeps its result. Over the flattened steps and their `depends_on`, whatever groups them.
 */
import type { DagNode } from './dag';

/** The ids of step `from` and of every step that depends on it, directly or through others; null when no step is `from`. */
export function downstreamCone(steps: readonly (DagNode & { id: string })[], from: string): string[] | null {
  const start = steps.findIndex((s) => s.id === from);
  if (start < 0) return null;
  const inCone = new Set([start]);
  // Dependencies point to earlier or later indices alike: repeat until no step joins (at most steps.length rounds).
  for (let grew = true; grew;) {
    grew = false;
    steps.forEach((s, i) => {
      if (!inCone.has(i) && s.depends_on.some((d) => inCone.has(d))) grew = inCone.add(i) !== undefined;
    });
  }
  return steps.filter((_, i) => inCone.has(i)).map((s) => s.id);
}
