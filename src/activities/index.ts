/**
 * The planner worker's activities and their dependencies. `createActivities` binds them, the way Temporal's
 * samples do, so tests and the worker can hand in their own: the deterministic analyzer and ranking planner are
 * always there; the LLM ones join when OPENAI_API_KEY / OPENAI_BASE_URL configure an LLM.
 */
import { LlmClient } from '../llm/chat';
import { loadLlmConfig } from '../llm/config';
import { LlmAnalyzer } from '../planners/analyze/llm-analyzer';
import { LlmPlanner } from '../planners/generate/llm-planner';
import { PremortemCritic } from '../planners/critique/premortem-critic';
import { priceOf } from '../llm/prices';
import { RULE_CRITICS } from '../planners/critique/rule-critics';
import { RankingPlanner } from '../planners/generate/ranking-planner';
import { RuleBasedAnalyzer } from '../planners/analyze/rules-analyzer';
import { LocalContentStore, type ContentStore } from '../store/content-store';
import { defaultStoreDir } from '../store/dirs';
import { ledgerBeside, type IdempotencyLedger } from '../tools/idempotency';
import { builtInCatalogs, type ToolCatalogs } from '../tools/registry';
import { createPlanningActivities, type PlanningDependencies } from './planning';

export function createPlanningDependencies(
  options: { env?: NodeJS.ProcessEnv; catalogs?: ToolCatalogs; store?: ContentStore; ledger?: IdempotencyLedger } = {},
): PlanningDependencies {
  const config = loadLlmConfig(options.env ?? process.env);
  let llm: PlanningDependencies['llm'];
  if (config) {
    const client = new LlmClient(config);
    llm = { analyzer: new LlmAnalyzer(client), planner: new LlmPlanner(client), critics: [new PremortemCritic(client)] };
    if (!priceOf(config.model)) console.warn(`no price known for model ${config.model}; its calls are charged $0`);
  }
  const catalogs = options.catalogs ?? builtInCatalogs();
  return {
    catalogs,
    rules: { analyzer: new RuleBasedAnalyzer((name) => catalogs.clarifications(name)), planner: new RankingPlanner() },
    llm,
    critics: RULE_CRITICS,
    store: options.store ?? new LocalContentStore(defaultStoreDir()),
    ledger: options.ledger ?? ledgerBeside(options.store),
  };
}

export function createActivities(deps: PlanningDependencies = createPlanningDependencies()) {
  return createPlanningActivities(deps);
}

export type PlannerActivities = ReturnType<typeof createActivities>;
