/**
 * The planning activities the workflow calls: analyzeRequirements → generatePlan → critiquePlan →
 * gatekeeper. Each parses its input with zod (it crosses the workflow/worker boundary) and reports the LLM calls it
 * made, so the workflow can charge the budget.
 */
import { Context, log } from '@temporalio/activity';
import { TemporalFailure } from '@temporalio/common';
import { z } from 'zod';
import { createBudget, ToolBudgetSchema, type ToolBudget } from '../domain/budget';
import { CritiqueSchema, decide, type GatekeeperDecision } from '../domain/critique';
import { PlanValidationError, type ValidationIssue, PlannerError, WorkerFailureError } from '../domain/errors';
import { LlmSettingsSchema } from '../domain/llm-settings';
import { everyProviderFailed, LlmCallUsageSchema, type LlmCallUsage } from '../domain/llm-calls';
import { flattenSteps, PlanSchema, type Plan } from '../domain/plan';
import { PlanningRequestSchema, effectiveGoal, type PlanningRequest } from '../domain/request';
import { RequirementsSchema } from '../domain/requirements';
import type { ToolRoute } from '../domain/routing';
import { unsaidLiterals, type Grounding } from '../domain/grounding';
import { withoutOrphanCriteria } from '../domain/task-structure';
import { indexCatalog, type ToolSpec } from '../domain/tool-spec';
import { planIssues, runnableStepKinds, validatePlan } from '../domain/validation';
import { groundingOf } from '../planners/goal-constraints';
import { runCritics } from '../planners/critique/run-critics';
import {
  type Critic,
  type CriticResult,
  type PlanGenerationResult,
  type Planner,
  type RequirementsAnalysisResult,
  type RequirementsAnalyzer,
  type TranscriptMessage,
} from '../planners/types';
import type { LlmClient } from '../llm/chat';
import { withLlmCallRecorder } from '../llm/usage-recorder';
import type { ContentStore, WriteOrigin } from '../store/content-store';
import type { IdempotencyLedger } from '../store/idempotency';
import { planCacheKey, type PlanCache } from '../planners/plan-cache';
import type { ToolCatalogs } from '../tools/registry';
import { gatherWorkspaceContext } from '../tools/workspace/context';
import { allowedWorkspaceRoot } from '../tools/workspace/roots';
import { withPlannerFailures } from '../api/failures';
import type { UnsaidStepLiteral } from '../api/state';
import { createCostHistoryActivities } from './cost-history';
import { parseInput } from './parse-input';

export interface PlanningDependencies {
  catalogs: ToolCatalogs;
  /** The deterministic pair is always there; the LLM pair only when an LLM is configured. */
  rules: { analyzer: RequirementsAnalyzer; planner: Planner };
  llm?: {
    analyzer: RequirementsAnalyzer;
    planner: Planner;
    critics: Critic[];
    /** Answers `llm` steps. */ client: Pick<LlmClient, 'complete'>;
  };
  critics: readonly Critic[];
  /** Where LLM conversations go; results carry a `transcript_ref` instead of the text. */
  store: ContentStore;
  /** Where each LLM call's usage is recorded as it completes, so retries charge the calls of attempts that died. */
  ledger: IdempotencyLedger;
  /** The folders a run's workspace_root may name or lie inside (config.workspaceRoots, PLANNER_WORKSPACE_ROOTS). */
  workspaceRoots: readonly string[];
  /** First plans of the LLM planner, reused across runs of a namespace (absent: no cache, or no LLM). */
  planCache?: PlanCache;
}

/** A result as it enters workflow history: the LLM conversation replaced by its content address. */
export type WithTranscriptRef<R> = Omit<R, 'transcript'> & { transcript_ref?: string };

/** generatePlan's result: the plan, the planner that made it, and (when asked, `with_routes`) its tools' routes. */
export type GeneratedPlan = WithTranscriptRef<PlanGenerationResult> & {
  planner: 'llm' | 'ranking';
  from_cache?: string;
  routes?: Record<string, ToolRoute>;
  unsaid?: UnsaidStepLiteral[];
};

/** At most this many unsaid literals go with a plan, each clipped: they are part of the run's state. */
const UNSAID_MAX = 20;
const UNSAID_VALUE_MAX = 200;

/** The literals of the plan's tool steps the goal does not account for (src/domain/grounding.ts), bounded. */
function unsaidOf(plan: Plan, catalog: readonly ToolSpec[], grounding: Grounding): UnsaidStepLiteral[] {
  const tools = indexCatalog(catalog);
  return flattenSteps(plan)
    .flatMap((step) => {
      const tool = step.action === 'tool_call' && step.tool ? tools.get(step.tool) : undefined;
      return tool
        ? unsaidLiterals(step, tool, grounding).map((u) => ({
            step_id: step.id,
            param: u.param,
            value: u.value.slice(0, UNSAID_VALUE_MAX),
          }))
        : [];
    })
    .slice(0, UNSAID_MAX);
}

const GenerateInputSchema = z.object({
  request: PlanningRequestSchema,
  requirements: RequirementsSchema,
  stamp: z.object({ id: z.uuid(), version: z.number().int().min(1), created_at: z.iso.datetime({ offset: true }) }),
  refinement: z.object({ previous: PlanSchema, feedback: z.array(z.string()) }).optional(),
  /** The run's budget now (raised limits included); the planner plans within its limits, not the request's originals. */
  budget: ToolBudgetSchema.optional(),
  trim_to_budget: z.boolean().default(false),
  /** 'off': plan afresh, neither reading nor writing the plan cache (the run option plan_cache, or a caller's context). */
  plan_cache: z.enum(['use', 'off']).default('use'),
  llm: LlmSettingsSchema.optional(),
  /** The routes of the plan's tools come back with it (`routes`), so the run needs no lookupTools activity after it. */
  with_routes: z.boolean().default(false),
});
export type GeneratePlanInput = z.input<typeof GenerateInputSchema>;

const PlanCheckInputSchema = z.object({
  plan: PlanSchema,
  request: PlanningRequestSchema,
  budget: ToolBudgetSchema.optional(),
  llm: LlmSettingsSchema.optional(),
});

const AnalyzeInputSchema = z.object({ request: PlanningRequestSchema, llm: LlmSettingsSchema.optional() });
export type PlanCheckInput = z.input<typeof PlanCheckInputSchema>;

const GatekeeperInputSchema = z.object({
  critiques: z.array(CritiqueSchema),
  strict: z.boolean().default(false),
  max_refinements: z.number().int().min(0),
  refinements_done: z.number().int().min(0),
});
export type GatekeeperInput = z.input<typeof GatekeeperInputSchema>;

const CheckPlanInputSchema = z.object({ plan: z.unknown(), request: PlanningRequestSchema });
const LookupToolsInputSchema = z.object({ tool_catalog: z.string().min(1), tools: z.array(z.string()) });
const ArchiveInputSchema = z.object({ value: z.unknown() });

/** How often a planning activity heartbeats; the workflow's heartbeat timeout is a few of these. */
export const PLANNING_HEARTBEAT_MS = 2_000;

/**
 * Runs an LLM-calling activity so that every call the provider answered is charged exactly once, crash or not.
 * Each call's usage is written to the ledger before the call returns (key: run, activity, attempt, call number);
 * a retry first reads the calls of the earlier attempts and reports them with its own, and a failure carries them
 * all in its details (an unclassified error that follows a call becomes a retryable PLAN-013 to carry them). The steady heartbeat lets Temporal notice a dead worker within the heartbeat timeout.
 */
export async function chargingEveryCall<R extends { llm_calls: LlmCallUsage[] }>(
  ledger: IdempotencyLedger,
  run: () => Promise<R>,
): Promise<R> {
  const ctx = Context.current();
  const { workflowExecution, activityId, attempt } = ctx.info;
  const activity = `${workflowExecution?.workflowId ?? 'standalone'}:${workflowExecution?.runId ?? ''}:${activityId}`;
  const keyOf = (a: number, n: number) => `llm-call:${activity}:${a}:${n}`;
  const origin = workflowExecution ? { workflowId: workflowExecution.workflowId } : undefined;
  const calls: LlmCallUsage[] = [];
  for (let a = 1; a < attempt; a++) {
    for (let n = 0; ; n++) {
      const earlier = await ledger.get(keyOf(a, n));
      if (earlier === undefined) break;
      calls.push(LlmCallUsageSchema.parse(earlier));
    }
  }
  let made = 0;
  // Local activities (the deterministic path) live inside a workflow task and do not heartbeat.
  const timer = ctx.info.isLocal ? undefined : setInterval(() => ctx.heartbeat(), PLANNING_HEARTBEAT_MS);
  try {
    const result = await withLlmCallRecorder(async (usage) => {
      // The call is charged first, in memory: a ledger that cannot be written loses the crash-safety of this call,
      // never the call itself (the result or the failure still reports it).
      calls.push(usage);
      await recordDurably(ledger, keyOf(attempt, made++), usage, origin);
    }, run);
    return { ...result, llm_calls: calls };
  } catch (err) {
    if (err instanceof PlannerError) Object.assign(err.details, { llm_calls: calls });
    else if (calls.length > 0 && !(err instanceof TemporalFailure)) {
      // An error the planner does not classify (a bug) is retried as before, but with the calls: whichever attempt
      // fails last reports every call of every attempt, and the run charges them.
      throw new WorkerFailureError(
        err instanceof Error ? err.message : String(err),
        { llm_calls: calls },
        { retryable: true },
      );
    }
    throw err;
  } finally {
    clearInterval(timer);
  }
}

/** Writes one call's usage to the ledger, retrying a failed write twice; a write that still fails is logged, not thrown. */
async function recordDurably(
  ledger: IdempotencyLedger,
  key: string,
  usage: LlmCallUsage,
  origin: WriteOrigin | undefined,
): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await ledger.record(key, usage, origin);
      return;
    } catch (err) {
      if (tries >= 3) {
        log.warn(
          `LLM call usage not written to the ledger (${(err as Error).message}); it is still charged through the activity's result`,
          { key },
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * tries));
    }
  }
}

/** The run whose activity is writing (retention keeps what recent runs wrote). */
function originOfActivity(): WriteOrigin | undefined {
  const run = Context.current().info.workflowExecution;
  return run ? { workflowId: run.workflowId } : undefined;
}

/**
 * The real path of the run's workspace_root, refused with WorkspaceRootNotAllowedError (PLAN-006) unless it lies
 * inside a root the worker's configuration allows: a run must not point the planner at /etc.
 */
async function checkedWorkspaceRoot(request: PlanningRequest, allowed: readonly string[]): Promise<string | undefined> {
  const root = request.constraints.workspace_root;
  return root ? await allowedWorkspaceRoot(root, allowed) : undefined;
}

/**
 * For coding goals (a workspace_root): the structure and most relevant files, trimmed to max_context_tokens, read
 * from `real`, the root's real path once checkedWorkspaceRoot has allowed it.
 */
async function workspaceContext(
  request: PlanningRequest,
  real: string,
): Promise<{ text: string; summary: string } | undefined> {
  const { workspace_root: root, max_context_tokens } = request.constraints;
  if (max_context_tokens === 0) return undefined;
  const context = await gatherWorkspaceContext({ root: real, goal: effectiveGoal(request), max_context_tokens });
  const included = context.files.filter((f) => f.included !== 'omitted');
  const listed = included.map((f) => `${f.path} (${f.included})`).join(', ') || 'no files';
  return {
    text: context.text,
    summary: `Planned with workspace context from ${root}: ${listed}; ${context.total_tokens} of ${context.budget} tokens (${context.tokenizer})`,
  };
}

/** Whether this is the activity's last attempt under its retry policy (a local activity or no policy: yes). */
function isLastAttempt(): boolean {
  const { attempt, retryPolicy } = Context.current().info;
  const max = retryPolicy?.maximumAttempts ?? 1;
  return max > 0 && attempt >= max;
}

/**
 * The cached plan for `key`, stamped as this run's version, or undefined when there is none, it expired, it no longer
 * validates, or the cache cannot be read (a miss, logged). `from_cache` is when it was first planned.
 */
async function cachedPlan(
  cache: PlanCache,
  namespace: string,
  key: string,
  run: {
    request: PlanningRequest;
    stamp: { id: string; version: number; created_at: string };
    catalog: ReturnType<ToolCatalogs['get']>;
  },
): Promise<(PlanGenerationResult & { from_cache: string }) | undefined> {
  const hit = await cache
    .get(namespace, key)
    .catch((err: Error) => void log.warn(`plan cache not read: ${err.message}`));
  if (!hit) return undefined;
  const { stamp, request } = run;
  const plan: Plan = {
    ...hit.plan,
    id: stamp.id,
    version: stamp.version,
    goal: request.goal,
    metadata: { ...hit.plan.metadata, created_at: stamp.created_at },
  };
  if (
    planIssues(plan, {
      catalog: run.catalog,
      constraints: request.constraints,
      grounding: groundingOf(request, run.catalog),
    }).length > 0
  )
    return undefined;
  return { plan, llm_calls: [], from_cache: hit.stored_at };
}

/** What a plan for `request` is validated against, whoever wrote it: one context for generated and edited plans. */
function validationContext(request: PlanningRequest, catalog: readonly ToolSpec[], planner: 'llm' | 'ranking') {
  return {
    catalog,
    constraints: request.constraints,
    step_kinds: runnableStepKinds(planner),
    grounding: groundingOf(request, catalog),
  };
}

export function createPlanningActivities(deps: PlanningDependencies) {
  const keepOutOfHistory = async <R extends { transcript?: TranscriptMessage[] }>(
    result: R,
  ): Promise<WithTranscriptRef<R>> => {
    const { transcript, ...rest } = result;
    if (!transcript?.length) return rest;
    const { ref } = await deps.store.put(transcript, originOfActivity());
    return { ...rest, transcript_ref: ref };
  };

  const pick = (request: PlanningRequest) => {
    if (request.planner === 'llm' && !deps.llm) {
      // The run decided on the LLM planner (asked for it, or `auto` resolved to it by its first analysis): this
      // worker cannot honour that, so the activity fails retryably and another worker (one with an LLM) takes it.
      throw new WorkerFailureError(
        'this run plans with the LLM planner but this worker has no LLM configured (set OPENAI_API_KEY / OPENAI_BASE_URL on it)',
        { planner: 'llm' },
        { retryable: true },
      );
    }
    return request.planner === 'ranking' || !deps.llm ? deps.rules : deps.llm;
  };
  const critics = (request: PlanningRequest) => [
    ...deps.critics,
    ...(pick(request) === deps.llm ? deps.llm!.critics : []),
  ];
  const budgetOf = (request: PlanningRequest, state?: ToolBudget): ToolBudget => state ?? createBudget(request.budget);

  return {
    /**
     * Says which analyzer ran (`analyzer`), so the run budgets LLM calls ahead only when one may be made. Under
     * `auto`, when every LLM provider failed on the activity's last attempt, the rules analyzer answers instead and
     * `fallback` says why: the run then plans with the ranking planner.
     */
    analyzeRequirements: withPlannerFailures(
      async (
        input: z.input<typeof AnalyzeInputSchema>,
      ): Promise<WithTranscriptRef<RequirementsAnalysisResult> & { analyzer: 'llm' | 'rules'; fallback?: string }> => {
        const { request, llm } = parseInput(AnalyzeInputSchema, input, 'analyzeRequirements');
        await checkedWorkspaceRoot(request, deps.workspaceRoots); // refuse a root the worker does not allow before any LLM call
        const catalog = deps.catalogs.get(request.tool_catalog);
        const { analyzer } = pick(request);
        let fallback: string | undefined;
        const analyzed = await chargingEveryCall(deps.ledger, async () => {
          try {
            return await analyzer.analyze({ request, catalog, ...(llm ? { llm } : {}) });
          } catch (err) {
            if (!(request.planner === 'auto' && analyzer.kind === 'llm' && everyProviderFailed(err) && isLastAttempt()))
              throw err;
            fallback = `every LLM provider failed (${(err as Error).message}); planner auto falls back to the ranking planner`;
            log.warn(fallback);
            return await deps.rules.analyzer.analyze({ request, catalog });
          }
        });
        const result = await keepOutOfHistory(analyzed);
        return fallback ? { ...result, analyzer: 'rules', fallback } : { ...result, analyzer: analyzer.kind };
      },
    ),

    /** A new plan version; a plan that fails validation never leaves this activity (the LLM planner re-prompts). */
    generatePlan: withPlannerFailures(async (input: GeneratePlanInput): Promise<GeneratedPlan> => {
      const { requirements, stamp, refinement, budget, trim_to_budget, llm, with_routes, ...parsed } = parseInput(
        GenerateInputSchema,
        input,
        'generatePlan',
      );
      const request: PlanningRequest = budget
        ? { ...parsed.request, budget: { ...budget.limit, policy: budget.policy } }
        : parsed.request;
      const catalog = deps.catalogs.get(request.tool_catalog);
      const planner = pick(request).planner;
      const root = await checkedWorkspaceRoot(request, deps.workspaceRoots);
      const workspace =
        planner.kind === 'llm' && root !== undefined ? await workspaceContext(request, root) : undefined;
      // A first LLM plan may come from the cache: then no LLM call is made (or charged), the rest is as usual.
      const cache = planner.kind === 'llm' && !refinement && parsed.plan_cache === 'use' ? deps.planCache : undefined;
      const cacheKey = cache
        ? planCacheKey({
            planner: planner.cacheIdentity ?? planner.kind,
            request,
            requirements,
            catalog,
            workspaceText: workspace?.text,
            trimmedTo: trim_to_budget ? budget?.limit : undefined,
          })
        : undefined;
      const { namespace } = Context.current().info;
      const generated: PlanGenerationResult & { from_cache?: string } = await chargingEveryCall(
        deps.ledger,
        async () =>
          (cache && cacheKey ? await cachedPlan(cache, namespace, cacheKey, { request, stamp, catalog }) : undefined) ??
          (await planner.generate({
            request,
            requirements,
            catalog,
            stamp,
            refinement,
            workspace,
            trim_to_budget,
            ...(llm ? { llm } : {}),
          })),
      );
      // What the planner saw of the workspace is part of the plan's record.
      const result = workspace
        ? { ...generated, plan: { ...generated.plan, assumptions: [...generated.plan.assumptions, workspace.summary] } }
        : generated;
      // What this run cannot execute is refused here, before the plan is recorded, never at execution.
      const context = validationContext(request, catalog, planner.kind);
      const { grounding } = context;
      const issues = planIssues(result.plan, context);
      if (issues.length > 0) throw new PlanValidationError(issues);
      if (cache && cacheKey && !generated.from_cache) {
        await cache
          .put(namespace, cacheKey, generated.plan)
          .catch((err: Error) => log.warn(`plan not cached: ${err.message}`));
      }
      const routes = with_routes
        ? {
            routes: deps.catalogs.routes(request.tool_catalog, [
              ...new Set(flattenSteps(result.plan).flatMap((s) => (s.tool ? [s.tool] : []))),
            ]),
          }
        : {};
      const unsaid = unsaidOf(result.plan, catalog, grounding);
      return {
        ...(await keepOutOfHistory(result)),
        planner: planner.kind,
        ...routes,
        ...(unsaid.length > 0 ? { unsaid } : {}),
      };
    }),

    /**
     * A plan a person wrote (editPlan, rerunFrom, a re-run's input), validated exactly as a generated plan is:
     * the same checks against the same catalog, constraints, step kinds and grounding. Its issues (none: it may
     * run) and the routes of its tools.
     */
    checkPlan: withPlannerFailures(
      async (
        input: z.input<typeof CheckPlanInputSchema>,
      ): Promise<{ issues: ValidationIssue[]; routes: Record<string, ToolRoute>; plan: unknown }> => {
        const { request, ...given } = parseInput(CheckPlanInputSchema, input, 'checkPlan');
        const parsed = PlanSchema.safeParse(given.plan); // if it does not parse, validation names what is wrong
        const plan = parsed.success ? withoutOrphanCriteria(parsed.data) : given.plan;
        const catalog = deps.catalogs.get(request.tool_catalog);
        const issues = validatePlan(plan, validationContext(request, catalog, pick(request).planner.kind));
        const tools = issues.length > 0 ? [] : flattenSteps(plan as Plan).flatMap((s) => (s.tool ? [s.tool] : []));
        return { issues, routes: deps.catalogs.routes(request.tool_catalog, [...new Set(tools)]), plan };
      },
    ),

    critiquePlan: withPlannerFailures(async (input: PlanCheckInput): Promise<WithTranscriptRef<CriticResult>> => {
      const { plan, request, budget, llm } = parseInput(PlanCheckInputSchema, input, 'critiquePlan');
      const catalog = deps.catalogs.get(request.tool_catalog);
      const context = { request, catalog, budget: budgetOf(request, budget), ...(llm ? { llm } : {}) };
      return await keepOutOfHistory(
        await chargingEveryCall(deps.ledger, () => runCritics(critics(request), plan as Plan, context)),
      );
    }),

    /** Where each tool runs and what a call costs: the facts routing and budget checks need. */
    lookupTools: withPlannerFailures(
      async (input: { tool_catalog: string; tools: string[] }): Promise<Record<string, ToolRoute>> => {
        const { tool_catalog, tools } = parseInput(LookupToolsInputSchema, input, 'lookupTools');
        return deps.catalogs.routes(tool_catalog, tools);
      },
    ),

    /** Bounded state: an old plan version (or a page of archived entries) goes to the content store; its ref comes back. */
    archive: withPlannerFailures(async (input: { value: unknown }): Promise<{ ref: string }> => {
      const { value } = parseInput(ArchiveInputSchema, input, 'archive');
      return { ref: (await deps.store.put(value, originOfActivity())).ref };
    }),

    gatekeeper: withPlannerFailures(async (input: GatekeeperInput): Promise<GatekeeperDecision> => {
      const { critiques, ...policy } = parseInput(GatekeeperInputSchema, input, 'gatekeeper');
      return decide(critiques, policy);
    }),

    ...createCostHistoryActivities(deps.ledger, deps.catalogs),
  };
}

export type PlanningActivities = ReturnType<typeof createPlanningActivities>;
