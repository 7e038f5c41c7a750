/** Planner settings from the environment (Temporal's own settings live in src/temporal-connection.ts). */
export const DEFAULT_TASK_QUEUE = 'durable-planner';

export function plannerTaskQueue(): string {
  return process.env.PLANNER_TASK_QUEUE || DEFAULT_TASK_QUEUE;
}
