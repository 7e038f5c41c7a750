/**
 * The CLI's `--json` contract, in one place. The workflow's state is snake_case (it is the wire format of
 * `getState`); what the CLI prints is camelCase and a stable subset of it. docs/cli.md documents these shapes: add
 * fields freely, but never rename or remove one.
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { ToolBudget, Usage } from '../domain/budget';
import type { CostFigures, CostForecast } from '../domain/cost-forecast';
import type { PlanDiff } from '../domain/diff';
import type { TaskCheck } from '../domain/acceptance';
import {
  TaskResourcesSchema,
  flattenSteps,
  type AcceptanceCriterion,
  type Plan,
  type TaskResources,
} from '../domain/plan';
import { emptyAnswerNote } from '../api/answer';
import type { PlanFailure } from '../api/failures';
import type { AuditDecision, AuditEntry, PlanningState, PlanVersionRecord, StepRecord } from '../api/state';

export interface UsageView {
  costUsd: number;
  tokens: number;
  calls: number;
}

export interface BudgetView {
  policy: 'warn' | 'block' | 'fail';
  limit: UsageView;
  spent: UsageView;
}

export interface StepView {
  id: string;
  title: string;
  action: string;
  tool: string | null;
  params: Record<string, unknown>;
  /** Ids of the steps this one waits for. */
  dependsOn: string[];
  parallel: boolean;
  expectedOutput: string;
  description: string;
  verification: string[];
  /** PENDING | RUNNING | WAITING | COMPLETED | FAILED | CANCELLED; null when the plan has not been routed yet. */
  status: string | null;
  items: number | null;
  preview: string | null;
  error: { code: string; message: string } | null;
  /** While WAITING: what for (`answer`: planner complete; `decision`: planner resolve), the question, and until when. */
  waiting?: { for: 'answer' | 'decision' | 'approval'; question: string; since: string; until: string } | null;
  /** When the step started and ended (the workflow's clock), and the time between; null until known. */
  startedAt?: string | null;
  endedAt?: string | null;
  elapsedMs?: number | null;
  /** The attempt of its activity that completed it (1: no retry); null until it completes or when unknown. */
  attempts?: number | null;
}

export interface PlanView {
  id: string;
  version: number;
  status: Plan['status'];
  goal: string;
  missingCapabilities: string[];
  assumptions: string[];
  complexity: number;
  /** What the plan says it will use (the planner's estimate, checked against the catalog at validation). */
  estimate: EstimateView;
  tasks: TaskView[];
}

/** An acceptance criterion and the verifier's verdict on it (null until the task's steps have all run). */
export interface CriterionView {
  id: string;
  description: string;
  /** A test: its failure re-plans the task or ends the run; otherwise checked and reported only. */
  test: boolean;
  assertion: AcceptanceCriterion['assertion'];
  result: { passed: boolean; detail: string } | null;
}

export interface TaskView {
  id: string;
  title: string;
  description: string;
  /** Ids of the tasks this one waits for. */
  dependsOn: string[];
  complexity: number;
  resources: TaskResources;
  acceptanceCriteria: CriterionView[];
  /** The verifier's verdict on the task (null: not checked in this plan version). */
  checked: { passed: boolean } | null;
  steps: StepView[];
}

export interface EstimateView extends UsageView {
  durationMs: number;
}

/** One quantile of a forecast: what executing the plan will use. */
export interface CostFiguresView extends UsageView {
  seconds: number;
}

/** The plan's cost forecast (src/domain/cost-forecast.ts), made before a person is asked. */
export interface ForecastView {
  p50: CostFiguresView;
  p90: CostFiguresView;
  /** Steps forecast from the recorded costs of past runs, and from the plan's estimate. */
  fromHistory: number;
  fromEstimate: number;
  basis: { subject: string; samples: number }[];
}

export interface DiffView {
  added: string[];
  removed: string[];
  changed: { id: string; fields: string[] }[];
  summary: string;
}

export interface VersionView {
  version: number;
  parentVersion: number | null;
  reason: string;
  explanation: string;
  createdAt: string;
  diff: DiffView | null;
  /** Who made it, for a version a person made (`human_edit`, `rerun`); else null. */
  by: string | null;
  /** For a version a person made: the JSON Pointers at which it differs from its parent; else null. */
  jsonChanges: string[] | null;
  /** Made for a rejection but changing no step: why the planner cannot honour the reason; null otherwise. */
  unhonouredRejection: string | null;
  forecast: ForecastView | null;
}

export interface StateView {
  workflowId: string;
  stage: string;
  goal: string;
  plan: PlanView | null;
  versions: VersionView[];
  budget: BudgetView;
  question: { text: string; options: string[]; default: number; askedAt: string } | null;
  approval: { status: string; reason: string | null } | null;
  /** A completed run: whether its steps cost within the p90 forecast of the version they ran in; null otherwise. */
  forecastOutcome: {
    version: number;
    withinP90: boolean;
    actual: CostFiguresView;
    p90: CostFiguresView;
    over: string[];
  } | null;
  warnings: string[];
  /** Why the run failed: its PLAN code, message and hint. */
  failure: { type: string; code: string; message: string; hint: string } | null;
  /** A completed run whose final steps found nothing: what they asked for (emptyAnswerNote). */
  answer_note: string | null;
  /** The closed run this run re-runs (`planner rerun`) and the step it re-runs from; else null. */
  rerunOf: { workflowId: string; from: string } | null;
}

export interface RunView {
  workflowId: string;
  runId: string;
  /** The PlanStage search attribute (null until the run first publishes it). */
  stage: string | null;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, … */
  status: string;
  goal: string | null;
  planVersion: number | null;
  startTime: string;
  closeTime: string | null;
}

export interface HistoryEntryView {
  at: string;
  /** `audit` (the workflow's own decision log) or `history` (Temporal's event history). */
  source: 'audit' | 'history';
  kind: string;
  message: string;
  /** Who made the decision: the identity its message carried (audit), or the identity Temporal recorded (history). */
  by?: string;
  /** An audit entry that records a decision: which (the field `planner audit` reads, never the wording). */
  decision?: AuditDecision;
}

export function usageView(u: Usage): UsageView {
  return { costUsd: u.cost_usd, tokens: u.tokens, calls: u.calls };
}

export function costFiguresView(f: CostFigures): CostFiguresView {
  return { ...usageView(f), seconds: f.seconds };
}

export function forecastView(f: CostForecast): ForecastView {
  return {
    p50: costFiguresView(f.p50),
    p90: costFiguresView(f.p90),
    fromHistory: f.from_history,
    fromEstimate: f.from_estimate,
    basis: f.basis.map((b) => ({ ...b })),
  };
}

export function budgetView(b: ToolBudget): BudgetView {
  return { policy: b.policy, limit: usageView(b.limit), spent: usageView(b.spent) };
}

export function diffView(d: PlanDiff): DiffView {
  return {
    added: [...d.added],
    removed: [...d.removed],
    changed: d.changed.map((c) => ({ id: c.id, fields: [...c.fields] })),
    summary: d.summary,
  };
}

export function versionView(v: PlanVersionRecord): VersionView {
  return {
    version: v.version,
    parentVersion: v.parent_version,
    reason: v.reason,
    explanation: v.explanation,
    createdAt: v.created_at,
    diff: v.diff ? diffView(v.diff) : null,
    by: v.by ?? null,
    jsonChanges: v.json_changes ? [...v.json_changes] : null,
    unhonouredRejection: v.unhonoured_rejection ?? null,
    forecast: v.forecast ? forecastView(v.forecast) : null,
  };
}

/** The plan with each step's run status (`records` are the current version's step records). */
export function planView(plan: Plan, records: readonly StepRecord[] = [], checks: readonly TaskCheck[] = []): PlanView {
  const ids = flattenSteps(plan).map((s) => s.id);
  const byId = new Map(records.map((r) => [r.id, r]));
  return {
    id: plan.id,
    version: plan.version,
    status: plan.status,
    goal: plan.goal,
    missingCapabilities: [...plan.missing_capabilities],
    assumptions: [...plan.assumptions],
    complexity: plan.complexity,
    estimate: { ...usageView(plan.estimate), durationMs: plan.estimate.duration_ms },
    tasks: plan.tasks.map((task) => {
      const check = checks.find((c) => c.task === task.id && c.plan_version === plan.version);
      return {
        id: task.id,
        title: task.title,
        description: task.description,
        // Plans recorded before tasks had these fields: none.
        dependsOn: [...(task.depends_on ?? [])],
        complexity: task.complexity ?? 1,
        resources: task.resources ?? TaskResourcesSchema.parse({}),
        acceptanceCriteria: (task.acceptance_criteria ?? []).map((c) => {
          const r = check?.results.find((x) => x.id === c.id);
          return {
            id: c.id,
            description: c.description,
            test: c.test,
            assertion: c.assertion,
            result: r ? { passed: r.passed, detail: r.detail } : null,
          };
        }),
        checked: check ? { passed: check.passed } : null,
        steps: task.steps.map((step) => {
          const record = byId.get(step.id);
          return {
            id: step.id,
            title: step.title,
            action: step.action,
            tool: step.tool,
            params: step.params,
            dependsOn: step.depends_on.map((n) => ids[n] ?? `#${n}`),
            parallel: step.parallel,
            expectedOutput: step.expected_output,
            description: step.description,
            verification: [...step.verification],
            status: record?.status ?? null,
            items: record?.result?.items ?? null,
            preview: record?.result?.preview ?? null,
            error: record?.error ?? null,
            waiting: record?.status === 'WAITING' ? (record.waiting ?? null) : null,
            startedAt: record?.started_at ?? null,
            endedAt: record?.ended_at ?? null,
            elapsedMs:
              record?.started_at && record.ended_at
                ? Date.parse(record.ended_at) - Date.parse(record.started_at)
                : null,
            attempts: record?.attempts ?? null,
          };
        }),
      };
    }),
  };
}

/** `plan` overrides the current plan (e.g. `show --version N`); step statuses apply only to the current version. */
export function stateView(state: PlanningState, plan: Plan | null = state.plan): StateView {
  const current = plan !== null && state.plan !== null && plan.version === state.plan.version;
  return {
    workflowId: state.workflow_id,
    stage: state.stage,
    goal: state.request.goal,
    plan: plan ? planView(plan, current ? state.steps : [], state.task_checks ?? []) : null,
    versions: state.versions.map(versionView),
    budget: budgetView(state.budget),
    question: state.question
      ? {
          text: state.question.text,
          options: [...state.question.options],
          default: state.question.default_option,
          askedAt: state.question.asked_at,
        }
      : null,
    approval: state.approval ? { status: state.approval.status, reason: state.approval.reason ?? null } : null,
    forecastOutcome: state.forecast_outcome
      ? {
          version: state.forecast_outcome.version,
          withinP90: state.forecast_outcome.within_p90,
          actual: costFiguresView(state.forecast_outcome.actual),
          p90: costFiguresView(state.forecast_outcome.p90),
          over: [...state.forecast_outcome.over],
        }
      : null,
    warnings: [...state.warnings],
    failure: state.failure && failureView(state.failure),
    answer_note: emptyAnswerNote(state),
    rerunOf: state.rerun_of ? { workflowId: state.rerun_of.workflow_id, from: state.rerun_of.from } : null,
  };
}

function failureView({ type, code, message, hint }: PlanFailure) {
  return { type, code, message, hint };
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

export function runView(info: WorkflowExecutionInfo): RunView {
  const attrs = info.searchAttributes ?? {};
  const stage = firstOf(attrs.PlanStage);
  const version = firstOf(attrs.PlanVersion);
  const goal = info.memo?.goal;
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    stage: typeof stage === 'string' ? stage : null,
    status: info.status.name,
    goal: typeof goal === 'string' ? goal : null,
    planVersion: typeof version === 'number' ? version : null,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
  };
}

export function auditEntryView(entry: AuditEntry): HistoryEntryView {
  return {
    at: entry.at,
    source: 'audit',
    kind: entry.kind,
    message: entry.message,
    ...(entry.by !== undefined ? { by: entry.by } : {}),
    ...(entry.decision !== undefined ? { decision: entry.decision } : {}),
  };
}

/**
 * `show --json` of a closed run no worker could replay: what Temporal's history says (`source: "history"`). The
 * run's status, its ending (termination, typed failure, timeout) and, for a completed run, its result.
 */
export interface ClosedRunView {
  workflowId: string;
  source: 'history';
  status: string;
  stage: string | null;
  goal: string | null;
  planVersion: number | null;
  planStatus: string | null;
  steps: { id: string; tool: string | null; status: string; items: number | null; preview: string | null }[];
  budget: BudgetView | null;
  warnings: string[];
  failure: { type: string; code: string; message: string; hint: string } | null;
  termination: { reason: string; identity: string } | null;
  timedOut: boolean;
}

export function closedRunView(truth: {
  workflowId: string;
  status: string;
  stage: string | null;
  goal: string | null;
  failure: PlanFailure | null;
  termination: { reason: string; identity: string } | null;
  timedOut: boolean;
  outcome: {
    stage: string;
    plan_version: number | null;
    plan_status: string | null;
    steps: ClosedRunView['steps'];
    budget: ToolBudget;
    warnings: string[];
    failure: PlanFailure | null;
  } | null;
}): ClosedRunView {
  const o = truth.outcome;
  const failure = truth.failure ?? o?.failure ?? null;
  return {
    workflowId: truth.workflowId,
    source: 'history',
    status: truth.status,
    stage: o?.stage ?? truth.stage ?? (failure ? 'FAILED' : null), // a run refused at input published no stage
    goal: truth.goal,
    planVersion: o?.plan_version ?? null,
    planStatus: o?.plan_status ?? null,
    steps: (o?.steps ?? []).map((s) => ({
      id: s.id,
      tool: s.tool,
      status: s.status,
      items: s.items,
      preview: s.preview,
    })),
    budget: o ? budgetView(o.budget) : null,
    warnings: [...(o?.warnings ?? [])],
    failure: failure && failureView(failure),
    termination: truth.termination,
    timedOut: truth.timedOut,
  };
}

/** `planner result --json`: the full data of a run's final steps (or of the one asked for), read from the store. */
export interface ResultView {
  workflowId: string;
  stage: string | null;
  planVersion: number | null;
  steps: ResultStepView[];
  /** A completed run whose final steps found nothing: what they asked for (emptyAnswerNote). */
  answer_note: string | null;
}

export interface ResultStepView {
  /** 1-based position in the plan (what `--step N` takes). */
  number: number;
  id: string;
  tool: string | null;
  status: string;
  items: number | null;
  ref: string | null;
  /** The step's whole result; null when it has none (not completed). */
  data: unknown;
}

/** A step as `planner result` reads it: where its data is (inline or by ref) and whether a later step consumes it. */
export interface ResultSource extends Omit<ResultStepView, 'data'> {
  inline?: unknown;
  /** No other step depends on it: its data is part of the run's answer. */
  final: boolean;
}

/** The steps of the current plan with their results; final = no later step depends on it. */
export function resultSourcesOfState(state: PlanningState): ResultSource[] {
  const steps = state.plan ? flattenSteps(state.plan) : [];
  const consumed = new Set(steps.flatMap((s) => s.depends_on));
  const records = new Map(state.steps.map((r) => [r.id, r]));
  return steps.map((step, i) => {
    const record = records.get(step.id);
    return {
      number: i + 1,
      id: step.id,
      tool: step.tool,
      status: record?.status ?? 'PENDING',
      items: record?.result?.items ?? null,
      ref: record?.result?.ref ?? null,
      ...(record?.result?.data !== undefined ? { inline: record.result.data } : {}),
      final: !consumed.has(i),
    };
  });
}
