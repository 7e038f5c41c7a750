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
import { RankingPlanner } from '../planners/generate/ranking-planner';
import type { ToolCatalogs } from '../tools/registry';
import type { PlanningDependencies } from './planning';

export function llmDependencies(
  providers: readonly LlmProviderConfig[],
  catalogs: ToolCatalogs,
  draft: PlannerConfig['llmDraft'] = 'rules',
): NonNullable<PlanningDependencies['llm']> {
  const client = ProviderChain.fromConfig(providers);
  for (const { model } of providers)
    if (!priceOf(model)) console.warn(`no price known for model ${model}; its calls are charged $0`);
  return {
    analyzer: new LlmAnalyzer(client, (name) => catalogs.clarifications(name)),
    planner: new LlmPlanner(client, draft === 'rules' ? new RankingPlanner() : undefined),
    critics: [new PremortemCritic(client)],
    client,
  };
}
