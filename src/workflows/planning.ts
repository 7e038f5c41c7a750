import { proxyActivities } from '@temporalio/workflow';
import type { DraftPlan, PlannerActivities } from '../activities';

const { draftPlan } = proxyActivities<PlannerActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

export interface PlanningInput {
  goal: string;
}

export async function planningWorkflow(input: PlanningInput): Promise<DraftPlan> {
  return await draftPlan(input.goal);
}
