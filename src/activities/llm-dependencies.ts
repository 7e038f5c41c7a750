/**
 * The LLM side of the planning dependencies: the provider chain and the analyzer, planner and critic that ask it.
 * Loaded only when the config has an LLM (see createPlanningDependencies): the `openai` client and `undici` under it
 * are about 3 MB of a worker's heap, which a worker planning with the ranking planner does not need.
 */
import type { LlmProviderConfig, PlannerConfig } from '../config';
import { priceOf } from '../llm/prices';
import { ProviderChain } from '../llm/providers';
import { LlmAnalyzer } from '../planners/analyze/llm-analyzer';
import { PremortemCritic } from '../planners/critique/premortem-critic';
import { LlmPlanner } from '../planners/generate/llm-planner';
import { RulesDraftPlanner } from '../planners/generate/ranking-planner';
import type { ToolCatalogs } from '../tools/registry';
import type { PlanningDependencies } from './planning';

/** `calls`: which LLM calls are made (PLANNER_LLM_DRAFT, PLANNER_LLM_PLAN, PLANNER_LLM_ANALYSIS, PLANNER_LLM_PREMORTEM). */
export function llmDependencies(
  providers: readonly LlmProviderConfig[],
  catalogs: ToolCatalogs,
  calls: Partial<Pick<PlannerConfig, 'llmDraft' | 'llmPlan' | 'llmAnalysis' | 'llmPremortem'>> = {},
): NonNullable<PlanningDependencies['llm']> {
  const client = ProviderChain.fromConfig(providers);
  for (const { model } of providers)
    if (!priceOf(model)) console.warn(`no price known for model ${model}; its calls are charged $0`);
  const lexiconOf = (name: string) => catalogs.clarifications(name);
  return {
    analyzer: new LlmAnalyzer(client, { lexiconOf, calls: calls.llmAnalysis }),
    planner: new LlmPlanner(
      client,
      (calls.llmDraft ?? 'rules') === 'rules' ? new RulesDraftPlanner(lexiconOf) : undefined,
      {
        calls: calls.llmPlan,
      },
    ),
    critics: [new PremortemCritic(client, { calls: calls.llmPremortem })],
    client,
  };
}
