/**
 * The step graph: node i is step index i, and i → d for every d in steps[i].depends_on ("i depends on d").
 * Dependencies outside [0, steps.length) are ignored here; validatePlan reports them.
 */
import { PlanValidationError } from './errors';

export interface DagNode {
  readonly depends_on: readonly number[];
}

function inRange(d: number, n: number): boolean {
  return Number.isInteger(d) && d >= 0 && d < n;
}

/**
 * A dependency cycle as step indices following depends_on, closed and rotated to start at its smallest index
 * (e.g. [0, 1, 0]: 0 depends on 1, which depends on 0), or null when the graph is acyclic.
 */
export function findCycle(steps: readonly DagNode[]): number[] | null {
  const n = steps.length;
  const state = new Uint8Array(n); // 0 unvisited, 1 on the current path, 2 finished
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    const path: number[] = [root];
    const next: number[] = [0]; // per path entry: position in its depends_on to look at next
    state[root] = 1;
    while (path.length > 0) {
      const top = path.length - 1;
      const node = path[top]!;
      const deps = steps[node]!.depends_on;
      if (next[top]! >= deps.length) {
        state[node] = 2;
        path.pop();
        next.pop();
        continue;
      }
      const dep = deps[next[top]!++]!;
      if (!inRange(dep, n) || state[dep] === 2) continue;
      if (state[dep] === 1) return closeCycle(path.slice(path.indexOf(dep)));
      state[dep] = 1;
      path.push(dep);
      next.push(0);
    }
  }
  return null;
}

function closeCycle(nodes: number[]): number[] {
  const start = nodes.indexOf(Math.min(...nodes));
  const rotated = [...nodes.slice(start), ...nodes.slice(0, start)];
  return [...rotated, rotated[0]!];
}

/** "0 → 1 → 0" */
export function formatCycle(cycle: readonly number[]): string {
  return cycle.join(' → ');
}

/**
 * Steps that may start now, in index order: not done, not running, every dependency done. A step with
 * parallel=false runs alone: it starts only when nothing else runs, and nothing starts beside it.
 */
export function readySteps(
  steps: readonly (DagNode & { readonly parallel: boolean })[],
  done: ReadonlySet<number>,
  running: ReadonlySet<number>,
): number[] {
  for (const r of running) if (steps[r] && !steps[r].parallel) return [];
  const ready: number[] = [];
  steps.forEach((s, i) => {
    if (!done.has(i) && !running.has(i) && s.depends_on.every((d) => done.has(d))) ready.push(i);
  });
  const first = ready[0];
  if (first === undefined) return [];
  if (!steps[first]!.parallel) return running.size === 0 ? [first] : [];
  return ready.filter((i) => steps[i]!.parallel);
}

/**
 * Steps grouped by depth: layer 0 has no dependencies, layer k depends on layer k-1 at the deepest. Steps in one
 * layer are independent of each other. Throws PlanValidationError (naming the cycle) when there is a cycle.
 */
export function topologicalLayers(steps: readonly DagNode[]): number[][] {
  const cycle = findCycle(steps);
  if (cycle) {
    throw new PlanValidationError([
      {
        code: 'CYCLE',
        message: `dependency cycle ${formatCycle(cycle)}`,
        step_index: cycle[0],
        hint: 'Remove one depends_on edge of the cycle.',
      },
    ]);
  }
  const n = steps.length;
  const depth = new Array<number>(n).fill(-1);
  const depthOf = (i: number): number => {
    // Iterative post-order so long dependency chains cannot overflow the stack.
    const stack = [i];
    while (stack.length > 0) {
      const node = stack[stack.length - 1]!;
      if (depth[node] !== -1) {
        stack.pop();
        continue;
      }
      const pending = steps[node]!.depends_on.filter((d) => inRange(d, n) && depth[d] === -1);
      if (pending.length > 0) {
        stack.push(...pending);
        continue;
      }
      stack.pop();
      depth[node] = Math.max(-1, ...steps[node]!.depends_on.filter((d) => inRange(d, n)).map((d) => depth[d]!)) + 1;
    }
    return depth[i]!;
  };
  const layers: number[][] = [];
  for (let i = 0; i < n; i++) (layers[depthOf(i)] ??= []).push(i);
  return layers;
}
