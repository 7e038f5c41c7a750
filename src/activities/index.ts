/**
 * The planner worker's activities and their dependencies. `createActivities` binds them, the way Temporal's
 * samples do, so tests and the worker can hand in their own: the deterministic analyzer and ranking planner are
 * always there; the LLM ones join when the config has an LLM (OPENAI_API_KEY / OPENAI_BASE_URL).
 */
import { loadConfig, type PlannerConfig } from '../config';
import { LlmClient } from '../llm/chat';
import { LlmAnalyzer } from '../planners/analyze/llm-analyzer';
import { LlmPlanner } from '../planners/generate/llm-planner';
import { PremortemCritic } from '../planners/critique/premortem-critic';
import { priceOf } from '../llm/prices';
import { RULE_CRITICS } from '../planners/critique/rule-critics';
import { RankingPlanner } from '../planners/generate/ranking-planner';
import { RuleBasedAnalyzer } from '../planners/analyze/rules-analyzer';
import type { ContentStore } from '../store/content-store';
import { openStorage } from '../store/storage';
import { ledgerBeside, type IdempotencyLedger } from '../tools/idempotency';
import { builtInCatalogs, type ToolCatalogs } from '../tools/registry';
import { createLlmStepActivities } from './llm-step';
import { createPlanningActivities, type PlanningDependencies } from './planning';

export function createPlanningDependencies(
  options: { config?: PlannerConfig; catalogs?: ToolCatalogs; store?: ContentStore; ledger?: IdempotencyLedger } = {},
): PlanningDependencies {
  const config = options.config ?? loadConfig();
  let llm: PlanningDependencies['llm'];
  if (config.llm) {
    const client = new LlmClient(config.llm);
    llm = { analyzer: new LlmAnalyzer(client), planner: new LlmPlanner(client), critics: [new PremortemCritic(client)], client };
    if (!priceOf(config.llm.model)) console.warn(`no price known for model ${config.llm.model}; its calls are charged $0`);
  }
  const catalogs = options.catalogs ?? builtInCatalogs();
  // Without a store given, the configured one (PostgreSQL at DATABASE_URL, else PLANNER_STORE_DIR); its pool lives
  // as long as the process.
  const storage = options.store ? undefined : openStorage(config);
  const store = options.store ?? storage!.store;
  return {
    catalogs,
    rules: { analyzer: new RuleBasedAnalyzer((name) => catalogs.clarifications(name)), planner: new RankingPlanner() },
    llm,
    critics: RULE_CRITICS,
    store,
    ledger: options.ledger ?? (storage ? storage.ledger : ledgerBeside(store, config.storeDir)),
    workspaceRoots: config.workspaceRoots,
  };
}

export function createActivities(deps: PlanningDependencies = createPlanningDependencies()) {
  return { ...createPlanningActivities(deps), ...createLlmStepActivities({ client: deps.llm?.client, store: deps.store, ledger: deps.ledger }) };
}

export type PlannerActivities = ReturnType<typeof createActivities>;
