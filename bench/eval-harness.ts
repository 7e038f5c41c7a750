/**
 * The eval's moving parts, shared by `npm run eval` (bench/eval.ts, real Temporal dev server + whatever LLM is
 * configured) and the CI smoke test (test/temporal/eval-smoke.test.ts, scripted LLM server): the golden set's
 * format, one goal carried through a whole planning run, the judgement of its outcome, the totals and the table.
 *
 * Figures come from the run itself: its final state (stage, plan, missing capabilities, budget) and its event
 * history (every planning activity's duration and the LLM calls its result or failure reports).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { answerClarificationUpdate, getStateQuery, type PlanningState } from '../src/api';
import { readFailure, type PlanFailure } from '../src/api/failures';
import { flattenSteps, type PlanStatus } from '../src/domain/plan';
import { LlmCallUsageSchema, type LlmCallUsage } from '../src/domain/llm-calls';
import { planningWorkflow } from '../src/workflows';
import { round } from './figures';

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
    answer: z.union([z.object({ option: z.number().int().min(1) }).strict(), z.object({ text: z.string().min(1) }).strict()]).optional(),
  })
  .strict()
  .refine((g) => (g.kind === 'partial' || g.kind === 'impossible') === g.expected_missing.length > 0, {
    message: 'partial and impossible goals (only they) name expected_missing',
  })
  .refine((g) => (g.kind === 'vague') === (g.answer !== undefined), { message: 'vague goals (only they) give an answer' });
export type GoldenGoal = z.output<typeof GoldenGoalSchema>;

export const GoldenSetSchema = z.object({ about: z.string(), goals: z.array(GoldenGoalSchema).min(1).max(200) }).strict();

export function loadGoldenSet(file: string): GoldenGoal[] {
  const set = GoldenSetSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const ids = set.goals.map((g) => g.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new Error(`golden set ${file}: goal id "${duplicate}" appears twice`);
  return set.goals;
}

/** One planning activity as the run's history shows it. */
export interface ActivityRecord {
  activity: string;
  seconds: number;
  llm_calls: number;
  tokens: number;
  completion_tokens: number;
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
  /** The verdict: the run ended as the golden set says. */
  expected: boolean;
  /** Why it did or did not, in a few words. */
  outcome: string;
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
  /** One entry per generatePlan activity: its duration and the LLM calls it made. */
  plan_generations: { seconds: number; llm_calls: number; completion_tokens: number; ok: boolean }[];
  activities: ActivityRecord[];
  workflow_id: string;
}

export interface EvalTotals {
  /** Goals with a verdict (interrupted ones left out). */
  goals: number;
  interrupted: number;
  expected: number;
  share_expected: number;
  /** Expected AND using every expected tool. */
  share_expected_with_tools: number;
  plan_generations: number;
  mean_llm_calls_per_plan_generation: number | null;
  mean_tokens_per_run: number;
  mean_completion_tokens_per_plan_generation: number | null;
  p50_planning_latency_s: number | null;
  p90_planning_latency_s: number | null;
  mean_seconds_per_goal: number;
  total_seconds: number;
  by_kind: Record<string, { goals: number; expected: number }>;
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
      const details = (payloadValue(failed.failure?.applicationFailureInfo?.details) as { details?: unknown } | undefined)?.details;
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
export function judge(goal: GoldenGoal, state: Pick<PlanningState, 'stage' | 'plan'>): { expected: boolean; outcome: string } {
  const status = state.plan?.status ?? null;
  const missing = state.plan?.missing_capabilities ?? [];
  const wantStatus: PlanStatus = goal.kind === 'partial' ? 'PARTIAL' : goal.kind === 'impossible' ? 'IMPOSSIBLE' : 'FEASIBLE';
  if (status !== wantStatus) return { expected: false, outcome: `plan ${status ?? 'none'}, expected ${wantStatus} (${state.stage})` };
  const unnamed = goal.expected_missing.filter((words) => !mentions(missing, words));
  if (unnamed.length > 0) return { expected: false, outcome: `missing capabilities do not name ${unnamed.map((w) => w[0]).join(', ')}` };
  const wantStage = goal.kind === 'impossible' ? 'FAILED' : 'COMPLETED';
  if (state.stage !== wantStage) return { expected: false, outcome: `plan ${status} but run ${state.stage}` };
  return { expected: true, outcome: goal.kind === 'impossible' ? 'IMPOSSIBLE, missing named' : `${status}, ${state.stage}` };
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
  /** Reads a value of the planner's content store (LLM transcripts, for `rejections`); without it they stay empty. */
  readStored?: (ref: string) => Promise<unknown>;
}

/** A plan generation's refused replies and the error lines each got: from its stored conversation, or its failure's details. */
async function refusals(activity: ActivityRecord, readStored: RunGoalOptions['readStored']): Promise<string[]> {
  if (activity.attempt_errors) return activity.attempt_errors.flat();
  if (!activity.transcript_ref || !readStored) return [];
  const transcript = z.array(z.object({ role: z.string(), content: z.string() })).safeParse(await readStored(activity.transcript_ref).catch(() => undefined));
  if (!transcript.success) return [];
  // After the request: each refused reply (assistant), then the turn naming its errors (user).
  return transcript.data
    .slice(2, -1)
    .flatMap((m) => (m.role === 'user' ? m.content.split('\n').filter((line) => line.startsWith('[')) : [`reply: ${m.content}`]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Carries one golden goal through a whole planning run: start, answer its question if it asks, wait, read the figures. */
export async function runGoal(goal: GoldenGoal, options: RunGoalOptions): Promise<GoalResult> {
  const started = Date.now();
  const workflowId = `eval-${goal.id}-${started.toString(36)}`;
  const handle = await options.client.workflow.start(planningWorkflow, {
    args: [{ request: { goal: goal.goal, tool_catalog: goal.catalog }, options: { ...options.runOptions } }],
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
      await handle.executeUpdate(answerClarificationUpdate, { args: [goal.answer ?? { option: state.question.default_option }] }).catch(() => undefined);
    }
    await sleep(options.pollMs ?? 1000);
  }
  const failure = timedOut ? null : await result.catch(() => null);
  const verdict = timedOut ? { expected: false, outcome: `timed out after ${options.timeoutMs / 1000} s` } : undefined;
  return await measureRun(goal, handle, { started, askedQuestion, failure, readStored: options.readStored, ...(verdict ? { verdict, stage: 'TIMED_OUT' } : {}) });
}

/**
 * The figures of one run as they stand (a finished run's, or one still going when an eval is interrupted): its
 * state, its planning activities from the history, and the verdict unless one is given.
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
  return {
    id: goal.id,
    kind: goal.kind,
    goal: goal.goal,
    expected: verdict.expected,
    outcome: verdict.outcome,
    stage: facts.stage ?? state?.stage ?? 'UNKNOWN',
    plan_status: plan?.status ?? null,
    plan_versions: plan?.version ?? 0,
    steps: plan ? flattenSteps(plan).length : 0,
    tools,
    tools_ok: goal.expected_tools.every((t) => tools.includes(t)),
    missing_capabilities: plan?.missing_capabilities ?? [],
    asked_question: facts.askedQuestion,
    failure: failure ? `${failure.code} ${failure.message}`.slice(0, 300) : null,
    critiques: (state?.critiques ?? []).map((c) => `[${c.severity}] ${c.critic}${c.step_id ? ` ${c.step_id}` : ''}: ${c.message}`.slice(0, 300)),
    plan_steps: plan ? flattenSteps(plan).map((s) => `${s.id} ${s.tool ?? s.action} ${JSON.stringify(s.params ?? {})}`.slice(0, 200)) : [],
    rejections: rejections.slice(0, 16).map((line) => line.slice(0, 300)),
    llm_calls: activities.reduce((sum, a) => sum + a.llm_calls, 0),
    tokens: activities.reduce((sum, a) => sum + a.tokens, 0),
    seconds,
    plan_generations: generations.map(({ seconds: s, llm_calls, completion_tokens, ok }) => ({ seconds: s, llm_calls, completion_tokens, ok })),
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

const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);
const roundOrNull = (n: number | null, digits = 2) => (n === null ? null : round(n, digits));

export function summarize(results: readonly GoalResult[], totalSeconds: number): EvalTotals {
  const generations = results.flatMap((r) => r.plan_generations);
  const expected = results.filter((r) => r.expected).length;
  // A goal still running when the eval was interrupted has no verdict: its planning figures count, its outcome not.
  const judged = results.filter((r) => r.stage !== 'INTERRUPTED');
  const by_kind: EvalTotals['by_kind'] = {};
  for (const r of judged) {
    const k = (by_kind[r.kind] ??= { goals: 0, expected: 0 });
    k.goals += 1;
    if (r.expected) k.expected += 1;
  }
  return {
    goals: judged.length,
    interrupted: results.length - judged.length,
    expected,
    share_expected: round(expected / Math.max(1, judged.length), 3),
    share_expected_with_tools: round(judged.filter((r) => r.expected && r.tools_ok).length / Math.max(1, judged.length), 3),
    plan_generations: generations.length,
    mean_llm_calls_per_plan_generation: roundOrNull(mean(generations.map((g) => g.llm_calls)), 3),
    mean_tokens_per_run: Math.round(mean(results.map((r) => r.tokens)) ?? 0),
    mean_completion_tokens_per_plan_generation: roundOrNull(mean(generations.map((g) => g.completion_tokens)), 1),
    p50_planning_latency_s: roundOrNull(quantile(generations.map((g) => g.seconds), 0.5), 1),
    p90_planning_latency_s: roundOrNull(quantile(generations.map((g) => g.seconds), 0.9), 1),
    mean_seconds_per_goal: roundOrNull(mean(results.map((r) => r.seconds)), 1)!,
    total_seconds: round(totalSeconds, 1),
    by_kind,
  };
}

function cell(value: unknown): string {
  return String(value ?? '-').replace(/\|/g, '/');
}

/** A Markdown table: one row per goal, then the totals. */
export function renderTable(results: readonly GoalResult[], totals: EvalTotals): string {
  const header = '| goal | kind | ok | outcome | plan | steps | tools | LLM calls | tokens | plan s | run s |';
  const rule = '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |';
  const rows = results.map((r) =>
    [
      r.id,
      r.kind,
      r.expected ? 'yes' : 'NO',
      r.outcome,
      `${r.plan_status ?? '-'} v${r.plan_versions}`,
      r.steps,
      r.tools.join(' ') || '-',
      r.llm_calls,
      r.tokens,
      r.plan_generations.map((g) => g.seconds.toFixed(0)).join('+') || '-',
      r.seconds.toFixed(0),
    ]
      .map(cell)
      .join(' | '),
  );
  const t = totals;
  const summary = [
    `expected: ${t.expected}/${t.goals} (${(t.share_expected * 100).toFixed(1)}%; with the expected tools ${(t.share_expected_with_tools * 100).toFixed(1)}%)`,
    `mean LLM calls per plan generation: ${t.mean_llm_calls_per_plan_generation ?? '-'} (${t.plan_generations} generations)`,
    `tokens per run: ${t.mean_tokens_per_run}; completion tokens per plan generation: ${t.mean_completion_tokens_per_plan_generation ?? '-'}`,
    `planning latency p50 ${t.p50_planning_latency_s ?? '-'} s, p90 ${t.p90_planning_latency_s ?? '-'} s; ${t.mean_seconds_per_goal} s per goal, ${t.total_seconds} s in all`,
  ];
  return [header, rule, ...rows.map((r) => `| ${r} |`), '', ...summary].join('\n');
}

/** A goal still running when the eval stops: its figures so far, no verdict. */
export async function measureInterrupted(goal: GoldenGoal, handle: WorkflowHandle, started: number, readStored?: RunGoalOptions['readStored']): Promise<GoalResult> {
  return await measureRun(goal, handle, { started, askedQuestion: false, failure: null, verdict: { expected: false, outcome: 'interrupted (no verdict)' }, stage: 'INTERRUPTED', readStored });
}

/** The JSON an eval writes: what was run against what, under which conditions, the totals and every result. */
export function evalReport(meta: { llm: unknown; goals_file: string; selected: string[]; started: number; note?: string }, results: readonly GoalResult[]) {
  const totals = summarize(results, (Date.now() - meta.started) / 1000);
  return {
    created_at: new Date().toISOString(),
    ...(meta.note ? { note: meta.note } : {}),
    llm: meta.llm,
    goals_file: meta.goals_file,
    selected: meta.selected,
    finished: results.length === meta.selected.length && totals.interrupted === 0,
    conditions: { cpus: os.cpus().length, loadavg: os.loadavg().map((l) => round(l)), node: process.version },
    totals,
    results,
  };
}
