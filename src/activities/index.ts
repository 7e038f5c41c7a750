/**
 * Activities: every piece of I/O the planning workflow does. `createActivities` binds them to their dependencies,
 * the way Temporal's samples do, so tests and the worker can hand in their own.
 */
import { log } from '@temporalio/activity';

export interface DraftPlan {
  goal: string;
  steps: string[];
}

export function createActivities() {
  return {
    /** Splits a goal into ordered steps; replaced by the planning brain. */
    async draftPlan(goal: string): Promise<DraftPlan> {
      const steps = goal
        .split(/\b(?:and then|then|and)\b|[,;]/i)
        .map((part) => part.trim())
        .filter(Boolean);
      log.info('drafted plan', { steps: steps.length });
      return { goal, steps };
    },
  };
}

export type PlannerActivities = ReturnType<typeof createActivities>;
