/**
 * Routing: each step goes to the task queue of a worker pool that serves its tool. The registry gives a route one
 * queue, the tool spec's task_queue (a pool scales by running more workers on it). The list form and its turns
 * (round robin, the counter kept in workflow state so routing survives replay) are the shape that workflow
 * histories record (ToolRoute is an activity result), so they stay until the workflow drops them with versioning.
 */
import type { Step } from './plan';

export interface ToolRoute {
  /** Task queues of the pools that serve the tool, in preference order; all are equal candidates. */
  queues: string[];
  cost_per_call_usd: number;
  tokens_per_call: number;
  idempotent: boolean;
}

export interface RoutingDecision {
  step_id: string;
  tool: string | null;
  queue: string;
  reason: string;
}

/** Routes every step; `turns` counts earlier picks per tool (returned updated, never mutated). */
export function routeSteps(
  steps: readonly Step[],
  routes: Readonly<Record<string, ToolRoute>>,
  defaultQueue: string,
  turns: Readonly<Record<string, number>> = {},
): { decisions: RoutingDecision[]; turns: Record<string, number> } {
  const next = { ...turns };
  const decisions = steps.map((step): RoutingDecision => {
    if (step.action !== 'tool_call' || step.tool === null) {
      return {
        step_id: step.id,
        tool: null,
        queue: defaultQueue,
        reason: `${step.action} step runs on the planner's queue`,
      };
    }
    const queues = routes[step.tool]?.queues ?? [];
    if (queues.length === 0) {
      return {
        step_id: step.id,
        tool: step.tool,
        queue: defaultQueue,
        reason: `no pool registered for ${step.tool}; planner's queue`,
      };
    }
    const turn = next[step.tool] ?? 0;
    next[step.tool] = turn + 1;
    const queue = queues[turn % queues.length]!;
    const reason =
      queues.length === 1
        ? `the only pool serving ${step.tool}`
        : `round robin over ${queues.length} pools serving ${step.tool} (turn ${turn + 1})`;
    return { step_id: step.id, tool: step.tool, queue, reason };
  });
  return { decisions, turns: next };
}
