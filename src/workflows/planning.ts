/**
 * planningWorkflow: carries a goal through the guarded stage machine
 *   CREATED → ANALYZING → (AWAITING_CLARIFICATION) → PLANNING → CRITIQUING → (AWAITING_APPROVAL) → APPROVED →
 *   ROUTED → EXECUTING → COMPLETED, plus FAILED, CANCELLED and BUDGET_EXHAUSTED.
 * Each phase (./phases) runs one stage and returns its transition; PlanningRun (./run) owns the state and applies
 * it. Messages are defined in src/api/messages.ts; every handler delegates to the run.
 */
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
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
import {
  checkAnswer,
  checkApproval,
  checkCompletion,
  checkRaise,
  checkRejection,
  checkResolution,
} from './message-checks';
import { countPlan, observedStage } from './observability';
import { checkEdit, checkRerun, editPlan, rerunFrom } from './plan-edits';
import { checkProgressRequest } from './progress';
import { PlanningRun } from './run';
import { move, settle, type Transition } from './transitions';

/** The stage graph in one place: the phase that runs each non-terminal stage. */
const PHASES: Record<
  Exclude<Stage, 'CREATED' | 'COMPLETED' | 'FAILED' | 'CANCELLED'>,
  (run: PlanningRun) => Promise<Transition>
> = {
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

/**
 * Continue-as-new onto the deployment's current version: a run is pinned to the worker version that started it
 * (PINNED, src/worker.ts) until its history grows long; its next run starts on the version new runs land on, with
 * its state (docs/contributing.md, How to ship a workflow change).
 */
function continueOnCurrentVersion(next: PlanningWorkflowInput): Promise<never> {
  return makeContinueAsNewFunc<typeof planningWorkflow>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(next);
}

/** Temporal's suggestion or the run's own event limit: time to continue as new with the run's state. */
function historyIsLong(run: PlanningRun): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > run.state.options.continue_as_new_after_events;
}

export async function planningWorkflow(input: PlanningWorkflowInput): Promise<PlanningOutcome> {
  const run = PlanningRun.of(input);
  setHandler(messages.getStateQuery, () => run.state);
  setHandler(messages.answerClarificationUpdate, (a) => run.answer(a), {
    validator: (a) => void checkAnswer(run.state, a),
  });
  setHandler(messages.answerClarificationSignal, (a) => run.answerBySignal(a));
  setHandler(messages.approveUpdate, (p) => run.decideApproval(p, 'approved'), {
    validator: (p) => void checkApproval(run.state, p),
  });
  setHandler(messages.rejectUpdate, (p) => run.decideApproval(p, 'rejected'), {
    validator: (p) => void checkRejection(run.state, p),
  });
  setHandler(messages.raiseBudgetUpdate, (p) => run.raiseBudget(p), {
    validator: (p) => void checkRaise(run.state, p),
  });
  setHandler(messages.completeStepUpdate, (p) => run.replyToStep(p, 'answer'), {
    validator: (p) => void checkCompletion(run.state, p),
  });
  setHandler(messages.resolveStepUpdate, (p) => run.replyToStep(p, 'decision'), {
    validator: (p) => void checkResolution(run.state, p),
  });
  setHandler(messages.editPlanUpdate, (p) => editPlan(run, p), { validator: (p) => void checkEdit(run.state, p) });
  setHandler(messages.rerunFromUpdate, (p) => rerunFrom(run, p), { validator: (p) => void checkRerun(run.state, p) });
  setHandler(messages.getProgressQuery, (p) => run.progress.after(checkProgressRequest(p).after_seq, run.state.stage));
  setHandler(messages.waitForProgressUpdate, (p) => run.progress.waitAfter(p, () => run.state.stage), {
    validator: (p) => run.progress.checkWait(p),
  });
  if (!input.resume) run.begin();
  try {
    while (!isTerminal(run.state.stage)) {
      if (historyIsLong(run)) {
        run.progress.close(); // watchers waiting for progress return now, and ask the new run
        await condition(allHandlersFinished);
        run.noteContinuedAsNew();
        return await continueOnCurrentVersion({
          request: input.request,
          options: run.state.options,
          resume: run.state,
        });
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
