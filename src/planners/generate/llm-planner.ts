/**
 * LlmPlanner: goal + requirements + catalog → a validated Plan, written by an LLM in JSON mode. A reply that is not
 * JSON, does not match the plan schema or fails validatePlan is sent back with its errors in the same conversation
 * (see askForJson); after MAX_JSON_ATTEMPTS unusable replies planning fails with PLAN-009.
 */
import { PlanValidationError } from '../../domain/errors';
import { parsePlanJson, type PlanStamp } from '../../domain/plan';
import { effectiveGoal } from '../../domain/request';
import { validatePlan, type ValidationContext } from '../../domain/validation';
import type { PlanGenerationInput, PlanGenerationResult, Planner } from '../types';
import type { ChatModel } from '../../llm/chat';
import { askForJson } from '../../llm/json-conversation';
import { plannerSystemPrompt, plannerUserPrompt } from '../../llm/prompts';
import { temporalReferencesFor } from '../../domain/date-ranges';

/** Low but not zero for a fresh plan; a refinement must change only what the feedback asks, so 0. */
export const PLAN_TEMPERATURE = 0.1;
export const REFINE_TEMPERATURE = 0;

export class LlmPlanner implements Planner {
  readonly kind = 'llm';

  constructor(private readonly client: ChatModel) {}

  async generate(input: PlanGenerationInput): Promise<PlanGenerationResult> {
    const { request, requirements, catalog, stamp, refinement, workspace } = input;
    const temperature = refinement ? REFINE_TEMPERATURE : PLAN_TEMPERATURE;
    const planStamp: PlanStamp = {
      id: stamp.id,
      version: stamp.version,
      goal: request.goal,
      metadata: { planner: 'llm', model: this.client.model, temperature, created_at: stamp.created_at },
    };
    const context: ValidationContext = { catalog, constraints: request.constraints };
    const temporal_references = temporalReferencesFor(effectiveGoal(request), request.now, requirements.temporal_references);

    const { value: plan, llm_calls, transcript } = await askForJson(this.client, {
      messages: [
        { role: 'system', content: plannerSystemPrompt(catalog) },
        { role: 'user', content: plannerUserPrompt({ request, requirements, temporal_references, refinement, workspace }) },
      ],
      temperature,
      parse: (text) => {
        const parsed = parsePlanJson(text, planStamp);
        const issues = validatePlan(parsed, context);
        if (issues.length > 0) throw new PlanValidationError(issues);
        return parsed;
      },
    });
    return { plan, llm_calls, transcript };
  }
}
