/**
 * LlmPlanner: goal + requirements + catalog → a validated Plan, written by an LLM as a lean draft (status, missing
 * capabilities, steps with title, tool, params and dependencies; see src/domain/plan-draft.ts) under a structured
 * output whose schema allows only the catalog's tools with their params. The system fills ids, defaults and the
 * estimate. A reply that is not JSON, does not match the format or fails validatePlan is sent back with its errors
 * in the same conversation (see askForJson); after the attempts run out the rules' own plan of a first plan stands
 * where it validates, else planning fails with PLAN-009. A full plan (with `tasks`) is accepted too, from providers
 * that ignore the schema and models that know the old format.
 *
 * A first plan starts from the ranking planner's draft. With `calls: 'auto'` (PLANNER_LLM_PLAN) a draft that holds
 * every value the goal states, validates and accounts for the goal's actions is the plan, without a call: on two CPU
 * cores a plan costs the model 10-20 s of reply (6-19 tokens a second), and the eval finds the rules right on such
 * drafts more often than the model. Any other draft is sent for correction, naming the values it leaves out. With
 * `calls: 'always'` the model gives its verdict on every draft first and writes a plan only to revise it. A kept draft
 * is validated like any reply: if it has issues, the model is told.
 * A revision keeps the tasks of the plan it revises (the draft, or the previous version of a refinement): its steps
 * take that plan's labels where the model wrote none (withLabelsOfDraft).
 */
import { z } from 'zod';
import {
  PlanSchemaError,
  PlanValidationError,
  PlanningExhaustedError,
  formatZodIssues,
  type ValidationIssue,
} from '../../domain/errors';
import { namedToolsLeftOut, providedBy, unaccountedValues, withActionsAccounted } from '../coverage';
import { PlanSchema, parseJsonWith, parsePlanJson, type Plan, type PlanStamp } from '../../domain/plan';
import { PlanDraftSchema, draftOf, planFromDraft, type DraftStamp } from '../../domain/plan-draft';
import { withLabelsOfDraft } from '../../domain/revision-labels';
import { effectiveGoal } from '../../domain/request';
import { validatePlan, type ValidationContext } from '../../domain/validation';
import type { ToolSpec } from '../../domain/tool-spec';
import type { LlmCallUsage } from '../../domain/llm-calls';
import type { PlanGenerationInput, PlanGenerationResult, Planner } from '../types';
import type { ChatModel } from '../../llm/chat';
import type { LlmCallMode } from '../../config';
import { askForJson, refusedConversation } from '../../llm/json-conversation';
import { DRAFT_VERDICTS, draftReviewReplySchema, planReplySchema } from '../../llm/reply-schemas';
import { systemPrompt, plannerUserPrompt } from '../../llm/prompts';
import { temporalReferencesFor } from '../../domain/date-ranges';
import type { TemporalReference } from '../../domain/dates';
import { groundingOf } from '../goal-constraints';
import { groundedPlan } from '../ground-plan';
import { packageVersion } from '../../versioning';

/** Low but not zero for a fresh plan; a refinement must change only what the feedback asks, so 0. */
export const PLAN_TEMPERATURE = 0.1;
export const REFINE_TEMPERATURE = 0;
/** A plan of a dozen steps fits in far fewer; a reply running past this is a model repeating itself. */
export const PLAN_REPLY_MAX_TOKENS = 1024;

/**
 * Reply text → Plan: a full plan (it has `tasks`) as it is, a draft completed by the system, without the missing
 * capabilities its own steps' tools provide (../coverage `providedBy`; the status follows, see planFromDraft).
 * `reviewed`: the plan the reply revises, whose tasks an unlabelled revision's steps continue (withLabelsOfDraft).
 */
export function parsePlanReply(text: string, stamp: DraftStamp, catalog: readonly ToolSpec[], reviewed?: Plan): Plan {
  const json = parseJsonWith(z.record(z.string(), z.unknown()), text, 'plan');
  if ('tasks' in json) return parsePlanJson(text, stamp as PlanStamp);
  const parsed = PlanDraftSchema.safeParse(json);
  if (!parsed.success) throw new PlanSchemaError('plan', formatZodIssues(parsed.error));
  const draft = reviewed ? withLabelsOfDraft(parsed.data, draftOf(reviewed)) : parsed.data;
  const used = catalog.filter((tool) => draft.steps.some((step) => step.tool === tool.name));
  const missing = draft.missing_capabilities.filter((capability) => !providedBy(capability, used));
  const plan = PlanSchema.safeParse(planFromDraft({ ...draft, missing_capabilities: missing }, stamp, catalog));
  if (!plan.success) throw new PlanSchemaError('plan', formatZodIssues(plan.error));
  return plan.data;
}

const DraftReviewSchema = z.object({ verdict: z.enum(DRAFT_VERDICTS), plan: z.unknown() });

/**
 * A reply to a draft: 'keep', or the text of the plan the model wrote instead. A reply without a verdict (a provider
 * that ignores the schema) is a plan.
 */
function revisionOf(text: string): 'keep' | string {
  const json = parseJsonWith(z.record(z.string(), z.unknown()), text, 'plan');
  if (!('verdict' in json)) return text;
  const reply = parseJsonWith(DraftReviewSchema, text, 'plan');
  if (reply.verdict === 'keep') return 'keep';
  if (reply.plan === null || typeof reply.plan !== 'object')
    throw new PlanSchemaError('plan', ['verdict "revise" needs the corrected plan in "plan"']);
  return JSON.stringify(reply.plan);
}

/**
 * What the rules find lacking in their own draft: undefined when nothing (a first request with no conversation, the
 * draft FEASIBLE or PARTIAL, with no validation issue, accounting for the goal's actions and holding every value the
 * goal states), else the goal's values it leaves out (possibly none: then something else is for the model to weigh).
 */
function draftShortfall(
  draft: Plan,
  { request, catalog }: PlanGenerationInput,
  context: ValidationContext,
  temporal_references: readonly TemporalReference[],
): string[] | undefined {
  const leftOut = unaccountedValues(draft, request, catalog, temporal_references);
  // A conversation (a caller's system message, a user's answer) may say what the rules cannot read: the model reads it.
  const sound =
    request.context.length === 0 &&
    (draft.status === 'FEASIBLE' || draft.status === 'PARTIAL') &&
    withActionsAccounted(draft, request, catalog) === draft &&
    validatePlan(draft, context).length === 0;
  return sound && leftOut.length === 0 ? undefined : leftOut;
}

/**
 * Why a validating draft stands against the model's correction, or undefined when the correction is taken. Giving up
 * is no correction: a small model says IMPOSSIBLE where it cannot place a value, though the draft's tools do the goal.
 * Nor is a correction asked to place left-out values that places none of them, or drops one the draft held: the
 * model rewrote what the rules had right.
 */
function draftStands(
  draft: Plan,
  revised: Plan,
  leftOut: readonly string[],
  { request, catalog }: PlanGenerationInput,
  context: ValidationContext,
  temporal_references: readonly TemporalReference[],
): string | undefined {
  if (validatePlan(draft, context).length > 0) return undefined;
  if (revised.status === 'IMPOSSIBLE')
    return "the model answered IMPOSSIBLE to a draft whose steps validate: the ranking planner's draft stands";
  if (leftOut.length === 0) return undefined;
  const stillOut = new Set(unaccountedValues(revised, request, catalog, temporal_references));
  const placed = leftOut.filter((value) => !stillOut.has(value));
  const dropped = [...stillOut].filter((value) => !leftOut.includes(value));
  if (placed.length > 0 && dropped.length === 0) return undefined;
  return dropped.length > 0
    ? `the model's correction left out ${dropped.map((v) => `"${v}"`).join(', ')}, which the draft held: the ranking planner's draft stands`
    : "the model's correction placed none of the values the draft left out: the ranking planner's draft stands";
}

/** An IMPOSSIBLE answer to a goal that names catalog tools: the model gave up on a part it can do. */
function toolsLeftOutIssue(tools: readonly string[]): ValidationIssue {
  const names = tools.map((t) => `"${t}"`).join(', ');
  return {
    code: 'IMPOSSIBLE_BUT_TOOLS_FIT',
    message: `the plan is IMPOSSIBLE, but the goal names what ${names} of the catalog ${tools.length > 1 ? 'do' : 'does'}`,
    hint: `Call ${names} in steps. The status is FEASIBLE when the steps do the whole goal, PARTIAL when they do part of it (missing_capabilities then names only what no tool does).`,
  };
}

export class LlmPlanner implements Planner {
  readonly kind = 'llm';

  readonly cacheIdentity: string;

  private readonly calls: LlmCallMode;

  /**
   * `draft`: the planner whose plan a first plan starts from (the ranking planner), so the model revises, not invents;
   * `calls`: `auto` (default) asks the model only about a draft the rules find lacking, `always` about every draft.
   */
  constructor(
    private readonly client: ChatModel,
    private readonly draft?: Planner,
    options: { calls?: LlmCallMode } = {},
  ) {
    this.calls = options.calls ?? 'auto';
    // Another model, another start or another release's prompts make other plans: none is served a cached one.
    this.cacheIdentity = `${client.model}; draft ${draft ? `${draft.kind}, calls ${this.calls}` : 'none'}; durable-planner ${packageVersion()}`;
  }

  /** The draft planner's plan for a first plan, unless the draft planner fails. */
  private async rulesPlanFor(input: PlanGenerationInput): Promise<Plan | undefined> {
    if (!this.draft || input.refinement) return undefined;
    try {
      return (await this.draft.generate({ ...input, llm: undefined })).plan;
    } catch {
      return undefined; // the model plans from the goal alone, as without a draft
    }
  }

  async generate(input: PlanGenerationInput): Promise<PlanGenerationResult> {
    const { request, requirements, catalog, stamp, refinement, workspace, llm } = input;
    const temperature =
      llm?.temperature ?? this.client.defaults.temperature ?? (refinement ? REFINE_TEMPERATURE : PLAN_TEMPERATURE);
    const planStamp: DraftStamp = {
      id: stamp.id,
      version: stamp.version,
      goal: request.goal,
      metadata: { planner: 'llm', model: this.client.model, temperature, created_at: stamp.created_at },
    };
    const grounding = groundingOf(request, catalog);
    const context: ValidationContext = { catalog, constraints: request.constraints, grounding };
    const temporal_references = temporalReferencesFor(
      effectiveGoal(request),
      request.now,
      requirements.temporal_references,
    );
    const allowed = request.constraints.allowed_tools;
    const tools = allowed ? catalog.filter((t) => allowed.includes(t.name)) : catalog;

    const rulesPlan = await this.rulesPlanFor(input);
    // An IMPOSSIBLE plan has no step to offer as a draft: the model plans from the goal.
    const draft = rulesPlan?.status === 'IMPOSSIBLE' ? undefined : rulesPlan;
    const leftOut = draft && this.calls === 'auto' ? draftShortfall(draft, input, context, temporal_references) : [];
    if (draft && leftOut === undefined)
      return {
        plan: {
          ...draft,
          assumptions: [...draft.assumptions, "the rules' draft holds every value of the goal: no LLM plan call"],
        },
        llm_calls: [],
      };
    const verdict = draft !== undefined && this.calls === 'always';
    const asked = askForJson(this.client, {
      messages: [
        { role: 'system', content: systemPrompt(catalog) },
        {
          role: 'user',
          content: plannerUserPrompt({
            request,
            requirements,
            temporal_references,
            refinement,
            workspace,
            ...(draft ? { draft: { plan: draft, verdict, left_out: leftOut ?? [] } } : {}),
          }),
        },
      ],
      temperature,
      maxTokens: PLAN_REPLY_MAX_TOKENS,
      schema: (verdict ? draftReviewReplySchema : planReplySchema)(tools, request.constraints.max_steps),
      ...(llm ? { settings: llm } : {}),
      parse: (text) => {
        const revision = verdict ? revisionOf(text) : text;
        const revised =
          revision === 'keep' ? undefined : parsePlanReply(revision, planStamp, catalog, draft ?? refinement?.previous);
        const standing =
          revised && draft
            ? draftStands(draft, revised, leftOut ?? [], input, context, temporal_references)
            : undefined;
        const replied =
          revised && !standing
            ? revised
            : {
                ...draft!,
                metadata: { ...draft!.metadata, ...planStamp.metadata },
                assumptions: [
                  ...draft!.assumptions,
                  standing ?? "the model checked the ranking planner's draft and kept it",
                ],
              };
        const parsed = groundedPlan(withActionsAccounted(replied, request, catalog), grounding, catalog);
        const toolsLeftOut = namedToolsLeftOut(parsed, request, tools);
        const issues = [
          ...validatePlan(parsed, context),
          ...(toolsLeftOut.length > 0 ? [toolsLeftOutIssue(toolsLeftOut)] : []),
        ];
        if (issues.length > 0) throw new PlanValidationError(issues);
        return parsed;
      },
    });
    try {
      const { value: plan, llm_calls, transcript } = await asked;
      return { plan, llm_calls, transcript };
    } catch (err) {
      // The model's attempts ran out where the rules had a plan (a draft, or IMPOSSIBLE naming what is missing): the
      // rules' plan stands, saying so, the calls charged, the refused conversation kept for the audit.
      if (!(rulesPlan && err instanceof PlanningExhaustedError) || validatePlan(rulesPlan, context).length > 0)
        throw err;
      const llm_calls = (err.details?.llm_calls ?? []) as LlmCallUsage[];
      const transcript = refusedConversation(err);
      return {
        ...(transcript ? { transcript } : {}),
        plan: {
          ...rulesPlan,
          assumptions: [
            ...rulesPlan.assumptions,
            `the model's replies did not validate (${err.message.replace(/\s+/g, ' ').slice(0, 300)}): the ranking planner's plan stands`,
          ],
        },
        llm_calls,
      };
    }
  }
}
