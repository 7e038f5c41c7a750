/**
 * PlanningRun: the one owner of a run's state (continue-as-new carries it). Phases and message handlers read `state`
 * and change it only through these methods; `apply` is the one way a stage changes (checked, audited, published).
 */
import { workflowInfo } from '@temporalio/workflow';
import type { PlanningWorkflowInput } from '../api/input';
import {
  AUDIT_LIMIT,
  type ArchivedVersion,
  type ArchivedVersionPage,
  type AuditEntry,
  type PendingQuestion,
  type PlanningState,
  type PlanVersionRecord,
  type StepRecord,
} from '../api/state';
import { addUsage, charge, withinLimits, type ToolBudget, type Usage } from '../domain/budget';
import type { CostForecast, ForecastOutcome } from '../domain/cost-forecast';
import type { TaskCheck } from '../domain/acceptance';
import type { Critique, GatekeeperDecision } from '../domain/critique';
import type { Requirements } from '../domain/requirements';
import type { RoutingDecision, ToolRoute } from '../domain/routing';
import type { StepResult } from '../domain/step-execution';
import { redactSecrets } from '../domain/secrets';
import { effectChainOfNewRun } from './effect-keys';
import { initialState, nowIso } from './initial-state';
import { newPlanId } from './plan-id';
import { answerTaken } from './phases/clarify';
import { approvalDecided, checkAnswer, checkCompletion, checkRaise, checkResolution } from './message-checks';
import { checkedTransition, decisionOfMove, type Transition } from './transitions';
import { resumedState } from './resume';
import { ProgressLog } from './progress';
import { RunView, waitsIn, type Shown } from './visibility';

export class PlanningRun {
  private constructor(
    readonly state: PlanningState,
    readonly progress = new ProgressLog(state),
    private readonly view = new RunView(progress),
  ) {}

  /** A new run from its input, or the run continue-as-new carried (checked); malformed input fails the run at once. */
  static of(input: PlanningWorkflowInput): PlanningRun {
    return new PlanningRun(
      resumedState(input) ?? initialState(input, workflowInfo().workflowId, effectChainOfNewRun()),
    );
  }

  /** Whether work may call an LLM: decides budgeting ahead and whether planning runs as local activities. */
  get mayCallLlm(): boolean {
    return this.state.analyzer_kind !== 'rules' && this.state.request.planner !== 'ranking';
  }

  /** Memo, goal keywords and the first stage: once, when a new run starts. */
  begin(): void {
    this.view.publishGoal(this.state);
    this.apply({ to: 'ANALYZING', why: 'run started' });
  }

  /** The one way stages change: checked by the domain's transition table, audited and published. */
  apply(t: Transition): void {
    const state = this.state;
    if (t.to === 'BUDGET_EXHAUSTED') Object.assign(state, { stage_before_budget: state.stage, budget_needed: t.needs });
    const next = checkedTransition(state.stage, t.to, state.stage_before_budget ?? undefined);
    if (state.stage === 'BUDGET_EXHAUSTED') Object.assign(state, { stage_before_budget: null, budget_needed: null });
    if (t.to === 'FAILED') state.failure = t.failure;
    const why = t.to === 'FAILED' ? t.failure.message : t.why;
    this.audit('stage', `${state.stage} → ${next}: ${why}`, { decision: decisionOfMove(state.stage, next) });
    state.stage = next;
    this.changed();
    if (waitsIn(next, this.mayCallLlm)) this.park();
  }

  /** Cancellation through Temporal: unfinished steps are cancelled and the run ends CANCELLED. */
  cancel(): void {
    for (const s of this.state.steps)
      if (s.status === 'RUNNING' || s.status === 'WAITING' || s.status === 'PENDING')
        timeStep(Object.assign(s, { status: 'CANCELLED' as const }));
    this.audit('stage', `${this.state.stage} → CANCELLED: cancelled through Temporal`);
    this.state.stage = 'CANCELLED';
    this.changed();
    this.park();
  }

  noteContinuedAsNew(): void {
    this.state.continued_as_new += 1;
    this.audit('stage', `continued as new after ${workflowInfo().historyLength} history events`);
    this.park();
  }

  charge(usage: Usage, what: string, { shown = 'now' }: { shown?: Shown } = {}): void {
    if (usage.calls === 0 && usage.tokens === 0 && usage.cost_usd === 0) return;
    this.state.budget = charge(this.state.budget, usage);
    this.audit('budget', `${what}: ${usage.calls} call(s), ${usage.tokens} tokens, $${usage.cost_usd.toFixed(6)}`);
    if (!withinLimits(this.state.budget) && this.state.budget.policy === 'warn')
      this.warn(`budget exceeded after ${what} (policy warn: continuing)`);
    this.changed({ shown });
  }

  answer(payload: unknown): string {
    const checked = checkAnswer(this.state, payload);
    const text = redactSecrets(checked.text);
    this.state.answer = { text, by: 'user' };
    const by = checked.by ? ` (by ${checked.by})` : '';
    this.audit('message', `clarification answered: ${text}${by}`, { by: checked.by, decision: 'answer' });
    return text;
  }

  /** Signals cannot be refused: a bad one is audited and ignored. */
  answerBySignal(payload: unknown): void {
    try {
      this.answer(payload);
    } catch (err) {
      this.audit('message', `ignored answerClarification signal: ${(err as Error).message}`);
    }
  }

  /** `approve` and `reject`: the decision the plan waits for. */
  decideApproval(payload: unknown, status: 'approved' | 'rejected'): string {
    const { decided, note, reply, by, step } = approvalDecided(this.state, payload, status);
    if (step)
      this.state.steps[step.index]!.reply = step.reply; // the waiting step takes it (./steps)
    else Object.assign(this.state, decided);
    this.audit('approval', note, { by, decision: status === 'approved' ? 'approve' : 'reject' });
    return reply;
  }

  /** A person's plan (editPlan, rerunFrom) given, or recorded by PLANNING: ./plan-edits.ts says what changes. */
  givePlan(changes: Partial<PlanningState>, note: string, also: Pick<AuditEntry, 'by' | 'decision'>): void {
    Object.assign(this.state, changes);
    this.audit('plan', note, also);
    this.changed();
  }

  raiseBudget(payload: unknown): ToolBudget {
    const { note, ...raise } = checkRaise(this.state, payload);
    this.state.budget = { ...this.state.budget, limit: addUsage(this.state.budget.limit, raise) };
    this.audit('budget', note, { by: raise.identity, decision: 'raise' });
    this.changed();
    return this.state.budget;
  }

  // ---- records of the phases ------------------------------------------------------------------------------------

  /** The analysis, and the question it asks when the goal is unclear. */
  recordAnalysis(
    kind: 'llm' | 'rules',
    requirements: Requirements,
    ref: string | undefined,
    question: PendingQuestion | null,
  ): void {
    this.state.analyzer_kind = kind;
    if (this.state.request.planner === 'auto')
      Object.assign(this.state, {
        planner_auto: true,
        request: { ...this.state.request, planner: kind === 'llm' ? 'llm' : 'ranking' },
      });
    this.state.requirements = requirements;
    this.state.question = question;
    const { intent, steps, is_clear } = requirements;
    const what = `intent ${intent.type} (${intent.confidence}); ${steps.length} requirement step(s); clear: ${is_clear}`;
    this.audit('analysis', `planner ${this.state.request.planner}; ${what}`, { ref });
  }

  /** Under `planner: auto`, every LLM provider failed: the run plans with the ranking planner from now on. */
  planWithRanking(why: string): void {
    this.state.request = { ...this.state.request, planner: 'ranking' };
    this.audit('plan', why);
  }

  /** The pending question's answer (or its default) joins the conversation the next analysis reads. */
  takeAnswer(): void {
    const { clarification, request, note } = answerTaken(this.state);
    this.state.clarifications.push(clarification);
    this.state.request = request;
    this.audit('clarification', note);
    this.state.question = this.state.answer = null;
  }

  /** The plan id of every version of this run, made once (./plan-id). */
  planId(): string {
    return (this.state.plan_id ??= newPlanId());
  }

  recordPlan(version: PlanVersionRecord): void {
    this.state.versions.push(version);
    this.state.plan = version.plan;
  }

  /** Bounded state: an old version leaves for the content store, its summary and ref stay; then whole pages of those. */
  archive(entry: ArchivedVersion | ArchivedVersionPage): void {
    const { state } = this;
    if ('last_version' in entry) {
      state.archived_versions = (state.archived_versions ?? []).filter((v) => v.version > entry.last_version);
      (state.archived_version_pages ??= []).push(entry);
    } else {
      state.versions = state.versions.filter((v) => v.version !== entry.version);
      (state.archived_versions ??= []).push(entry);
    }
  }

  /** The plan's cost forecast, on its version's record, or how the completed version's cost compared (./forecast). */
  recordForecast(change: { forecast: CostForecast } | { outcome: ForecastOutcome }, note: string): void {
    if ('forecast' in change) this.state.versions[this.state.versions.length - 1]!.forecast = change.forecast;
    else this.state.forecast_outcome = change.outcome;
    this.audit('plan', note);
  }

  addRoutes(routes: Record<string, ToolRoute>): void {
    this.state.routes = { ...this.state.routes, ...routes };
  }

  recordCritiques(critiques: Critique[], ref?: string): void {
    this.state.critiques = critiques;
    const found = critiques.map((c) => `[${c.severity}] ${c.critic}: ${c.message}`).join('; ') || 'none';
    this.audit('critique', `${critiques.length} critique(s): ${found}`, { ref });
  }

  recordDecision(decision: GatekeeperDecision): void {
    this.state.decision = decision;
    this.audit('gatekeeper', `${decision.decision}: ${decision.reason}`, { decision: decision.decision });
  }

  /** The next version is planned for `reason`, with the feedback that explains it (`emptyAnswer`: the run's one such re-plan). */
  requestVersion(
    reason: 'refinement' | 'human_rejection' | 'replan_after_failure',
    feedback: string[],
    { emptyAnswer = false } = {},
  ): void {
    if (emptyAnswer) this.state.empty_answer_replanned = true;
    if (reason === 'refinement') this.state.refinements += 1;
    if (reason === 'replan_after_failure') this.state.replans += 1;
    if (reason === 'human_rejection') this.state.rejections = (this.state.rejections ?? 0) + 1;
    this.state.next_version_reason = { reason, feedback };
  }

  awaitApproval(): void {
    this.state.approval = { status: 'pending' };
  }

  recordRouting(steps: StepRecord[], decisions: RoutingDecision[], turns: Record<string, number>): void {
    this.state.route_turns = turns;
    this.state.routing.push(...decisions.map((d) => ({ ...d, version: this.state.plan!.version })));
    for (const d of decisions) this.audit('routing', `step ${d.step_id} → ${d.queue}: ${d.reason}`);
    this.state.steps = steps;
  }

  /** A step's status and what goes with it: its error, what it waits for, the reply it took (stepCompleted: results). */
  setStep(
    index: number,
    change: Pick<StepRecord, 'status'> & Partial<Pick<StepRecord, 'error' | 'waiting' | 'reply'>>,
  ): void {
    timeStep(Object.assign(this.state.steps[index]!, change));
    this.changed({ shown: 'when-parked' });
  }

  /** `completeStep` and `resolveStep`: the reply waits in the step's record until the waiting step takes it. */
  replyToStep(payload: unknown, kind: 'answer' | 'decision'): string {
    const { index, reply, note, by } =
      kind === 'answer' ? checkCompletion(this.state, payload) : checkResolution(this.state, payload);
    this.state.steps[index]!.reply = reply;
    this.audit('message', `${note}${by ? ` (by ${by})` : ''}`, { by, decision: kind === 'answer' ? kind : 'resolve' });
    return note;
  }

  stepCompleted(index: number, key: string, result: StepResult): void {
    const version = this.state.plan!.version;
    const attempts = result.attempts === undefined ? {} : { attempts: result.attempts }; // the activity attempt that completed it
    const completed = { status: 'COMPLETED' as const, result, completed_in_version: version, ...attempts };
    timeStep(Object.assign(this.state.steps[index]!, completed));
    this.state.completed_steps[key] = { version, result };
    this.changed({ shown: 'when-parked' });
  }

  /** The verifier's verdict on a task; a failed one forgets its steps' results (`keys`), so they run again. */
  recordTaskCheck(check: TaskCheck, keys: string[]): void {
    this.state.task_checks = [...(this.state.task_checks ?? []).filter((c) => c.task !== check.task), check];
    if (!check.passed) for (const key of keys) delete this.state.completed_steps[key];
    this.audit('step', `task ${check.task}: ${check.results.map((r) => `${r.id} ${r.passed ? 'met' : 'FAILED'}`)}`);
    this.changed({ shown: 'when-parked' });
  }

  /** An audit entry; `by`: who made the `decision` it records (the identity the message carried). */
  audit(kind: AuditEntry['kind'], message: string, also: Pick<AuditEntry, 'ref' | 'by' | 'decision'> = {}): void {
    const { state } = this;
    const { ref, by, decision } = also;
    state.audit.push({ at: nowIso(), kind, message, ...(ref ? { ref } : {}), ...(by !== undefined ? { by } : {}) });
    if (decision) state.audit.at(-1)!.decision = decision;
    if (state.audit.length <= AUDIT_LIMIT) return;
    state.audit_dropped = (state.audit_dropped ?? 0) + state.audit.splice(0, state.audit.length - AUDIT_LIMIT).length;
  }

  /** A change: `shown` now or when the run parks (RunView); search attributes go out when the run parks. */
  private changed({ shown = 'now' }: { shown?: Shown } = {}): void {
    this.view.changed();
    if (shown === 'now') this.show();
  }

  /** Progress events and the Web UI's details, if anything changed since they were last shown (no command). */
  show(): void {
    if (this.view.show(this.state)) this.state.progress_seq = this.progress.lastSeq;
  }

  /** The run is about to wait: what changed is shown, and the search attributes that changed. */
  park(): void {
    this.show();
    this.view.park(this.state);
  }

  warn(message: string): void {
    this.state.warnings.push(message);
  }
}

/** A step's times by the workflow's clock: started when it first runs, ended when it completes, fails or is cancelled. */
const timeStep = (s: StepRecord): void =>
  void (s.status === 'RUNNING'
    ? (s.started_at ??= nowIso())
    : ['COMPLETED', 'FAILED', 'CANCELLED'].includes(s.status) && (s.ended_at = nowIso()));
