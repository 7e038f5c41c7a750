/**
 * PlanCache: a plan the LLM planner wrote for a goal is reused, without an LLM call, by a later run of the same
 * namespace whose planner prompt would say the same (see planCacheKey), for `ttlMs`. Plans live in the content store (by reference); the index of each namespace is one value in the ledger
 * beside the store (`plan-cache:<namespace>`), at most `maxEntries` long, oldest dropped first. A cache is an
 * optimisation: any trouble reading or writing it is a miss, never a failed run.
 */
import { canonicalJson } from '../domain/canonical-json';
import { PlanSchema, type Plan } from '../domain/plan';
import { effectiveGoal, type PlanningRequest } from '../domain/request';
import type { Requirements } from '../domain/requirements';
import type { ToolSpec } from '../domain/tool-spec';
import { temporalReferencesFor } from '../domain/date-ranges';
import type { Usage } from '../domain/budget';
import { sha256Hex } from '../sha256';
import type { ContentStore } from '../store/content-store';
import type { IdempotencyLedger } from '../store/idempotency';

export interface PlanCacheOptions {
  store: ContentStore;
  /** Where the index lives: get, record (first write wins) and remove, as the idempotency ledger offers. */
  index: IdempotencyLedger;
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

interface IndexEntry {
  key: string;
  ref: string;
  stored_at: number;
}

/** What a plan depends on: the cache key is the digest of these. */
export interface PlanCacheKeyInput {
  /** The planner's own part (Planner.cacheIdentity: its model, how it starts, the release's prompts). */
  planner: string;
  request: PlanningRequest;
  requirements: Requirements;
  catalog: readonly ToolSpec[];
  /** The workspace context the planner would see (coding goals): a changed workspace is another plan. */
  workspaceText?: string;
  /** With trim_to_budget the limits shape the plan; otherwise they do not. */
  trimmedTo?: Usage;
}

/**
 * The digest of everything the planner's prompt is made of (src/llm/prompts.ts systemPrompt and
 * plannerUserPrompt): whatever a run can put into the prompt must be in the key, or one run could have its plan served
 * to another that never said it (a `system` message in the context, say). The catalog's specs make the system
 * prompt; the ranking planner's draft is left out because it follows from the rest; the model and the release
 * (whose prompt templates may differ) come with the planner's identity. `now` counts to the day: the
 * plan's dates are days, and the exact instant would make every run a miss.
 */
export function planCacheKey(input: PlanCacheKeyInput): string {
  const { request, requirements } = input;
  const { temporal_references, ...analysis } = requirements;
  const { cost_usd, tokens, calls } = request.budget;
  return sha256Hex(
    canonicalJson({
      planner: input.planner,
      goal: request.goal,
      context: request.context,
      day: request.now.slice(0, 'YYYY-MM-DD'.length),
      dates: temporalReferencesFor(effectiveGoal(request), request.now, temporal_references),
      requirements: analysis,
      catalog: request.tool_catalog,
      specs: sha256Hex(canonicalJson(input.catalog)),
      constraints: request.constraints,
      budget: { cost_usd, tokens, calls },
      workspace: input.workspaceText === undefined ? null : sha256Hex(input.workspaceText),
      trimmed_to: input.trimmedTo ?? null,
    }),
  );
}

export class PlanCache {
  private readonly now: () => number;

  constructor(private readonly options: PlanCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The plan cached under `key` in `namespace` and when it was stored, unless there is none or it expired. */
  async get(namespace: string, key: string): Promise<{ plan: Plan; stored_at: string } | undefined> {
    const entry = (await this.entries(namespace)).find((e) => e.key === key);
    if (!entry) return undefined;
    const plan = PlanSchema.safeParse(await this.options.store.get(entry.ref));
    return plan.success ? { plan: plan.data, stored_at: new Date(entry.stored_at).toISOString() } : undefined;
  }

  async put(namespace: string, key: string, plan: Plan): Promise<void> {
    const { ref } = await this.options.store.put(plan);
    const kept = (await this.entries(namespace)).filter((e) => e.key !== key);
    const entries = [...kept, { key, ref, stored_at: this.now() }].slice(-this.options.maxEntries);
    const indexKey = indexKeyOf(namespace);
    // The ledger keeps the first record of a key: the index is replaced by removing it first. Two workers writing
    // at once may lose one entry, which costs a later run one LLM call.
    await this.options.index.remove(indexKey);
    await this.options.index.record(indexKey, { entries });
  }

  /** The namespace's live entries, oldest first. */
  private async entries(namespace: string): Promise<IndexEntry[]> {
    const value = (await this.options.index.get(indexKeyOf(namespace))) as { entries?: IndexEntry[] } | undefined;
    const oldest = this.now() - this.options.ttlMs;
    return (value?.entries ?? []).filter((e) => e.stored_at > oldest);
  }
}

function indexKeyOf(namespace: string): string {
  return `plan-cache:${namespace}`;
}
