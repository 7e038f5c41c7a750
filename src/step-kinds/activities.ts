/**
 * The activities of the step kinds that do I/O, on the planner's queue (createActivities, src/activities/index.ts,
 * registers them; a kind's workflow part calls them through ctx.activities). A kind with activities adds its line here.
 */
import { createLlmStepActivities, type LlmStepDependencies } from './llm/activities';

export type StepKindDependencies = LlmStepDependencies;

export function createStepKindActivities(deps: StepKindDependencies) {
  return {
    ...createLlmStepActivities(deps),
  };
}
