/**
 * The planning run's state: everything `getState` shows and continue-as-new carries, and the outcome a run returns.
 * Plain JSON, changed only by the workflow's run state class (src/workflows/run.ts).
 */
import type { ToolBudget, Usage } from '../domain/budget';
import type { CostForecast, ForecastOutcome } from '../domain/cost-forecast';
import type { TaskCheck } from '../domain/acceptance';
import type { Critique, GatekeeperDecision } from '../domain/critique';
import type { PlanVersion, PlanVersionReason } from '../domain/diff';
import type { Plan } from '../domain/plan';
import type { PlanningRequest } from '../domain/request';
import type { Requirements } from '../domain/requirements';
import type { RoutingDecision, ToolRoute } from '../domain/routing';
import type { Stage } from '../domain/stages';
import type { StepResult } from '../domain/step-execution';
import type { PlanFailure } from './failures';
import type { StepDecision } from './messages';
import type { PlanningOptions } from './input';

export type { Stage } from '../domain/stages';
export { STAGES, TERMINAL_STAGES } from '../domain/stages';

/** On a bounded run the audit keeps its latest entries; older ones are dropped, counted in `audit_dropped`. */
export const AUDIT_LIMIT = 200;

export type { StepStatus } from '../domain/step-scheduler';
import type { StepStatus } from '../domain/step-scheduler';

export interface StepRecord {
  index: number;
  id: string;
  title: string;
  tool: string | null;
  queue: string;
  status: StepStatus;
  /** The plan version whose run produced the result (earlier than the current one when preserved by a re-plan). */
  completed_in_version?: number;
  result?: StepResult;
  error?: { code: string; type: string; message: string };
  /** While WAITING: what the step waits for a person to send (`completeStep` or `resolveStep`). */
  waiting?: StepWait | null;
  /** The person's reply, accepted by the update and not yet taken by the step. */
  reply?: StepReply;
  /** When the step first started RUNNING and when it ended (COMPLETED, FAILED, CANCELLED), by the workflow's clock. */
  started_at?: string;
  ended_at?: string;
  /** The attempt of the step's activity that completed it (1: Temporal did not retry it); set on completion. */
  attempts?: number;
}

/**
 * A step waiting for a person: a `human` step's question (answered with `completeStep`), or a side-effecting step
 * whose outcome is unknown (PLAN-014; decided with `resolveStep`). After `until` the step fails with PLAN-007.
 */
export interface StepWait {
  /** `approval`: a side-effecting step under `approval: per-step`, decided with `approve`/`reject` naming the step. */
  for: 'answer' | 'decision' | 'approval';
  question: string;
  since: string;
  until: string;
}

export type StepReply = { answer: string } | StepDecision | { approved: boolean; text?: string };

export interface PlanVersionRecord extends PlanVersion {
  /** Why this version was made, in words: the critiques, rejection reason or step failure that led to it. */
  explanation: string;
  created_at: string;
  /** Content address of the LLM conversation that produced it (LLM planner only). */
  transcript_ref?: string;
  /** Literals its steps pass that the goal does not account for (src/domain/grounding.ts `unsaidLiterals`). */
  unsaid?: UnsaidStepLiteral[];
  /** Who made this version, for one a person made (`human_edit`, `rerun`): the identity the message carried. */
  by?: string;
  /** For a version a person made: the JSON Pointers at which it differs from its parent (src/domain/json-patch.ts). */
  json_changes?: string[];
  /** Made for a person's rejection but changing no step: why it cannot honour the reason (it then waits for a person). */
  unhonoured_rejection?: string;
  /** What executing it will cost, p50 and p90, made before a person is asked (src/domain/cost-forecast.ts). */
  forecast?: CostForecast;
}

/**
 * A plan version a person made (editPlan, rerunFrom) or a re-run's input brought, validated and waiting for the
 * PLANNING stage to record it instead of generating one.
 */
export interface GivenPlan {
  plan: Plan;
  reason: 'human_edit' | 'rerun' | 'initial';
  explanation: string;
  by?: string;
  routes: Record<string, ToolRoute>;
}

/** A literal a step passes that the goal does not say: what a step that returns nothing may have filtered by wrongly. */
export interface UnsaidStepLiteral {
  step_id: string;
  param: string;
  value: string;
}

/**
 * A plan version moved out of the state (bounded state): the full record is in the content store under `ref`
 * (read it with `versionOf`, src/api/versions.ts); the state keeps this much.
 */
export interface ArchivedVersion {
  version: number;
  reason: PlanVersionReason;
  ref: string;
  created_at: string;
  /** Status and step count, e.g. "FEASIBLE, 3 step(s)". */
  summary: string;
}

/** A page of archived-version entries, itself stored by reference once the inline list is long. */
export interface ArchivedVersionPage {
  first_version: number;
  last_version: number;
  ref: string;
}

/**
 * The decision an audit entry records, so that readers (`planner audit`) need not parse its message: a person's
 * (`approve`, `reject` of a plan or a step; `edit`; `rerun`; `answer` of a clarification or a human step; `resolve`
 * of an unknown outcome; `raise` of the budget; `by` names them where the client did), the gatekeeper's in its entries
 * (`approve`, `refine`, `reject`), or the run's own (`replan` after a failed step, check or empty answer; `pause` for
 * budget).
 */
export const AUDIT_DECISIONS = [
  'approve',
  'reject',
  'edit',
  'rerun',
  'answer',
  'resolve',
  'raise',
  'refine',
  'replan',
  'pause',
] as const;
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];

export interface AuditEntry {
  at: string;
  kind:
    | 'stage'
    | 'analysis'
    | 'clarification'
    | 'plan'
    | 'critique'
    | 'gatekeeper'
    | 'approval'
    | 'routing'
    | 'step'
    | 'budget'
    | 'message';
  message: string;
  /** Who made the decision the entry records (approve, reject, answer, complete, resolve, raise): the identity the client sent. */
  by?: string;
  /** The decision the entry records, if it records one. */
  decision?: AuditDecision;
  /** Content address of what backs the entry (an LLM conversation, a step result), for `planner` to fetch. */
  ref?: string;
}

export interface PendingQuestion {
  text: string;
  options: string[];
  /** 1-based, as shown to people and accepted by answerClarification. */
  default_option: number;
  asked_at: string;
}

export interface PlanningState {
  workflow_id: string;
  /** The identity of who started the run, as its input said (`started_by`; absent when the client sent none). */
  started_by?: string;
  stage: Stage;
  /** The stage that ran out of budget, while in BUDGET_EXHAUSTED. */
  stage_before_budget: Stage | null;
  request: PlanningRequest;
  options: PlanningOptions;
  /** Which analyzer ran last ('llm' or 'rules', as the analysis result says); decides whether LLM calls are budgeted ahead. */
  analyzer_kind: 'llm' | 'rules' | null;
  /** The run asked for `planner: auto` (absent otherwise and on older runs): when every LLM provider fails, it plans with the ranking planner. */
  planner_auto?: boolean;
  requirements: Requirements | null;
  question: PendingQuestion | null;
  answer: { text: string; by: 'user' | 'timeout' } | null;
  clarifications: { question: string; answer: string; by: 'user' | 'timeout' }[];
  plan_id: string | null;
  plan: Plan | null;
  /** The latest plan versions in full (at most KEEP_VERSIONS on a bounded run); older ones are archived below. */
  versions: PlanVersionRecord[];
  /** Older versions, by reference to the content store (absent on runs started before bounded state). */
  archived_versions?: ArchivedVersion[];
  /** Older archived entries still, in pages stored by reference: the state stays bounded however long the run. */
  archived_version_pages?: ArchivedVersionPage[];
  next_version_reason: { reason: PlanVersionReason; feedback: string[] };
  critiques: Critique[];
  decision: GatekeeperDecision | null;
  /** `edited`: a person edited (or asked to re-run) the plan awaiting approval; the run records the given plan next. */
  approval: { status: 'pending' | 'approved' | 'rejected' | 'edited'; reason?: string; by?: string } | null;
  /** The plan a person made, validated, until PLANNING records it (absent: none). */
  given_plan?: GivenPlan | null;
  /** Who made the latest `human_edit` version: under `four_eyes` that identity may not approve (absent: no edit). */
  last_edited_by?: string;
  /** Per step id, how many times a person asked to run it again: its side effects get a new idempotency scope. */
  rerun_scopes?: Record<string, number>;
  /** The closed run this run re-runs (`planner rerun`), and the step it re-runs from. */
  rerun_of?: { workflow_id: string; from: string };
  /** The latest version a person decided on, kept while the next awaits approval: a late decision on it is refused naming this one (absent on older runs). */
  last_decision?: { version: number; status: 'approved' | 'rejected' | 'edited' };
  routes: Record<string, ToolRoute>;
  route_turns: Record<string, number>;
  routing: (RoutingDecision & { version: number })[];
  steps: StepRecord[];
  /** Results of every completed step of any version, by step key, so a re-plan never runs them again. */
  completed_steps: Record<string, { version: number; result: StepResult }>;
  /** The verifier's verdict on each task whose steps all completed, latest per task (absent on older runs). */
  task_checks?: TaskCheck[];
  budget: ToolBudget;
  /** What the call that ran out of budget needs, while in BUDGET_EXHAUSTED. */
  budget_needed: Usage | null;
  warnings: string[];
  refinements: number;
  replans: number;
  /** The run re-planned once because its answer came back empty on a value the goal does not say (absent: not yet). */
  empty_answer_replanned?: boolean;
  /** Versions a person rejected; the run ends at `options.max_rejections` (absent on older runs: 0). */
  rejections?: number;
  /** A completed run: whether what its last version's steps cost fell within that version's p90 forecast. */
  forecast_outcome?: ForecastOutcome;
  /** The latest audit entries (at most AUDIT_LIMIT on a bounded run): older ones are dropped, counted here. */
  audit: AuditEntry[];
  audit_dropped?: number;
  /** Why the run FAILED: the failure a client sees (type, PLAN code, message, hint). */
  failure: PlanFailure | null;
  continued_as_new: number;
  /** The sequence number of the run's latest progress event (src/api/progress.ts); continue-as-new carries it. */
  progress_seq?: number;
  /**
   * `<namespace>/<first run id>` (a cron run: its own run id): the run chain its side-effecting steps' idempotency
   * keys name (src/workflows/effect-keys.ts); continue-as-new carries it. Absent on runs started before it: their
   * keys name the workflow and step ids alone.
   */
  effect_chain?: string;
}

/** What the workflow returns: the outcome without the full audit. */
export interface PlanningOutcome {
  workflow_id: string;
  stage: Stage;
  plan_version: number | null;
  plan_status: Plan['status'] | null;
  steps: {
    id: string;
    tool: string | null;
    status: StepStatus;
    items: number | null;
    preview: string | null;
    ref: string | null;
  }[];
  budget: ToolBudget;
  warnings: string[];
  failure: PlanFailure | null;
  /** A completed run whose final steps found nothing: what they asked for (src/api/answer.ts); else null. */
  answer_note?: string | null;
  /** A completed run: whether its steps cost within the p90 forecast made before approval; else null. */
  cost_within_p90?: boolean | null;
}
