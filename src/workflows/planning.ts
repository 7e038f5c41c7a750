/**
 * planningWorkflow: carries a goal through the guarded stage machine
 *   CREATED → ANALYZING → (AWAITING_CLARIFICATION) → PLANNING → CRITIQUING → (AWAITING_APPROVAL) → APPROVED →
 *   ROUTED → EXECUTING → COMPLETED, plus FAILED, CANCELLED and BUDGET_EXHAUSTED.
 * Every LLM call, critique, gatekeeper decision and step is an activity; budgets, plan versions and step results
 * are workflow state, so a crashed worker or a restarted server loses nothing and pays for nothing twice.
 * Orchestration only: pure checks come from src/domain, all I/O happens in activities.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  allHandlersFinished,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  patched,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { PlannerActivities } from '../activities';
import { addUsage, canAfford, charge, createBudget, remaining, withinLimits, type Usage } from '../domain/budget';
import { createPlanVersion } from '../domain/diff';
import { readySteps } from '../domain/dag';
import { uuidv7 } from '../domain/ids';
import {
  ApproveSchema,
  ClarificationAnswerSchema,
  MESSAGE_NAMES,
  RaiseBudgetSchema,
  RejectSchema,
  parseMessage,
  type ClarificationAnswer,
} from '../domain/messages';
import { formatZodIssues } from '../domain/errors';
import { DEFAULT_PLANNING_OPTIONS, PlanningOptionsSchema } from '../domain/options';
import { flattenSteps } from '../domain/plan';
import { parsePlanningRequest, type PlanningRequestInput } from '../domain/request';
import { routeSteps } from '../domain/routing';
import {
  PlanCostSpentKey,
  PlanGoalKeywordsKey,
  PlanStageKey,
  PlanTokensSpentKey,
  PlanVersionKey,
} from '../domain/search-attributes';
import { isTerminal, transition, type Stage } from '../domain/stages';
import type { StepExecutionInput, StepResult } from '../domain/step-execution';
import type { LlmCallUsage } from '../planners/types';
import { contentTokens, tokenize } from '../domain/words';
import {
  outcomeOf,
  stepKey,
  type AuditEntry,
  type PlanningOptions,
  type PlanningOutcome,
  type PlanningState,
} from './planning-state';

export type { PlanningOutcome, PlanningState } from './planning-state';

/** Request fields the workflow can fill itself: trace id, catalog, budget and the planning clock. */
export type PlanningRequestArg = Omit<PlanningRequestInput, 'trace_id' | 'tool_catalog' | 'budget' | 'now'> &
  Partial<Pick<PlanningRequestInput, 'trace_id' | 'tool_catalog' | 'budget' | 'now'>>;

export interface PlanningWorkflowInput {
  request: PlanningRequestArg;
  options?: Partial<PlanningOptions>;
  /** State carried across continue-as-new; never set by clients. */
  resume?: PlanningState;
}

export const DEFAULT_BUDGET = { cost_usd: 1, tokens: 200_000, calls: 100, policy: 'block' } as const;


/** What one LLM call is expected to use before it is made (tokens; cost is charged as reported). */
const LLM_CALL_ESTIMATE: Usage = { calls: 1, tokens: 2_000, cost_usd: 0 };

export const getStateQuery = defineQuery<PlanningState>(MESSAGE_NAMES.getState);
export const answerClarificationUpdate = defineUpdate<string, [ClarificationAnswer]>(MESSAGE_NAMES.answerClarification);
export const answerClarificationSignal = defineSignal<[ClarificationAnswer]>(MESSAGE_NAMES.answerClarification);
export const approveUpdate = defineUpdate<string, [{ comment?: string }]>(MESSAGE_NAMES.approve);
export const rejectUpdate = defineUpdate<string, [{ reason: string }]>(MESSAGE_NAMES.reject);
export const raiseBudgetUpdate = defineUpdate<PlanningState['budget'], [{ cost_usd?: number; tokens?: number; calls?: number }]>(
  MESSAGE_NAMES.raiseBudget,
);

const PLANNING_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  // Planning activities heartbeat every 2 s, so a dead worker is noticed within this, not after 3 minutes.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
};

/** Deterministic planning work takes milliseconds: as local activities it needs no round trip through the server. */
const LOCAL_PLANNING_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: PLANNING_ACTIVITY_OPTIONS.retry,
};

function planning(summary: string, local = false): PlannerActivities {
  return local
    ? proxyLocalActivities<PlannerActivities>({ ...LOCAL_PLANNING_OPTIONS, summary })
    : proxyActivities<PlannerActivities>({ ...PLANNING_ACTIVITY_OPTIONS, summary });
}

/**
 * Runs started before this patch call every planning activity through the task queue and publish the search
 * attributes after every charge; newer runs use local activities for work that calls no LLM and publish once per
 * stage. Replay of the older histories (test/histories) takes the old path.
 */
const LEAN_PLANNING_PATCH = 'local-planning-activities-and-per-stage-visibility';

type ExecuteStep = { executeStep(input: StepExecutionInput): Promise<StepResult> };

function nowIso(): string {
  return new Date().toISOString();
}

/** Deterministic in workflow code: the workflow's Math.random is seeded and replayed. */
function randomBytes(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(Math.random() * 256));
}

function failureMessage(err: unknown): { code: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as { code?: string } | undefined;
    return { code: details?.code ?? cause.type ?? 'ERROR', message: cause.message };
  }
  return { code: 'ERROR', message: err instanceof Error ? err.message : String(err) };
}

/** LLM calls a failed planning activity made, from its failure details, so they are charged too. */
function llmCallsOf(err: unknown): LlmCallUsage[] {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const details = cause instanceof ApplicationFailure ? (cause.details?.[0] as { details?: { llm_calls?: unknown } } | undefined) : undefined;
  const calls = details?.details?.llm_calls;
  return Array.isArray(calls) ? (calls as LlmCallUsage[]) : [];
}

function llmUsage(calls: readonly LlmCallUsage[]): Usage {
  return calls.reduce<Usage>(
    (sum, c) => addUsage(sum, { calls: 1, tokens: c.prompt_tokens + c.completion_tokens, cost_usd: c.cost_usd }),
    { calls: 0, tokens: 0, cost_usd: 0 },
  );
}

function initialState(input: PlanningWorkflowInput): PlanningState {
  const info = workflowInfo();
  let request;
  try {
    request = parsePlanningRequest({
      trace_id: info.workflowId,
      tool_catalog: 'waste',
      budget: DEFAULT_BUDGET,
      now: nowIso(),
      ...input.request,
    });
  } catch (err) {
    throw ApplicationFailure.create({ type: 'InvalidInputError', message: (err as Error).message, nonRetryable: true });
  }
  const options = PlanningOptionsSchema.partial().safeParse(input.options ?? {});
  if (!options.success) {
    throw ApplicationFailure.create({
      type: 'InvalidInputError',
      message: `PLAN-006 invalid planning options: ${formatZodIssues(options.error).join('; ')}`,
      nonRetryable: true,
    });
  }
  return {
    workflow_id: info.workflowId,
    stage: 'CREATED',
    stage_before_budget: null,
    request,
    options: { ...DEFAULT_PLANNING_OPTIONS, ...options.data },
    analyzer_kind: null,
    requirements: null,
    question: null,
    answer: null,
    clarifications: [],
    plan_id: null,
    plan: null,
    versions: [],
    next_version_reason: { reason: 'initial', feedback: [] },
    critiques: [],
    decision: null,
    approval: null,
    routes: {},
    route_turns: {},
    routing: [],
    steps: [],
    completed_steps: {},
    budget: createBudget(request.budget),
    budget_needed: null,
    warnings: [],
    refinements: 0,
    replans: 0,
    audit: [],
    failure: null,
    continued_as_new: 0,
  };
}

export async function planningWorkflow(input: PlanningWorkflowInput): Promise<PlanningOutcome> {
  const state: PlanningState = input.resume ?? initialState(input);
  const lean = patched(LEAN_PLANNING_PATCH);
  const audit = (kind: AuditEntry['kind'], message: string, ref?: string) =>
    state.audit.push({ at: nowIso(), kind, message, ...(ref ? { ref } : {}) });

  const publish = () =>
    state.options.search_attributes &&
    upsertSearchAttributes([
      { key: PlanStageKey, value: state.stage },
      { key: PlanVersionKey, value: state.plan?.version ?? 0 },
      { key: PlanCostSpentKey, value: state.budget.spent.cost_usd },
      { key: PlanTokensSpentKey, value: state.budget.spent.tokens },
    ]);

  /** The one way stages change: checked by the domain's transition table, audited and published. */
  const enter = (to: Stage, why: string) => {
    let next: Stage;
    try {
      next = transition(state.stage, to, state.stage_before_budget ?? undefined);
    } catch (err) {
      // A move the table forbids is a bug in this workflow: fail the run loudly rather than continue wrongly.
      throw ApplicationFailure.create({ type: 'InvalidTransitionError', message: (err as Error).message, nonRetryable: true });
    }
    if (state.stage === 'BUDGET_EXHAUSTED') state.stage_before_budget = null;
    audit('stage', `${state.stage} → ${next}: ${why}`);
    state.stage = next;
    publish();
  };
  const fail = (why: string) => {
    state.failure = why;
    enter('FAILED', why);
  };

  const chargeUsage = (usage: Usage, what: string) => {
    if (usage.calls === 0 && usage.tokens === 0 && usage.cost_usd === 0) return;
    state.budget = charge(state.budget, usage);
    audit('budget', `${what}: ${usage.calls} call(s), ${usage.tokens} tokens, $${usage.cost_usd.toFixed(6)}`);
    if (!withinLimits(state.budget) && state.budget.policy === 'warn') {
      state.warnings.push(`budget exceeded after ${what} (policy warn: continuing)`);
    }
    if (!lean) publish();
  };

  /** Under `block`, a call that cannot fit pauses the run in BUDGET_EXHAUSTED; returns false if it paused. */
  const affordable = (estimate: Usage, what: string): boolean => {
    if (canAfford(state.budget, estimate)) return true;
    if (state.budget.policy === 'warn') {
      state.warnings.push(`${what} does not fit the budget (policy warn: continuing)`);
      return true;
    }
    const left = remaining(state.budget);
    state.stage_before_budget = state.stage;
    state.budget_needed = estimate;
    enter('BUDGET_EXHAUSTED', `${what} needs ${estimate.calls} call(s), ${estimate.tokens} tokens, $${estimate.cost_usd}; left: ${left.calls} call(s), ${left.tokens} tokens, $${left.cost_usd.toFixed(6)}`);
    return false;
  };
  const mayCallLlm = () => state.analyzer_kind !== 'rules' && state.request.planner !== 'ranking';
  /** Local when the work is deterministic (no LLM), on the patched path. */
  const local = (deterministic = !mayCallLlm()) => lean && deterministic;

  // ---- messages ----------------------------------------------------------------------------------------------
  setHandler(getStateQuery, () => state);

  const validateAnswer = (payload: unknown): ClarificationAnswer => {
    if (state.stage !== 'AWAITING_CLARIFICATION' || !state.question) {
      throw ApplicationFailure.create({ type: 'InvalidInputError', message: `no question is pending (stage ${state.stage})`, nonRetryable: true });
    }
    const answer = parseMessage(ClarificationAnswerSchema, payload, MESSAGE_NAMES.answerClarification, '{"option": 1} or {"text": "…"}');
    if ('option' in answer && answer.option > state.question.options.length) {
      throw ApplicationFailure.create({
        type: 'InvalidInputError',
        message: `option ${answer.option} does not exist; choose 1–${state.question.options.length}: ${state.question.options.map((o, i) => `${i + 1}. ${o}`).join(' ')}`,
        nonRetryable: true,
      });
    }
    return answer;
  };
  const acceptAnswer = (answer: ClarificationAnswer): string => {
    const text = 'option' in answer ? state.question!.options[answer.option - 1]! : answer.text;
    state.answer = { text, by: 'user' };
    audit('message', `clarification answered: ${text}`);
    return text;
  };
  setHandler(answerClarificationUpdate, (answer) => acceptAnswer(validateAnswer(answer)), {
    validator: (answer) => void validateAnswer(answer),
  });
  setHandler(answerClarificationSignal, (answer) => {
    try {
      acceptAnswer(validateAnswer(answer));
    } catch (err) {
      audit('message', `ignored answerClarification signal: ${(err as Error).message}`);
    }
  });

  const requireApprovalStage = () => {
    if (state.stage !== 'AWAITING_APPROVAL') {
      throw ApplicationFailure.create({ type: 'InvalidInputError', message: `nothing awaits approval (stage ${state.stage})`, nonRetryable: true });
    }
  };
  setHandler(
    approveUpdate,
    (payload) => {
      const { comment } = parseMessage(ApproveSchema, payload, MESSAGE_NAMES.approve, '{}');
      state.approval = { status: 'approved', reason: comment };
      audit('approval', `approved${comment ? `: ${comment}` : ''}`);
      return `plan v${state.plan?.version} approved`;
    },
    { validator: (payload) => (requireApprovalStage(), void parseMessage(ApproveSchema, payload, MESSAGE_NAMES.approve, '{}')) },
  );
  setHandler(
    rejectUpdate,
    (payload) => {
      const { reason } = parseMessage(RejectSchema, payload, MESSAGE_NAMES.reject, '{"reason": "…"}');
      state.approval = { status: 'rejected', reason };
      audit('approval', `rejected: ${reason}`);
      return `plan v${state.plan?.version} rejected; refining`;
    },
    { validator: (payload) => (requireApprovalStage(), void parseMessage(RejectSchema, payload, MESSAGE_NAMES.reject, '{"reason": "…"}')) },
  );
  setHandler(
    raiseBudgetUpdate,
    (payload) => {
      const raise = parseMessage(RaiseBudgetSchema, payload, MESSAGE_NAMES.raiseBudget, '{"calls": 10}');
      state.budget = { ...state.budget, limit: addUsage(state.budget.limit, raise) };
      audit('budget', `limits raised by ${raise.calls} call(s), ${raise.tokens} tokens, $${raise.cost_usd}`);
      publish();
      return state.budget;
    },
    {
      validator: (payload) => {
        if (isTerminal(state.stage)) {
          throw ApplicationFailure.create({ type: 'InvalidInputError', message: `the run is ${state.stage}`, nonRetryable: true });
        }
        parseMessage(RaiseBudgetSchema, payload, MESSAGE_NAMES.raiseBudget, '{"calls": 10}');
      },
    },
  );

  // ---- phases: each runs one stage and moves to the next ------------------------------------------------------
  async function analyze() {
    if (mayCallLlm() && !affordable(LLM_CALL_ESTIMATE, 'requirements analysis')) return;
    let analysis;
    try {
      analysis = await planning(`analyze: ${state.request.goal.slice(0, 80)}`, local()).analyzeRequirements({ request: state.request });
    } catch (err) {
      if (isCancellation(err)) throw err;
      chargeUsage(llmUsage(llmCallsOf(err)), 'failed requirements analysis');
      return fail(`requirements analysis failed: ${failureMessage(err).message}`);
    }
    const { requirements, llm_calls, transcript_ref } = analysis;
    state.analyzer_kind = llm_calls.length > 0 ? 'llm' : state.analyzer_kind ?? (state.request.planner === 'llm' ? 'llm' : 'rules');
    chargeUsage(llmUsage(llm_calls), 'requirements analysis');
    state.requirements = requirements;
    audit('analysis', `intent ${requirements.intent.type} (${requirements.intent.confidence}); ${requirements.steps.length} requirement step(s); clear: ${requirements.is_clear}`, transcript_ref);
    if (requirements.is_clear) return enter('PLANNING', 'requirements are clear');
    if (state.clarifications.length >= state.options.max_clarifications) {
      return fail(`the goal is still unclear after ${state.clarifications.length} clarification(s)`);
    }
    const c = requirements.clarification!;
    state.question = { text: c.question, options: c.options, default_option: c.default_option + 1, asked_at: nowIso() };
    enter('AWAITING_CLARIFICATION', c.question);
  }

  async function awaitClarification() {
    const question = state.question!;
    const answered = await condition(() => state.answer !== null, state.options.clarification_timeout_ms);
    const answer = answered ? state.answer! : { text: question.options[question.default_option - 1]!, by: 'timeout' as const };
    state.clarifications.push({ question: question.text, answer: answer.text, by: answer.by });
    state.request = {
      ...state.request,
      context: [...state.request.context, { role: 'assistant', content: question.text }, { role: 'user', content: answer.text }],
    };
    audit('clarification', `${question.text} → ${answer.text}${answer.by === 'timeout' ? ' (default, no answer in time)' : ''}`);
    state.question = null;
    state.answer = null;
    enter('ANALYZING', 'the answer joins the context');
  }

  async function plan() {
    if (mayCallLlm() && !affordable(LLM_CALL_ESTIMATE, 'plan generation')) return;
    const { reason, feedback } = state.next_version_reason;
    const parent = state.versions.at(-1) ?? null;
    state.plan_id ??= uuidv7(Date.now(), randomBytes(10));
    let generated;
    try {
      generated = await planning(`plan v${(parent?.version ?? 0) + 1} (${reason})`, local()).generatePlan({
        request: state.request,
        requirements: state.requirements!,
        stamp: { id: state.plan_id, version: (parent?.version ?? 0) + 1, created_at: nowIso() },
        refinement: parent ? { previous: parent.plan, feedback } : undefined,
      });
    } catch (err) {
      if (isCancellation(err)) throw err;
      chargeUsage(llmUsage(llmCallsOf(err)), 'failed plan generation');
      return fail(`planning failed: ${failureMessage(err).message}`);
    }
    chargeUsage(llmUsage(generated.llm_calls), `plan v${generated.plan.version}`);
    const version = createPlanVersion(generated.plan, parent, reason);
    state.versions.push({
      ...version,
      explanation: feedback.join('\n') || 'first plan for the goal',
      created_at: nowIso(),
      ...(generated.transcript_ref ? { transcript_ref: generated.transcript_ref } : {}),
    });
    state.plan = generated.plan;
    audit('plan', `v${version.version} (${reason}): ${generated.plan.status}, ${flattenSteps(generated.plan).length} step(s)${version.diff ? `; ${version.diff.summary}` : ''}`, generated.transcript_ref);
    if (generated.plan.status === 'IMPOSSIBLE') {
      return fail(`IMPOSSIBLE: missing ${generated.plan.missing_capabilities.join('; ')}`);
    }
    if (generated.plan.status === 'PARTIAL') {
      state.warnings.push(`plan v${version.version} is PARTIAL: missing ${generated.plan.missing_capabilities.join('; ')}`);
    }
    const tools = [...new Set(flattenSteps(generated.plan).flatMap((s) => (s.tool ? [s.tool] : [])))];
    const routes = await planning('look up tool pools', local(true)).lookupTools({ tool_catalog: state.request.tool_catalog, tools });
    state.routes = { ...state.routes, ...routes };
    enter('CRITIQUING', `plan v${version.version} ready for review`);
  }

  async function critique() {
    let critiqued;
    try {
      critiqued = await planning(`critique plan v${state.plan!.version}`, local()).critiquePlan({ plan: state.plan!, request: state.request, budget: state.budget });
    } catch (err) {
      if (isCancellation(err)) throw err;
      chargeUsage(llmUsage(llmCallsOf(err)), 'failed critique');
      return fail(`critique failed: ${failureMessage(err).message}`);
    }
    chargeUsage(llmUsage(critiqued.llm_calls), 'critique');
    state.critiques = critiqued.critiques;
    audit('critique', `${critiqued.critiques.length} critique(s): ${critiqued.critiques.map((c) => `[${c.severity}] ${c.critic}: ${c.message}`).join('; ') || 'none'}`, critiqued.transcript_ref);
    const decision = await planning(`gatekeeper for plan v${state.plan!.version}`, local(true)).gatekeeper({
      critiques: critiqued.critiques,
      strict: state.options.strict_critique,
      max_refinements: state.options.max_refinements,
      refinements_done: state.refinements,
    });
    state.decision = decision;
    audit('gatekeeper', `${decision.decision}: ${decision.reason}`);
    if (decision.decision === 'refine') {
      state.refinements += 1;
      state.next_version_reason = {
        reason: 'refinement',
        feedback: decision.blocking.map((c) => `${c.critic}${c.step_id ? ` (step ${c.step_id})` : ''}: ${c.message}. ${c.suggestion}`),
      };
      return enter('PLANNING', decision.reason);
    }
    if (decision.decision === 'reject') return fail(`gatekeeper rejected plan v${state.plan!.version}: ${decision.reason}`);
    if (state.options.require_approval) {
      state.approval = { status: 'pending' };
      return enter('AWAITING_APPROVAL', 'a person must approve the plan');
    }
    enter('APPROVED', 'approved by the gatekeeper');
  }

  async function awaitApproval() {
    const decided = await condition(() => state.approval?.status !== 'pending', state.options.approval_timeout_ms);
    if (!decided) return fail(`no approval within ${state.options.approval_timeout_ms} ms`);
    if (state.approval!.status === 'approved') return enter('APPROVED', 'approved by a person');
    state.next_version_reason = { reason: 'human_rejection', feedback: [`rejected by a person: ${state.approval!.reason}`] };
    enter('PLANNING', `rejected: ${state.approval!.reason}`);
  }

  function route() {
    const steps = flattenSteps(state.plan!);
    const { decisions, turns } = routeSteps(steps, state.routes, workflowInfo().taskQueue, state.route_turns);
    state.route_turns = turns;
    state.routing.push(...decisions.map((d) => ({ ...d, version: state.plan!.version })));
    for (const d of decisions) audit('routing', `step ${d.step_id} → ${d.queue}: ${d.reason}`);
    state.steps = steps.map((step, index) => {
      const done = state.completed_steps[stepKey(step)];
      return {
        index,
        id: step.id,
        title: step.title,
        tool: step.tool,
        queue: decisions[index]!.queue,
        ...(done ? { status: 'COMPLETED' as const, result: done.result, completed_in_version: done.version } : { status: 'PENDING' as const }),
      };
    });
    enter('ROUTED', `${steps.length} step(s) routed`);
  }

  const stepEstimate = (tool: string | null): Usage => {
    const r = tool ? state.routes[tool] : undefined;
    return { calls: 1, tokens: r?.tokens_per_call ?? 0, cost_usd: r?.cost_per_call_usd ?? 0 };
  };

  async function execute() {
    const plan = state.plan!;
    const steps = flattenSteps(plan);
    const pendingUsage = state.steps.filter((s) => s.status !== 'COMPLETED').reduce((sum, s) => addUsage(sum, stepEstimate(s.tool)), { calls: 0, tokens: 0, cost_usd: 0 });
    if (!affordable(pendingUsage, `plan v${plan.version}'s remaining ${state.steps.filter((s) => s.status !== 'COMPLETED').length} step(s)`)) return;

    const running = new Map<number, Promise<void>>();
    let stopReason: 'failed' | 'budget' | null = null;

    const runStep = async (index: number) => {
      const step = steps[index]!;
      const record = state.steps[index]!;
      record.status = 'RUNNING';
      const inputs = Object.fromEntries(step.depends_on.map((d) => [String(d), { ref: state.steps[d]!.result!.ref, data: state.steps[d]!.result!.data }]));
      // Side-effecting tools may retry too: the worker's idempotency ledger keys their effects.
      const retry = { maximumAttempts: state.routes[step.tool ?? '']?.idempotent === false ? 5 : 3, initialInterval: 1_000 };
      const { executeStep } = proxyActivities<ExecuteStep>({
        taskQueue: record.queue,
        startToCloseTimeout: state.options.step_start_to_close_ms,
        heartbeatTimeout: state.options.step_heartbeat_ms,
        retry,
        summary: `step ${step.id}: ${step.tool ?? step.action} — ${step.title}`.slice(0, 200),
      });
      try {
        const result = await executeStep({
          workflow_id: state.workflow_id,
          plan_id: plan.id,
          plan_version: plan.version,
          step_index: index,
          step_id: step.id,
          tool: step.tool ?? '',
          tool_catalog: state.request.tool_catalog,
          params: step.params,
          inputs,
          idempotency_scope: `${state.workflow_id}:${step.id}`,
          workspace_root: state.request.constraints.workspace_root,
        });
        record.status = 'COMPLETED';
        record.result = result;
        record.completed_in_version = plan.version;
        state.completed_steps[stepKey(step)] = { version: plan.version, result };
        chargeUsage(result.usage, `step ${step.id}`);
        audit('step', `step ${step.id} (${step.tool}) completed: ${result.items ?? '-'} item(s)${result.replayed ? ' (replayed)' : ''}`, result.ref);
      } catch (err) {
        if (isCancellation(err)) {
          record.status = 'CANCELLED';
          throw err;
        }
        record.status = 'FAILED';
        record.error = failureMessage(err);
        stopReason = 'failed';
        audit('step', `step ${step.id} (${step.tool}) failed: ${record.error.code} ${record.error.message}`);
      }
    };

    for (;;) {
      if (stopReason === null) {
        const with_ = (status: string) => new Set(state.steps.filter((s) => s.status === status).map((s) => s.index));
        // FAILED and CANCELLED steps count as running here: nothing new starts beside them, none restarts.
        const busy = new Set([...with_('RUNNING'), ...with_('FAILED'), ...with_('CANCELLED')]);
        for (const index of readySteps(steps, with_('COMPLETED'), busy)) {
          if (!canAfford(state.budget, stepEstimate(steps[index]!.tool)) && state.budget.policy === 'block') {
            stopReason = 'budget';
            break;
          }
          running.set(index, runStep(index).finally(() => running.delete(index)));
        }
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
    }

    const failed = state.steps.filter((s) => s.status === 'FAILED');
    if (failed.length > 0) {
      const reasons = failed.map((s) => `step ${s.id} (${s.tool}) failed: ${s.error!.message}`);
      if (state.replans >= state.options.max_replans) {
        return fail(`${reasons.join('; ')} — no re-plans left (${state.replans} of ${state.options.max_replans} used)`);
      }
      state.replans += 1;
      state.next_version_reason = { reason: 'replan_after_failure', feedback: reasons };
      return enter('PLANNING', `re-plan ${state.replans} of ${state.options.max_replans} after a step failure`);
    }
    if (stopReason === 'budget') {
      const next = state.steps.find((s) => s.status === 'PENDING')!;
      affordable(stepEstimate(next.tool), `step ${next.id}`);
      return;
    }
    enter('COMPLETED', `all ${steps.length} step(s) completed`);
  }

  async function awaitBudget() {
    const resumed = await condition(() => canAfford(state.budget, state.budget_needed!), state.options.budget_timeout_ms);
    if (!resumed) return fail(`budget exhausted and not raised within ${state.options.budget_timeout_ms} ms`);
    state.budget_needed = null;
    enter(state.stage_before_budget!, 'budget raised');
  }

  // ---- the run ---------------------------------------------------------------------------------------------------
  if (!input.resume) {
    upsertMemo({ goal: state.request.goal });
    const keywords = [...new Set(contentTokens(tokenize(state.request.goal)).map((t) => t.lower))].slice(0, 10);
    if (state.options.search_attributes) upsertSearchAttributes([{ key: PlanGoalKeywordsKey, value: keywords }]);
    if (!lean) publish(); // on the lean path entering ANALYZING publishes
    enter('ANALYZING', 'run started');
  }

  try {
    while (!isTerminal(state.stage)) {
      const info = workflowInfo();
      if (info.continueAsNewSuggested || info.historyLength > state.options.continue_as_new_after_events) {
        await condition(allHandlersFinished);
        state.continued_as_new += 1;
        audit('stage', `continued as new after ${info.historyLength} history events`);
        return await continueAsNew<typeof planningWorkflow>({ request: input.request, options: state.options, resume: state });
      }
      switch (state.stage) {
        case 'ANALYZING': await analyze(); break;
        case 'AWAITING_CLARIFICATION': await awaitClarification(); break;
        case 'PLANNING': await plan(); break;
        case 'CRITIQUING': await critique(); break;
        case 'AWAITING_APPROVAL': await awaitApproval(); break;
        case 'APPROVED': route(); break;
        case 'ROUTED': enter('EXECUTING', 'executing the step DAG'); break;
        case 'EXECUTING': await execute(); break;
        case 'BUDGET_EXHAUSTED': await awaitBudget(); break;
        default: throw ApplicationFailure.create({ type: 'InvalidTransitionError', message: `no phase for stage ${state.stage}`, nonRetryable: true });
      }
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await CancellationScope.nonCancellable(async () => {
      for (const s of state.steps) if (s.status === 'RUNNING' || s.status === 'PENDING') s.status = 'CANCELLED';
      state.failure = 'cancelled';
      enter('CANCELLED', 'cancelled through Temporal');
    });
    throw err;
  }

  await condition(allHandlersFinished);
  if (state.stage === 'FAILED') {
    throw ApplicationFailure.create({ type: 'PlanFailed', message: state.failure ?? 'plan failed', nonRetryable: true, details: [outcomeOf(state)] });
  }
  return outcomeOf(state);
}
