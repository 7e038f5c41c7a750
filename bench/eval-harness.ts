/**
 * The eval's moving parts, shared by `npm run eval` (bench/eval.ts, real Temporal dev server + whatever LLM is
 * configured) and the CI smoke test (test/temporal/eval-smoke.test.ts, scripted LLM server): the golden set's
 * format, one goal carried through a whole planning run, the judgement of its outcome, the totals and the table.
 *
 * Figures come from the run itself: its final state (stage, plan, missing capabilities, budget, each completed
 * step's result, read back from the content store) and its event history (every planning activity's duration and
 * the LLM calls its result or failure reports). The answer a run returns is graded against its goal's gold calls,
 * executed beforehand (bench/eval-gold.ts, bench/eval-scoring.ts). Every run plans on the same pinned day.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { answerClarificationUpdate, getStateQuery, type PlanningState } from '../src/api';
import { readFailure, type PlanFailure } from '../src/api/failures';
import type { CostFigures } from '../src/domain/cost-forecast';
import { flattenSteps, type PlanStatus } from '../src/domain/plan';
import { LlmCallUsageSchema, type LlmCallUsage } from '../src/domain/llm-calls';
import { planningWorkflow } from '../src/workflows';
import { projectRoot } from '../src/project-root';
import type { GoldData } from './eval-gold';
import {
  constraintCoverage,
  goldShape,
  gradeAnswer,
  GoldSchema,
  multisetF1,
  planShape,
  planValid,
  unverifiedIdLiterals,
  type RunStepData,
} from './eval-scoring';
import { round } from './figures';

/** The eval's pinned day: the waste data is generated for it, and every run plans as of its noon (UTC). */
export const EVAL_DAY = '2026-06-10';
export const EVAL_NOW = `${EVAL_DAY}T12:00:00Z`;
/** The folders the eval's goals read: `notes` (the files catalog) and the workspace goals' folders. */
export const EVAL_FIXTURES = path.join(projectRoot(), 'bench/eval-fixtures');
/** The folder the `files` catalog's MCP server serves: "${ROOT}" in its goals' gold params. */
export const EVAL_NOTES = path.join(EVAL_FIXTURES, 'notes');

export const GoalKindSchema = z.enum(['feasible', 'partial', 'impossible', 'vague']);
export type GoalKind = z.output<typeof GoalKindSchema>;

export const GoldenGoalSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    kind: GoalKindSchema,
    goal: z.string().min(1).max(1000),
    catalog: z.string().default('waste'),
    smoke: z.boolean().default(false),
    /** The tools a good plan uses (reported as `tools_ok`, not part of the verdict). */
    expected_tools: z.array(z.string()).default([]),
    /** The number of steps a good plan has (informative). */
    steps: z.number().int().min(1).max(4).optional(),
    /** Each group: one of its words (lower case, a prefix is enough) must appear in the plan's missing capabilities. */
    expected_missing: z.array(z.array(z.string().min(1)).min(1)).default([]),
    /** How the harness answers a clarification question. */
    answer: z
      .union([z.object({ option: z.number().int().min(1) }).strict(), z.object({ text: z.string().min(1) }).strict()])
      .optional(),
    /** A workspace goal's folder, relative to the project root: the run's constraints.workspace_root. */
    workspace: z
      .string()
      .max(300)
      .regex(/^(?!\/)(?!(.*\/)?\.\.(\/|$)).+$/, 'must be a folder relative to the project root, without ..')
      .optional(),
    /** The gold plan and answer (bench/eval-scoring.ts); without it the answer is not graded (impossible goals need none). */
    gold: GoldSchema.optional(),
    /** Values the plan's params must carry somewhere (constraint coverage). */
    constraints: z.array(z.string().min(1).max(200)).max(30).default([]),
    /** Kept out of tuning: reported apart in totals.held_out. */
    held_out: z.boolean().default(false),
  })
  .strict()
  .refine((g) => (g.kind === 'partial' || g.kind === 'impossible') === g.expected_missing.length > 0, {
    message: 'partial and impossible goals (only they) name expected_missing',
  })
  .refine((g) => (g.kind === 'vague') === (g.answer !== undefined), {
    message: 'vague goals (only they) give an answer',
  });
export type GoldenGoal = z.output<typeof GoldenGoalSchema>;

export const GoldenSetSchema = z
  .object({ about: z.string(), goals: z.array(GoldenGoalSchema).min(1).max(200) })
  .strict();

/** The goals of one or more golden-set files, in order; a goal id may appear once across them all. */
export function loadGoldenSet(...files: string[]): GoldenGoal[] {
  const goals = files.flatMap((file) => GoldenSetSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).goals);
  const ids = goals.map((g) => g.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new Error(`golden set ${files.join(', ')}: goal id "${duplicate}" appears twice`);
  return goals;
}

/** A workspace goal's root (absolute), as its run and its gold calls use it. */
export function workspaceRootOf(goal: Pick<GoldenGoal, 'workspace'>): string | undefined {
  return goal.workspace === undefined ? undefined : path.join(projectRoot(), goal.workspace);
}

/** One planning activity as the run's history shows it. */
export interface ActivityRecord {
  activity: string;
  seconds: number;
  llm_calls: number;
  tokens: number;
  completion_tokens: number;
  /** Prompt tokens sent, and how many of them the provider's prompt cache served (its reported cached tokens). */
  prompt_tokens: number;
  cached_tokens: number;
  ok: boolean;
  /** Where a completed activity's LLM conversation is stored (read for `rejections`). */
  transcript_ref?: string;
  /** A failed activity's error lines, one list per rejected reply. */
  attempt_errors?: string[][];
}

export interface GoalResult {
  id: string;
  kind: GoalKind;
  goal: string;
  catalog: string;
  held_out: boolean;
  /** The headline: the run returned the gold answer (see bench/eval-scoring.ts gradeAnswer); null when the goal has no gold. */
  answer_right: boolean | null;
  /** Why the answer is or is not right, in a few words. */
  answer_outcome: string;
  /** The status verdict: the run ended as the golden set says. */
  expected: boolean;
  /** Why it did or did not, in a few words. */
  outcome: string;
  /** Share of the goal's constraints found in the plan's params; null when it names none. */
  constraint_coverage: number | null;
  /** F1 of the plan's tools (a multiset) against the gold calls'; null without gold. */
  plan_nodes_f1: number | null;
  /** F1 of the plan's "tool → tool" dependencies against the gold edges; null without gold. */
  plan_edges_f1: number | null;
  /** The plan passed validation (see planValid). */
  valid: boolean;
  /** The final plan gives an id param a literal value the user never said. */
  unverified_id_literal: boolean;
  stage: string;
  plan_status: PlanStatus | null;
  plan_versions: number;
  steps: number;
  tools: string[];
  /** Whether the plan uses every expected tool (informative). */
  tools_ok: boolean;
  missing_capabilities: string[];
  asked_question: boolean;
  failure: string | null;
  /** The last critiques the gatekeeper weighed ("[severity] critic step: message"), to see why a plan was refused. */
  critiques: string[];
  /** The final plan's steps as "id tool params", shortened. */
  plan_steps: string[];
  /** Why plan replies were sent back: each refused reply ("reply: …", "last reply: …") and the error lines it got, shortened. */
  rejections: string[];
  llm_calls: number;
  tokens: number;
  seconds: number;
  /** A completed run: whether its steps cost within the p90 of the forecast made before approval (null: no outcome). */
  cost_within_p90: boolean | null;
  /** Where it did not, the dimensions over p90 (calls, tokens, cost_usd, seconds). */
  cost_over_p90: string[];
  /** The completed version's forecast (p50, p90, steps from history and from the estimate) and its actual cost, to see by how much a miss missed. */
  cost_forecast: {
    p50: CostFigures;
    p90: CostFigures;
    actual: CostFigures;
    from_history: number;
    from_estimate: number;
    /** Each completed step: its tool, its milliseconds by the workflow's clock and the attempt that completed it. */
    steps: { tool: string | null; ms: number; attempts: number | null }[];
  } | null;
  /** One entry per generatePlan activity: its duration and the LLM calls it made. */
  plan_generations: { seconds: number; llm_calls: number; completion_tokens: number; ok: boolean }[];
  activities: ActivityRecord[];
  workflow_id: string;
}

/** The quality figures of a set of goals with a verdict (all, held-out, tuning, one catalog). */
export interface QualityTotals {
  /** Goals with a verdict (interrupted ones left out). */
  goals: number;
  /** Goals whose answer is graded (they have gold, or are impossible). */
  answer_graded: number;
  answer_right: number;
  /** The headline: share of the graded goals whose run returned the right answer. */
  share_answer_right: number | null;
  expected: number;
  /** The status verdict's share (the eval's headline before answers were graded). */
  share_expected: number | null;
  mean_constraint_coverage: number | null;
  mean_plan_nodes_f1: number | null;
  mean_plan_edges_f1: number | null;
  share_valid: number | null;
  /** Runs that COMPLETED with a made-up id literal in their plan. */
  runs_completed_with_unverified_id: number;
  /** Goals that are not vague yet made the run ask a question. */
  clear_goals_asked: number;
  /** Completed runs with a cost forecast outcome, and the share whose actual cost fell within the p90 forecast (target ≥ 0.9). */
  runs_with_cost_forecast: number;
  share_cost_within_p90: number | null;
}

export interface EvalTotals extends QualityTotals {
  interrupted: number;
  /** Expected AND using every expected tool. */
  share_expected_with_tools: number;
  plan_generations: number;
  mean_llm_calls_per_plan_generation: number | null;
  mean_tokens_per_run: number;
  mean_completion_tokens_per_plan_generation: number | null;
  p50_planning_latency_s: number | null;
  p90_planning_latency_s: number | null;
  /** Plan generations that called the LLM, and their median seconds (the others kept the rules' draft, no call). */
  llm_plan_generations: number;
  p50_llm_planning_latency_s: number | null;
  /** Analyses that called the LLM, and their median seconds (the others were the rules' alone, no call). */
  llm_analyses: number;
  p50_analysis_latency_s: number | null;
  /** Median seconds of every analysis, the rules' alone included: what a goal waits for its requirements. */
  p50_analysis_latency_all_s: number | null;
  mean_llm_calls_per_goal: number;
  /** Of every prompt token sent, the share the provider's prompt cache served. */
  prefix_cache_hit_rate: number | null;
  p50_seconds_per_goal: number | null;
  mean_seconds_per_goal: number;
  total_seconds: number;
  by_kind: Record<string, { goals: number; expected: number; answer_right: number }>;
  by_catalog: Record<string, QualityTotals>;
  held_out: QualityTotals;
  tuning: QualityTotals;
}

const PLANNING_ACTIVITIES = new Set(['analyzeRequirements', 'generatePlan', 'critiquePlan']);

function payloadValue(payloads: temporal.api.common.v1.IPayloads | null | undefined): unknown {
  const first = payloads?.payloads?.[0];
  return first ? defaultPayloadConverter.fromPayload(first) : undefined;
}

function llmCallsIn(value: unknown): LlmCallUsage[] {
  const calls = (value as { llm_calls?: unknown } | undefined)?.llm_calls;
  const parsed = z.array(LlmCallUsageSchema).safeParse(calls);
  return parsed.success ? parsed.data : [];
}

/** Every planning activity of a history, with its duration (scheduled → closed) and the LLM calls it reports. */
export function planningActivitiesOf(history: temporal.api.history.v1.IHistory): ActivityRecord[] {
  const scheduled = new Map<string, { name: string; at: number }>();
  const records: ActivityRecord[] = [];
  for (const event of history.events ?? []) {
    const at = event.eventTime ? tsToMs(event.eventTime) : 0;
    const s = event.activityTaskScheduledEventAttributes;
    if (s) {
      scheduled.set(String(event.eventId), { name: s.activityType?.name ?? '', at });
      continue;
    }
    const done = event.activityTaskCompletedEventAttributes;
    const failed = event.activityTaskFailedEventAttributes;
    const timedOut = event.activityTaskTimedOutEventAttributes;
    const closed = done ?? failed ?? timedOut;
    if (!closed) continue;
    const start = scheduled.get(String(closed.scheduledEventId));
    if (!start || !PLANNING_ACTIVITIES.has(start.name)) continue;
    let calls: LlmCallUsage[] = [];
    let stored: { transcript_ref?: string; attempt_errors?: string[][] } = {};
    if (done) {
      const value = payloadValue(done.result);
      calls = llmCallsIn(value);
      const ref = (value as { transcript_ref?: unknown } | undefined)?.transcript_ref;
      if (typeof ref === 'string') stored = { transcript_ref: ref };
    }
    if (failed) {
      const details = (
        payloadValue(failed.failure?.applicationFailureInfo?.details) as { details?: unknown } | undefined
      )?.details;
      calls = llmCallsIn(details);
      const failedWith = details as { attempt_errors?: unknown; last_reply?: unknown } | undefined;
      const errors = z.array(z.array(z.string())).safeParse(failedWith?.attempt_errors);
      const lastReply = typeof failedWith?.last_reply === 'string' ? [[`last reply: ${failedWith.last_reply}`]] : [];
      if (errors.success) stored = { attempt_errors: [...errors.data, ...lastReply] };
    }
    records.push({
      activity: start.name,
      seconds: (at - start.at) / 1000,
      llm_calls: calls.length,
      tokens: calls.reduce((sum, c) => sum + c.prompt_tokens + c.completion_tokens, 0),
      completion_tokens: calls.reduce((sum, c) => sum + c.completion_tokens, 0),
      prompt_tokens: calls.reduce((sum, c) => sum + c.prompt_tokens, 0),
      cached_tokens: calls.reduce((sum, c) => sum + c.cached_tokens, 0),
      ok: done !== undefined && done !== null,
      ...stored,
    });
  }
  return records;
}

function mentions(missing: readonly string[], words: readonly string[]): boolean {
  const text = missing.join(' | ').toLowerCase();
  return words.some((w) => text.includes(w.toLowerCase()));
}

/** The verdict on one run's final state against its golden goal. */
export function judge(
  goal: GoldenGoal,
  state: Pick<PlanningState, 'stage' | 'plan'>,
): { expected: boolean; outcome: string } {
  const status = state.plan?.status ?? null;
  const missing = state.plan?.missing_capabilities ?? [];
  const wantStatus: PlanStatus =
    goal.kind === 'partial' ? 'PARTIAL' : goal.kind === 'impossible' ? 'IMPOSSIBLE' : 'FEASIBLE';
  if (status !== wantStatus)
    return { expected: false, outcome: `plan ${status ?? 'none'}, expected ${wantStatus} (${state.stage})` };
  const unnamed = goal.expected_missing.filter((words) => !mentions(missing, words));
  if (unnamed.length > 0)
    return { expected: false, outcome: `missing capabilities do not name ${unnamed.map((w) => w[0]).join(', ')}` };
  const wantStage = goal.kind === 'impossible' ? 'FAILED' : 'COMPLETED';
  if (state.stage !== wantStage) return { expected: false, outcome: `plan ${status} but run ${state.stage}` };
  return {
    expected: true,
    outcome: goal.kind === 'impossible' ? 'IMPOSSIBLE, missing named' : `${status}, ${state.stage}`,
  };
}

export interface RunGoalOptions {
  client: Client;
  taskQueue: string;
  /** A run still going after this long is terminated and counted as not expected. */
  timeoutMs: number;
  /** Options for every run (e.g. search_attributes: false on a server without them). */
  runOptions?: Record<string, unknown>;
  pollMs?: number;
  /** Told the run's handle once it has started (so an interrupted eval can still measure it). */
  onStart?: (handle: WorkflowHandle) => void;
  /**
   * Reads a value of the planner's content store: LLM transcripts (for `rejections`; without it they stay empty) and
   * the results of completed steps too large to be inline in the state (without it such a step has no data).
   */
  readStored?: (ref: string) => Promise<unknown>;
  /** The data of the goals' gold calls (executeGold); a goal with gold but none here is not graded. */
  goldData?: GoldData;
}

/** A plan generation's refused replies and the error lines each got: from its stored conversation, or its failure's details. */
async function refusals(activity: ActivityRecord, readStored: RunGoalOptions['readStored']): Promise<string[]> {
  if (activity.attempt_errors) return activity.attempt_errors.flat();
  if (!activity.transcript_ref || !readStored) return [];
  const transcript = z
    .array(z.object({ role: z.string(), content: z.string() }))
    .safeParse(await readStored(activity.transcript_ref).catch(() => undefined));
  if (!transcript.success) return [];
  // After the request: each refused reply (assistant), then the turn naming its errors (user); a last reply with no
  // turn after it was accepted (a conversation given up on ends with the errors of its last reply, never sent).
  const turns = transcript.data.slice(2);
  if (turns.at(-1)?.role === 'assistant') turns.pop();
  return turns.flatMap((m) =>
    m.role === 'user' ? m.content.split('\n').filter((line) => line.startsWith('[')) : [`reply: ${m.content}`],
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Carries one golden goal through a whole planning run: start, answer its question if it asks, wait, read the figures. */
export async function runGoal(goal: GoldenGoal, options: RunGoalOptions): Promise<GoalResult> {
  const started = Date.now();
  const workflowId = `eval-${goal.id}-${started.toString(36)}`;
  const workspaceRoot = workspaceRootOf(goal);
  const request = {
    goal: goal.goal,
    tool_catalog: goal.catalog,
    now: EVAL_NOW,
    ...(workspaceRoot ? { constraints: { workspace_root: workspaceRoot } } : {}),
  };
  const handle = await options.client.workflow.start(planningWorkflow, {
    args: [{ request, options: { ...options.runOptions } }],
    taskQueue: options.taskQueue,
    workflowId,
  });
  options.onStart?.(handle);
  let askedQuestion = false;
  let settled = false;
  const result = handle.result().then(
    () => null,
    (err: unknown) => (err instanceof WorkflowFailedError ? readFailure(err) : Promise.reject(err)),
  );
  void result.finally(() => (settled = true)).catch(() => undefined);
  let timedOut = false;
  while (!settled) {
    if (Date.now() - started > options.timeoutMs) {
      timedOut = true;
      await handle.terminate(`eval: no outcome after ${options.timeoutMs} ms`).catch(() => undefined);
      break;
    }
    const state = await handle.query(getStateQuery).catch(() => undefined);
    if (state?.stage === 'AWAITING_CLARIFICATION' && state.question) {
      askedQuestion = true;
      await handle
        .executeUpdate(answerClarificationUpdate, { args: [goal.answer ?? { option: state.question.default_option }] })
        .catch(() => undefined);
    }
    await sleep(options.pollMs ?? 1000);
  }
  const failure = timedOut ? null : await result.catch(() => null);
  const verdict = timedOut ? { expected: false, outcome: `timed out after ${options.timeoutMs / 1000} s` } : undefined;
  return await measureRun(goal, handle, {
    started,
    askedQuestion,
    failure,
    readStored: options.readStored,
    goldData: options.goldData,
    ...(verdict ? { verdict, stage: 'TIMED_OUT' } : {}),
  });
}

/** A completed version's forecast beside its actual cost; null without an outcome. */
function costForecastOf(state: PlanningState | undefined): GoalResult['cost_forecast'] {
  const outcome = state?.forecast_outcome;
  const forecast = state?.versions.find((v) => v.version === outcome?.version)?.forecast;
  if (!outcome || !forecast) return null;
  const { p50, p90, from_history, from_estimate } = forecast;
  const steps = state.steps.flatMap((s) =>
    s.status === 'COMPLETED' && s.started_at && s.ended_at
      ? [{ tool: s.tool, ms: Date.parse(s.ended_at) - Date.parse(s.started_at), attempts: s.attempts ?? null }]
      : [],
  );
  return { p50, p90, actual: outcome.actual, from_history, from_estimate, steps };
}

/** The completed steps of a run and the data each returned: inline in the state, else read from the content store. */
async function completedSteps(
  state: Pick<PlanningState, 'steps'>,
  readStored: RunGoalOptions['readStored'],
): Promise<RunStepData[]> {
  return await Promise.all(
    state.steps.flatMap(({ status, tool, result }) =>
      status === 'COMPLETED' && result
        ? [
            (async () => ({
              tool,
              data: 'data' in result ? result.data : await readStored?.(result.ref).catch(() => undefined),
            }))(),
          ]
        : [],
    ),
  );
}

/**
 * The figures of one run as they stand (a finished run's, or one still going when an eval is interrupted): its
 * state, its planning activities from the history, the verdict unless one is given, and its answer and plan graded
 * against the goal's gold (an interrupted run's answer is not graded).
 */
export async function measureRun(
  goal: GoldenGoal,
  handle: WorkflowHandle,
  facts: {
    started: number;
    askedQuestion: boolean;
    failure: PlanFailure | null;
    verdict?: { expected: boolean; outcome: string };
    stage?: string;
    readStored?: RunGoalOptions['readStored'];
    goldData?: GoldData;
  },
): Promise<GoalResult> {
  const seconds = (Date.now() - facts.started) / 1000;
  const state = await handle.query(getStateQuery).catch(() => undefined);
  const activities = planningActivitiesOf(await handle.fetchHistory());
  const plan = state?.plan ?? null;
  const tools = plan ? [...new Set(flattenSteps(plan).flatMap((s) => (s.tool ? [s.tool] : [])))] : [];
  const verdict = facts.verdict ?? (state ? judge(goal, state) : { expected: false, outcome: 'no state' });
  const generations = activities.filter((a) => a.activity === 'generatePlan');
  const rejections = (await Promise.all(generations.map((g) => refusals(g, facts.readStored)))).flat();
  const { failure } = facts;
  const stage = facts.stage ?? state?.stage ?? 'UNKNOWN';
  const steps = state ? await completedSteps(state, facts.readStored) : [];
  const answer =
    stage === 'INTERRUPTED'
      ? { answer_right: null, answer_outcome: 'interrupted (no verdict)' }
      : gradeAnswer(goal, verdict, { stage, steps, goldData: facts.goldData?.get(goal.id) });
  const shape = planShape(plan);
  const gold = goal.gold ? goldShape(goal.gold) : undefined;
  const params = plan ? flattenSteps(plan).map((s) => s.params) : [];
  // What the user said: the goal and the answers to the run's questions.
  const userText = [goal.goal, ...(state?.clarifications ?? []).map((c) => c.answer)].join('\n');
  return {
    id: goal.id,
    kind: goal.kind,
    goal: goal.goal,
    catalog: goal.catalog,
    held_out: goal.held_out,
    ...answer,
    expected: verdict.expected,
    outcome: verdict.outcome,
    constraint_coverage: constraintCoverage(goal.constraints, params),
    plan_nodes_f1: gold ? multisetF1(shape.tools, gold.tools) : null,
    plan_edges_f1: gold ? multisetF1(shape.edges, gold.edges) : null,
    valid: state ? planValid(state) : false,
    unverified_id_literal: unverifiedIdLiterals(params, userText).length > 0,
    stage,
    plan_status: plan?.status ?? null,
    plan_versions: plan?.version ?? 0,
    steps: plan ? flattenSteps(plan).length : 0,
    tools,
    tools_ok: goal.expected_tools.every((t) => tools.includes(t)),
    missing_capabilities: plan?.missing_capabilities ?? [],
    asked_question: facts.askedQuestion,
    failure: failure ? `${failure.code} ${failure.message}`.slice(0, 300) : null,
    critiques: (state?.critiques ?? []).map((c) =>
      `[${c.severity}] ${c.critic}${c.step_id ? ` ${c.step_id}` : ''}: ${c.message}`.slice(0, 300),
    ),
    plan_steps: plan
      ? flattenSteps(plan).map((s) => `${s.id} ${s.tool ?? s.action} ${JSON.stringify(s.params ?? {})}`.slice(0, 200))
      : [],
    rejections: rejections.slice(0, 16).map((line) => line.slice(0, 300)),
    llm_calls: activities.reduce((sum, a) => sum + a.llm_calls, 0),
    tokens: activities.reduce((sum, a) => sum + a.tokens, 0),
    seconds,
    cost_within_p90: state?.forecast_outcome?.within_p90 ?? null,
    cost_over_p90: state?.forecast_outcome?.over ?? [],
    cost_forecast: costForecastOf(state),
    plan_generations: generations.map(({ seconds: s, llm_calls, completion_tokens, ok }) => ({
      seconds: s,
      llm_calls,
      completion_tokens,
      ok,
    })),
    activities: activities.map(({ transcript_ref: _ref, attempt_errors: _errors, ...record }) => record),
    workflow_id: handle.workflowId,
  };
}

function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
const roundOrNull = (n: number | null, digits = 2) => (n === null ? null : round(n, digits));

const share = (part: number, whole: number) => (whole === 0 ? null : round(part / whole, 3));
const meanOf = (values: readonly (number | null)[]) =>
  roundOrNull(mean(values.filter((v): v is number => v !== null)), 3);

/** The quality figures of goals with a verdict. */
export function qualityOf(judged: readonly GoalResult[]): QualityTotals {
  const graded = judged.filter((r) => r.answer_right !== null);
  const right = graded.filter((r) => r.answer_right).length;
  const expected = judged.filter((r) => r.expected).length;
  return {
    goals: judged.length,
    answer_graded: graded.length,
    answer_right: right,
    share_answer_right: share(right, graded.length),
    expected,
    share_expected: share(expected, judged.length),
    mean_constraint_coverage: meanOf(judged.map((r) => r.constraint_coverage)),
    mean_plan_nodes_f1: meanOf(judged.map((r) => r.plan_nodes_f1)),
    mean_plan_edges_f1: meanOf(judged.map((r) => r.plan_edges_f1)),
    share_valid: share(judged.filter((r) => r.valid).length, judged.length),
    runs_completed_with_unverified_id: judged.filter((r) => r.stage === 'COMPLETED' && r.unverified_id_literal).length,
    clear_goals_asked: judged.filter((r) => r.kind !== 'vague' && r.asked_question).length,
    ...costWithinP90(judged),
  };
}

function costWithinP90(
  judged: readonly GoalResult[],
): Pick<QualityTotals, 'runs_with_cost_forecast' | 'share_cost_within_p90'> {
  const forecast = judged.filter((r) => r.cost_within_p90 !== null);
  return {
    runs_with_cost_forecast: forecast.length,
    share_cost_within_p90: share(forecast.filter((r) => r.cost_within_p90).length, forecast.length),
  };
}

function groupBy<K extends string>(results: readonly GoalResult[], key: (r: GoalResult) => K): Map<K, GoalResult[]> {
  const groups = new Map<K, GoalResult[]>();
  for (const r of results) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return groups;
}

/** The LLM path's speed figures (issue 38): analyses that called the model, calls per goal, the prompt cache's share. */
function llmPathFigures(results: readonly GoalResult[]) {
  const activities = results.flatMap((r) => r.activities);
  const everyAnalysis = activities.filter((a) => a.activity === 'analyzeRequirements');
  const analyses = everyAnalysis.filter((a) => a.llm_calls > 0);
  const modelPlans = results.flatMap((r) => r.plan_generations).filter((g) => g.llm_calls > 0);
  const prompt = activities.reduce((sum, a) => sum + a.prompt_tokens, 0);
  const cached = activities.reduce((sum, a) => sum + a.cached_tokens, 0);
  return {
    llm_plan_generations: modelPlans.length,
    p50_llm_planning_latency_s: roundOrNull(
      quantile(
        modelPlans.map((g) => g.seconds),
        0.5,
      ),
      1,
    ),
    llm_analyses: analyses.length,
    p50_analysis_latency_s: roundOrNull(
      quantile(
        analyses.map((a) => a.seconds),
        0.5,
      ),
      1,
    ),
    p50_analysis_latency_all_s: roundOrNull(
      quantile(
        everyAnalysis.map((a) => a.seconds),
        0.5,
      ),
      1,
    ),
    mean_llm_calls_per_goal: round(mean(results.map((r) => r.llm_calls)) ?? 0, 2),
    prefix_cache_hit_rate: prompt > 0 ? round(cached / prompt, 3) : null,
    p50_seconds_per_goal: roundOrNull(
      quantile(
        results.map((r) => r.seconds),
        0.5,
      ),
      1,
    ),
  };
}

export function summarize(results: readonly GoalResult[], totalSeconds: number): EvalTotals {
  const generations = results.flatMap((r) => r.plan_generations);
  // A goal still running when the eval was interrupted has no verdict: its planning figures count, its outcome not.
  const judged = results.filter((r) => r.stage !== 'INTERRUPTED');
  const by_kind: EvalTotals['by_kind'] = {};
  for (const [kind, group] of groupBy(judged, (r) => r.kind)) {
    by_kind[kind] = {
      goals: group.length,
      expected: group.filter((r) => r.expected).length,
      answer_right: group.filter((r) => r.answer_right).length,
    };
  }
  return {
    ...qualityOf(judged),
    interrupted: results.length - judged.length,
    share_expected_with_tools: round(
      judged.filter((r) => r.expected && r.tools_ok).length / Math.max(1, judged.length),
      3,
    ),
    plan_generations: generations.length,
    mean_llm_calls_per_plan_generation: roundOrNull(mean(generations.map((g) => g.llm_calls)), 3),
    mean_tokens_per_run: Math.round(mean(results.map((r) => r.tokens)) ?? 0),
    mean_completion_tokens_per_plan_generation: roundOrNull(mean(generations.map((g) => g.completion_tokens)), 1),
    p50_planning_latency_s: roundOrNull(
      quantile(
        generations.map((g) => g.seconds),
        0.5,
      ),
      1,
    ),
    p90_planning_latency_s: roundOrNull(
      quantile(
        generations.map((g) => g.seconds),
        0.9,
      ),
      1,
    ),
    ...llmPathFigures(results),
    mean_seconds_per_goal: roundOrNull(mean(results.map((r) => r.seconds)), 1)!,
    total_seconds: round(totalSeconds, 1),
    by_kind,
    by_catalog: Object.fromEntries(
      [...groupBy(judged, (r) => r.catalog)].map(([catalog, group]) => [catalog, qualityOf(group)]),
    ),
    held_out: qualityOf(judged.filter((r) => r.held_out)),
    tuning: qualityOf(judged.filter((r) => !r.held_out)),
  };
}

function cell(value: unknown): string {
  return String(value ?? '-').replace(/\|/g, '/');
}

const percent = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
const rightOf = (q: QualityTotals) => `${q.answer_right}/${q.answer_graded} (${percent(q.share_answer_right)})`;
const yesNo = (b: boolean | null) => (b === null ? '-' : b ? 'yes' : 'NO');

/** A Markdown table: one row per goal (answer right first, the status verdict beside), then the totals. */
export function renderTable(results: readonly GoalResult[], totals: EvalTotals): string {
  const header =
    '| goal | kind | answer | expected | outcome | plan | steps | tools | nodes F1 | edges F1 | constraints | LLM calls | tokens | plan s | run s |';
  const rule = `|${' --- |'.repeat(15)}`;
  const rows = results.map((r) =>
    [
      r.id,
      `${r.kind}${r.held_out ? ' (held out)' : ''}`,
      yesNo(r.answer_right),
      yesNo(r.expected),
      r.answer_right === false && r.answer_outcome !== r.outcome ? `${r.outcome}; ${r.answer_outcome}` : r.outcome,
      `${r.plan_status ?? '-'} v${r.plan_versions}${r.valid ? '' : ' (invalid)'}`,
      r.steps,
      r.tools.join(' ') || '-',
      r.plan_nodes_f1,
      r.plan_edges_f1,
      r.constraint_coverage,
      r.llm_calls,
      r.tokens,
      r.plan_generations.map((g) => g.seconds.toFixed(0)).join('+') || '-',
      r.seconds.toFixed(0),
    ]
      .map(cell)
      .join(' | '),
  );
  const t = totals;
  const catalogs = Object.entries(t.by_catalog).map(([name, q]) => `${name} ${rightOf(q)}`);
  const summary = [
    `answer right: ${rightOf(t)} of the graded goals; held out ${rightOf(t.held_out)}, tuning ${rightOf(t.tuning)}; by catalog: ${catalogs.join(', ') || '-'}`,
    `expected (status only): ${t.expected}/${t.goals} (${percent(t.share_expected)}; with the expected tools ${percent(t.share_expected_with_tools)})`,
    `plan: tools F1 ${t.mean_plan_nodes_f1 ?? '-'}, dependencies F1 ${t.mean_plan_edges_f1 ?? '-'}, constraint coverage ${t.mean_constraint_coverage ?? '-'}, valid ${percent(t.share_valid)}; completed runs with an unverified id: ${t.runs_completed_with_unverified_id}; clear goals that asked a question: ${t.clear_goals_asked}`,
    `mean LLM calls per plan generation: ${t.mean_llm_calls_per_plan_generation ?? '-'} (${t.plan_generations} generations)`,
    `tokens per run: ${t.mean_tokens_per_run}; completion tokens per plan generation: ${t.mean_completion_tokens_per_plan_generation ?? '-'}`,
    `cost within the p90 forecast: ${percent(t.share_cost_within_p90)} of ${t.runs_with_cost_forecast} completed run(s) (tuning ${percent(t.tuning.share_cost_within_p90)}, held out ${percent(t.held_out.share_cost_within_p90)}; target 90%)`,
    `planning latency p50 ${t.p50_planning_latency_s ?? '-'} s, p90 ${t.p90_planning_latency_s ?? '-'} s; ${t.mean_seconds_per_goal} s per goal (p50 ${t.p50_seconds_per_goal ?? '-'} s), ${t.total_seconds} s in all`,
    `plan generations that called the LLM ${t.llm_plan_generations} (p50 ${t.p50_llm_planning_latency_s ?? '-'} s); LLM analyses ${t.llm_analyses} (p50 ${t.p50_analysis_latency_s ?? '-'} s; every analysis p50 ${t.p50_analysis_latency_all_s ?? '-'} s); ${t.mean_llm_calls_per_goal} LLM calls per goal; prompt cache served ${t.prefix_cache_hit_rate === null ? '-' : `${Math.round(t.prefix_cache_hit_rate * 100)}%`} of prompt tokens`,
  ];
  return [header, rule, ...rows.map((r) => `| ${r} |`), '', ...summary].join('\n');
}

/** One console line per goal: the answer verdict first, the status verdict beside. */
export function goalLine(r: GoalResult): string {
  const gens = r.plan_generations.map((g) => `${g.seconds.toFixed(0)} s/${g.llm_calls} call(s)`).join(', ');
  const answer = r.answer_right === null ? 'answer -  ' : r.answer_right ? 'answer ok ' : 'answer NO ';
  const why = r.answer_right === false && r.answer_outcome !== r.outcome ? `; ${r.answer_outcome}` : '';
  return `${answer} expected ${r.expected ? 'ok' : 'NO'}  ${r.id}: ${r.outcome}${why}; ${r.llm_calls} LLM call(s), ${r.tokens} tokens, ${r.seconds.toFixed(0)} s (plan: ${gens || '-'})`;
}

/** A goal still running when the eval stops: its figures so far, no verdict. */
export async function measureInterrupted(
  goal: GoldenGoal,
  handle: WorkflowHandle,
  started: number,
  readStored?: RunGoalOptions['readStored'],
): Promise<GoalResult> {
  return await measureRun(goal, handle, {
    started,
    askedQuestion: false,
    failure: null,
    verdict: { expected: false, outcome: 'interrupted (no verdict)' },
    stage: 'INTERRUPTED',
    readStored,
  });
}

/** The section an eval writes for its planner: what was run against what, under which conditions, the totals and every result. */
export function evalReport(
  meta: { llm: unknown; goals_files: string[]; selected: string[]; started: number; note?: string },
  results: readonly GoalResult[],
) {
  const totals = summarize(results, (Date.now() - meta.started) / 1000);
  return {
    created_at: new Date().toISOString(),
    ...(meta.note ? { note: meta.note } : {}),
    llm: meta.llm,
    goals_files: meta.goals_files,
    today: EVAL_DAY,
    selected: meta.selected,
    finished: results.length === meta.selected.length && totals.interrupted === 0,
    conditions: { cpus: os.cpus().length, loadavg: os.loadavg().map((l) => round(l)), node: process.version },
    totals,
    results,
  };
}

/** The planner label of an eval: its model, or "ranking" without an LLM. */
export function plannerLabel(llm: { model: string } | undefined): string {
  return llm?.model ?? 'ranking';
}

const EvalResultsFileSchema = z.object({ about: z.string(), planners: z.record(z.string(), z.unknown()) }).strict();

const RESULTS_ABOUT =
  'Results of `npm run eval` (bench/eval.ts), one section per planner: the configured model, or "ranking" without an LLM (--label names another). A run replaces only its own section.';

/** The results file's text with `label`'s section set to `section`, every other planner's kept as it was. */
export function withPlannerSection(existing: string | undefined, label: string, section: unknown): string {
  const file =
    existing === undefined ? { about: RESULTS_ABOUT, planners: {} } : EvalResultsFileSchema.parse(JSON.parse(existing));
  return `${JSON.stringify({ about: file.about, planners: { ...file.planners, [label]: section } }, null, 2)}\n`;
}
