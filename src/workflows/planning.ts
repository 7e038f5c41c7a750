/**
 * planningWorkflow: carries a goal through the guarded stage machine
 *   CREATED → ANALYZING → (AWAITING_CLARIFICATION) → PLANNING → CRITIQUING → (AWAITING_APPROVAL) → APPROVED →
 *   ROUTED → EXECUTING → COMPLETED, plus FAILED, CANCELLED and BUDGET_EXHAUSTED.
 * Each phase (./phases) runs one stage and returns its transition; PlanningRun (./run) owns the state and applies
 * it. Messages are defined in src/api/messages.ts; every handler delegates to the run.
 */
import { CancellationScope, allHandlersFinished, condition, continueAsNew, isCancellation, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PlanningWorkflowInput } from '../api/input';
import * as messages from '../api/messages';
import type { PlanningOutcome } from '../api/state';
import { isTerminal, type Stage } from '../domain/stages';
import { analyze } from './phases/analyze';
import { awaitApproval } from './phases/approval';
import { awaitBudget } from './phases/budget';
import { awaitClarification } from './phases/clarify';
import { critique } from './phases/critique';
import { execute } from './phases/execute';
import { plan } from './phases/plan';
import { route } from './phases/route';
import { checkAnswer, checkApproval, checkCompletion, checkRaise, checkRejection, checkResolution } from './message-checks';
import { RUN_CHAIN_KEYS_PATCH } from './effect-keys';
import { countPlan, observedStage } from './observability';
import { checkProgressRequest } from './progress';
import { PLAN_ID_PATCH } from './plan-id';
import { PlanningRun } from './run';
import { LEAN_STEPS_PATCH, ONE_PROMISE_PER_STEP_PATCH } from './steps';
import { move, settle, type Transition } from './transitions';
import { MEMO_FROM_START_PATCH } from './visibility';

/**
 * Runs started before this patch call every planning activity through the task queue and publish the search
 * attributes after every charge; newer runs use local activities for deterministic work and publish once per stage.
 */
const LEAN_PLANNING_PATCH = 'local-planning-activities-and-per-stage-visibility';

/** Runs started after this patch keep their state bounded: old plan versions archived, audit trimmed, rejections capped. */
const BOUNDED_STATE_PATCH = 'bounded-state-archived-versions';

/**
 * Runs started after this patch record its one marker instead of one per earlier patch: it implies them all (the three
 * above, plan-id, step-kind, outcome-unknown and auto-fallback), so they are not asked (a history without this marker
 * replays asking them, as recorded). And they publish search attributes only when the run parks (./visibility.ts).
 * LEAN_STEPS_PATCH (./steps.ts) implies it in turn, ONE_PROMISE_PER_STEP_PATCH implies that one,
 * MEMO_FROM_START_PATCH (./visibility.ts) that one and RUN_CHAIN_KEYS_PATCH (./effect-keys.ts) that one: a new run
 * records only the last.
 */
const CONSOLIDATED_PATCH = 'one-marker-for-earlier-patches-and-search-attributes-when-parked';

/**
 * The recorded path a run is on, asked when it starts (runPaths; the patches of single steps and failures are asked
 * where they apply): each flag is a patch its history has, or a newer one that implies it.
 */
export interface RunPaths {
  /** LEAN_PLANNING_PATCH: local activities for deterministic work, search attributes per stage. */
  lean: boolean;
  /** BOUNDED_STATE_PATCH: old versions archived, audit trimmed, rejections capped. */
  bounded: boolean;
  /** PLAN_ID_PATCH (./plan-id.ts): the plan id comes from the first run id, not Math.random. */
  planIdFromRunId: boolean;
  /** CONSOLIDATED_PATCH: every earlier patch applies, and search attributes go out when the run parks. */
  consolidated: boolean;
  /** MEMO_FROM_START_PATCH (./visibility.ts): every earlier patch applies, and a memo the start set stays. */
  memoFromStart: boolean;
  /** RUN_CHAIN_KEYS_PATCH (./effect-keys.ts): every earlier patch applies, and a new run keys its side effects by its chain. */
  effectChain: boolean;
}

/** The run's path: a new run asks only the newest patch, which records its one marker and implies the others. */
function runPaths(): RunPaths {
  const effectChain = patched(RUN_CHAIN_KEYS_PATCH);
  const memoFromStart = effectChain || patched(MEMO_FROM_START_PATCH);
  const consolidated = memoFromStart || patched(ONE_PROMISE_PER_STEP_PATCH) || patched(LEAN_STEPS_PATCH) || patched(CONSOLIDATED_PATCH);
  return {
    lean: consolidated || patched(LEAN_PLANNING_PATCH),
    bounded: consolidated || patched(BOUNDED_STATE_PATCH),
    planIdFromRunId: consolidated || patched(PLAN_ID_PATCH),
    consolidated,
    memoFromStart,
    effectChain,
  };
}

/** The stage graph in one place: the phase that runs each non-terminal stage. */
const PHASES: Record<Exclude<Stage, 'CREATED' | 'COMPLETED' | 'FAILED' | 'CANCELLED'>, (run: PlanningRun) => Promise<Transition>> = {
  ANALYZING: analyze,
  AWAITING_CLARIFICATION: awaitClarification,
  PLANNING: plan,
  CRITIQUING: critique,
  AWAITING_APPROVAL: awaitApproval,
  APPROVED: route,
  ROUTED: async () => move('EXECUTING', 'executing the step DAG'),
  EXECUTING: execute,
  BUDGET_EXHAUSTED: awaitBudget,
};

/** Temporal's suggestion or the run's own event limit: time to continue as new with the run's state. */
function historyIsLong(run: PlanningRun): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > run.state.options.continue_as_new_after_events;
}

export async function planningWorkflow(input: PlanningWorkflowInput): Promise<PlanningOutcome> {
  const run = PlanningRun.of(input, runPaths());
  setHandler(messages.getStateQuery, () => run.state);
  setHandler(messages.answerClarificationUpdate, (a) => run.answer(a), { validator: (a) => void checkAnswer(run.state, a) });
  setHandler(messages.answerClarificationSignal, (a) => run.answerBySignal(a));
  setHandler(messages.approveUpdate, (p) => run.decideApproval(p, 'approved'), { validator: (p) => void checkApproval(run.state, p) });
  setHandler(messages.rejectUpdate, (p) => run.decideApproval(p, 'rejected'), { validator: (p) => void checkRejection(run.state, p) });
  setHandler(messages.raiseBudgetUpdate, (p) => run.raiseBudget(p), { validator: (p) => void checkRaise(run.state, p) });
  setHandler(messages.completeStepUpdate, (p) => run.replyToStep(p, 'answer'), { validator: (p) => void checkCompletion(run.state, p) });
  setHandler(messages.resolveStepUpdate, (p) => run.replyToStep(p, 'decision'), { validator: (p) => void checkResolution(run.state, p) });
  setHandler(messages.getProgressQuery, (p) => run.progress.after(checkProgressRequest(p).after_seq, run.state.stage));
  setHandler(messages.waitForProgressUpdate, (p) => run.progress.waitAfter(p, () => run.state.stage), { validator: (p) => void checkProgressRequest(p) });
  if (!input.resume) run.begin();
  try {
    while (!isTerminal(run.state.stage)) {
      if (historyIsLong(run)) {
        run.progress.close(); // watchers waiting for progress return now, and ask the new run
        await condition(allHandlersFinished);
        run.noteContinuedAsNew();
        return await continueAsNew<typeof planningWorkflow>({ request: input.request, options: run.state.options, resume: run.state });
      }
      run.apply(await observedStage(run, PHASES[run.state.stage as keyof typeof PHASES]));
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await CancellationScope.nonCancellable(async () => run.cancel());
    countPlan(run.state);
    throw err;
  }
  countPlan(run.state);
  if (!allHandlersFinished()) await condition(allHandlersFinished); // a wait only if one is needed: no command either way
  return settle(run.state);
}
