/**
 * The planning activities the workflow calls: analyzeRequirements → generatePlan → critiquePlan →
 * gatekeeper. Each parses its input with zod (it crosses the workflow/worker boundary) and reports the LLM calls it
 * made, so the workflow can charge the budget.
 */
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { createBudget, ToolBudgetSchema, type ToolBudget } from '../domain/budget';
import { CritiqueSchema, decide, type GatekeeperDecision } from '../domain/critique';
import { InvalidInputError, PlanValidationError, PlannerError, WorkerFailureError, formatZodIssues } from '../domain/errors';
import { LlmSettingsSchema } from '../domain/llm-settings';
import { PlanSchema, type Plan } from '../domain/plan';
import { PlanningRequestSchema, effectiveGoal, type PlanningRequest } from '../domain/request';
import { RequirementsSchema } from '../domain/requirements';
import type { ToolRoute } from '../domain/routing';
import { validatePlan as checkPlan } from '../domain/validation';
import { runCritics } from '../planners/critique/run-critics';
import { LlmCallUsageSchema, type Critic, type CriticResult, type LlmCallUsage, type PlanGenerationResult, type Planner, type RequirementsAnalysisResult, type RequirementsAnalyzer, type TranscriptMessage } from '../planners/types';
import { withLlmCallRecorder } from '../llm/usage-recorder';
import type { ContentStore } from '../store/content-store';
import type { IdempotencyLedger } from '../tools/idempotency';
import type { ToolCatalogs } from '../tools/registry';
import { gatherWorkspaceContext } from '../tools/workspace/context';
import { allowedWorkspaceRoot } from '../tools/workspace/roots';
import { withPlannerFailures } from '../api/failures';

export interface PlanningDependencies {
  catalogs: ToolCatalogs;
  /** The deterministic pair is always there; the LLM pair only when an LLM is configured. */
  rules: { analyzer: RequirementsAnalyzer; planner: Planner };
  llm?: { analyzer: RequirementsAnalyzer; planner: Planner; critics: Critic[] };
  critics: readonly Critic[];
  /** Where LLM conversations go; results carry a `transcript_ref` instead of the text. */
  store: ContentStore;
  /** Where each LLM call's usage is recorded as it completes, so retries charge the calls of attempts that died. */
  ledger: IdempotencyLedger;
  /** The folders a run's workspace_root may name or lie inside (config.workspaceRoots, PLANNER_WORKSPACE_ROOTS). */
  workspaceRoots: readonly string[];
}

/** A result as it enters workflow history: the LLM conversation replaced by its content address. */
export type WithTranscriptRef<R> = Omit<R, 'transcript'> & { transcript_ref?: string };

const GenerateInputSchema = z.object({
  request: PlanningRequestSchema,
  requirements: RequirementsSchema,
  stamp: z.object({ id: z.uuid(), version: z.number().int().min(1), created_at: z.iso.datetime({ offset: true }) }),
  refinement: z.object({ previous: PlanSchema, feedback: z.array(z.string()) }).optional(),
  /** The run's budget now (raised limits included); the planner plans within its limits, not the request's originals. */
  budget: ToolBudgetSchema.optional(),
  trim_to_budget: z.boolean().default(false),
  llm: LlmSettingsSchema.optional(),
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

/** How often a planning activity heartbeats; the workflow's heartbeat timeout is a few of these. */
export const PLANNING_HEARTBEAT_MS = 2_000;

/**
 * Runs an LLM-calling activity so that every call the provider answered is charged exactly once, crash or not.
 * Each call's usage is written to the ledger before the call returns (key: run, activity, attempt, call number);
 * a retry first reads the calls of the earlier attempts and reports them with its own, and a failure carries them
 * all in its details. The steady heartbeat lets Temporal notice a dead worker within the heartbeat timeout.
 */
async function chargingEveryCall<R extends { llm_calls: LlmCallUsage[] }>(ledger: IdempotencyLedger, run: () => Promise<R>): Promise<R> {
  const ctx = Context.current();
  const { workflowExecution, activityId, attempt } = ctx.info;
  const activity = `${workflowExecution?.workflowId ?? 'standalone'}:${workflowExecution?.runId ?? ''}:${activityId}`;
  const keyOf = (a: number, n: number) => `llm-call:${activity}:${a}:${n}`;
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
      await recordDurably(ledger, keyOf(attempt, made++), usage);
    }, run);
    return { ...result, llm_calls: calls };
  } catch (err) {
    if (err instanceof PlannerError) Object.assign(err.details, { llm_calls: calls });
    throw err;
  } finally {
    clearInterval(timer);
  }
}

/** Writes one call's usage to the ledger, retrying a failed write twice; a write that still fails is logged, not thrown. */
async function recordDurably(ledger: IdempotencyLedger, key: string, usage: LlmCallUsage): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await ledger.record(key, usage);
      return;
    } catch (err) {
      if (tries >= 3) {
        log.warn(`LLM call usage not written to the ledger (${(err as Error).message}); it is still charged through the activity's result`, { key });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * tries));
    }
  }
}

function parseInput<S extends z.ZodType>(schema: S, input: unknown, activity: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(`${activity}: invalid input`, 'The workflow sent input this worker does not understand; check that workflow and worker versions match.', {
    issues: formatZodIssues(parsed.error),
  });
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
async function workspaceContext(request: PlanningRequest, real: string): Promise<{ text: string; summary: string } | undefined> {
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

export function createPlanningActivities(deps: PlanningDependencies) {
  const keepOutOfHistory = async <R extends { transcript?: TranscriptMessage[] }>(result: R): Promise<WithTranscriptRef<R>> => {
    const { transcript, ...rest } = result;
    if (!transcript?.length) return rest;
    const { ref } = await deps.store.put(transcript);
    return { ...rest, transcript_ref: ref };
  };

  const pick = (request: PlanningRequest) => {
    if (request.planner === 'llm' && !deps.llm) {
      // The run decided on the LLM planner (asked for it, or `auto` resolved to it by its first analysis): this
      // worker cannot honour that, so the activity fails retryably and another worker (one with an LLM) takes it.
      throw new WorkerFailureError('this run plans with the LLM planner but this worker has no LLM configured (set OPENAI_API_KEY / OPENAI_BASE_URL on it)', { planner: 'llm' }, { retryable: true });
    }
    return request.planner === 'ranking' || !deps.llm ? deps.rules : deps.llm;
  };
  const critics = (request: PlanningRequest) => [...deps.critics, ...(pick(request) === deps.llm ? deps.llm!.critics : [])];
  const budgetOf = (request: PlanningRequest, state?: ToolBudget): ToolBudget => state ?? createBudget(request.budget);

  return {
    /** Says which analyzer ran (`analyzer`), so the run budgets LLM calls ahead only when one may be made. */
    analyzeRequirements: withPlannerFailures(async (input: z.input<typeof AnalyzeInputSchema>): Promise<WithTranscriptRef<RequirementsAnalysisResult> & { analyzer: 'llm' | 'rules' }> => {
      const { request, llm } = parseInput(AnalyzeInputSchema, input, 'analyzeRequirements');
      await checkedWorkspaceRoot(request, deps.workspaceRoots); // refuse a root the worker does not allow before any LLM call
      const catalog = deps.catalogs.get(request.tool_catalog);
      const { analyzer } = pick(request);
      const result = await keepOutOfHistory(await chargingEveryCall(deps.ledger, () => analyzer.analyze({ request, catalog, ...(llm ? { llm } : {}) })));
      return { ...result, analyzer: analyzer.kind };
    }),

    /** A new plan version; a plan that fails validation never leaves this activity (the LLM planner re-prompts). */
    generatePlan: withPlannerFailures(async (input: GeneratePlanInput): Promise<WithTranscriptRef<PlanGenerationResult> & { planner: 'llm' | 'ranking' }> => {
      const { requirements, stamp, refinement, budget, trim_to_budget, llm, ...parsed } = parseInput(GenerateInputSchema, input, 'generatePlan');
      const request: PlanningRequest = budget ? { ...parsed.request, budget: { ...budget.limit, policy: budget.policy } } : parsed.request;
      const catalog = deps.catalogs.get(request.tool_catalog);
      const planner = pick(request).planner;
      const root = await checkedWorkspaceRoot(request, deps.workspaceRoots);
      const workspace = planner.kind === 'llm' && root !== undefined ? await workspaceContext(request, root) : undefined;
      const generated = await chargingEveryCall(deps.ledger, () => planner.generate({ request, requirements, catalog, stamp, refinement, workspace, trim_to_budget, ...(llm ? { llm } : {}) }));
      // What the planner saw of the workspace is part of the plan's record.
      const result = workspace ? { ...generated, plan: { ...generated.plan, assumptions: [...generated.plan.assumptions, workspace.summary] } } : generated;
      const issues = checkPlan(result.plan, { catalog, constraints: request.constraints });
      if (issues.length > 0) throw new PlanValidationError(issues);
      return { ...(await keepOutOfHistory(result)), planner: planner.kind };
    }),

    critiquePlan: withPlannerFailures(async (input: PlanCheckInput): Promise<WithTranscriptRef<CriticResult>> => {
      const { plan, request, budget, llm } = parseInput(PlanCheckInputSchema, input, 'critiquePlan');
      const catalog = deps.catalogs.get(request.tool_catalog);
      const context = { request, catalog, budget: budgetOf(request, budget), ...(llm ? { llm } : {}) };
      return await keepOutOfHistory(await chargingEveryCall(deps.ledger, () => runCritics(critics(request), plan as Plan, context)));
    }),

    /** Where each tool runs and what a call costs: the facts routing and budget checks need. */
    lookupTools: withPlannerFailures(async (input: { tool_catalog: string; tools: string[] }): Promise<Record<string, ToolRoute>> => {
      const { tool_catalog, tools } = parseInput(z.object({ tool_catalog: z.string().min(1), tools: z.array(z.string()) }), input, 'lookupTools');
      return deps.catalogs.routes(tool_catalog, tools);
    }),

    /** Bounded state: an old plan version (or a page of archived entries) goes to the content store; its ref comes back. */
    archive: withPlannerFailures(async (input: { value: unknown }): Promise<{ ref: string }> => {
      const { value } = parseInput(z.object({ value: z.unknown() }), input, 'archive');
      return { ref: (await deps.store.put(value)).ref };
    }),

    gatekeeper: withPlannerFailures(async (input: GatekeeperInput): Promise<GatekeeperDecision> => {
      const { critiques, ...policy } = parseInput(GatekeeperInputSchema, input, 'gatekeeper');
      return decide(critiques, policy);
    }),
  };
}

export type PlanningActivities = ReturnType<typeof createPlanningActivities>;
