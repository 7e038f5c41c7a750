/**
 * The planner worker's activities and their dependencies. `createActivities` binds them, the way Temporal's
 * samples do, so tests and the worker can hand in their own: the deterministic analyzer and ranking planner are
 * always there; the LLM ones join when the config has an LLM (OPENAI_API_KEY / OPENAI_BASE_URL).
 */
import type { PlannerConfig } from '../config';
import { PlanCache } from '../planners/plan-cache';
import { RULE_CRITICS } from '../planners/critique/rule-critics';
import { RankingPlanner } from '../planners/generate/ranking-planner';
import { RuleBasedAnalyzer } from '../planners/analyze/rules-analyzer';
import type { ContentStore } from '../store/content-store';
import { openStorage } from '../store/storage';
import { ledgerBeside, type IdempotencyLedger } from '../store/idempotency';
import { builtInCatalogs, type ToolCatalogs } from '../tools/registry';
import { createStepKindActivities } from '../step-kinds/activities';
import { createPlanningActivities, type PlanningDependencies } from './planning';
import { createVerifierActivities } from './verify';

export function createPlanningDependencies(options: {
  config: PlannerConfig;
  catalogs?: ToolCatalogs;
  store?: ContentStore;
  ledger?: IdempotencyLedger;
}): PlanningDependencies {
  const { config } = options;
  const catalogs = options.catalogs ?? builtInCatalogs();
  let llm: PlanningDependencies['llm'];
  if (config.llmProviders.length > 0) {
    // Required here, not imported: a worker without an LLM never loads the openai client (./llm-dependencies).
    const { llmDependencies } = require('./llm-dependencies') as typeof import('./llm-dependencies');
    llm = llmDependencies(config.llmProviders, catalogs, config);
  }
  // Without a store given, the configured one (PostgreSQL at DATABASE_URL, else PLANNER_STORE_DIR); its pool lives
  // as long as the process.
  const storage = options.store ? undefined : openStorage(config);
  const store = options.store ?? storage!.store;
  const ledger = options.ledger ?? (storage ? storage.ledger : ledgerBeside(store, config.storeDir));
  return {
    catalogs,
    rules: { analyzer: new RuleBasedAnalyzer((name) => catalogs.clarifications(name)), planner: new RankingPlanner() },
    llm,
    critics: RULE_CRITICS,
    store,
    ledger,
    workspaceRoots: config.workspaceRoots,
    ...(llm && config.planCache.maxEntries > 0
      ? { planCache: new PlanCache({ store, index: ledger, ...config.planCache }) }
      : {}),
  };
}

export function createActivities(deps: PlanningDependencies) {
  return {
    ...createPlanningActivities(deps),
    ...createStepKindActivities({ client: deps.llm?.client, store: deps.store, ledger: deps.ledger }),
    ...createVerifierActivities({ store: deps.store }),
  };
}

export type PlannerActivities = ReturnType<typeof createActivities>;
