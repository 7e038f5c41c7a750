/**
 * What a run tells operators as it goes, without touching its history: a span per stage (the activities a stage
 * schedules are its children in the run's trace) and the workflow's metrics, both made in the sandbox and handed to
 * the worker through sinks that Temporal skips while replaying — so a replayed run neither re-exports a span nor
 * counts twice, and neither adds a command (no patch needed). With no tracing plugin on the worker the tracer is
 * OpenTelemetry's no-op; with no metrics exporter on the runtime the meter records nowhere.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { metricMeter } from '@temporalio/workflow';
import { WORKFLOW_METRICS } from '../api/metrics';
import type { PlanningState } from '../api/state';
import type { Stage } from '../domain/stages';
import type { PlanningRun } from './run';
import type { Transition } from './transitions';

/** Runs the phase of the run's current stage inside a span `stage <STAGE>`, and counts what the stage led to. */
export function observedStage(run: PlanningRun, phase: (run: PlanningRun) => Promise<Transition>): Promise<Transition> {
  const stage = run.state.stage;
  const started = Date.now(); // the workflow's clock: deterministic
  return trace
    .getTracer('durable-planner')
    .startActiveSpan(`stage ${stage}`, { attributes: { 'planner.stage': stage } }, async (span) => {
      let next: Transition;
      try {
        next = await phase(run);
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message?.slice(0, 500) });
        span.end();
        throw err;
      }
      span.setAttributes({ 'planner.next_stage': next.to, 'planner.plan_version': run.state.plan?.version ?? 0 });
      span.end();
      countStage(run, stage, started, next);
      return next;
    });
}

function countStage(run: PlanningRun, stage: Stage, started: number, next: Transition): void {
  if (stage === 'AWAITING_CLARIFICATION') {
    const by = run.state.clarifications.at(-1)?.by ?? 'user';
    metricMeter
      .createHistogram(
        WORKFLOW_METRICS.clarificationWait,
        'int',
        'ms',
        'time a question waited for its answer (or its default)',
      )
      .record(Date.now() - started, { by });
  }
  if (next.to === 'BUDGET_EXHAUSTED')
    metricMeter.createCounter(WORKFLOW_METRICS.budgetPauses, 'pauses', 'runs paused for budget').add(1, { stage });
}

/** A run that ended: counted by its final stage (COMPLETED, FAILED, CANCELLED). */
export function countPlan(state: PlanningState): void {
  const outcome: Stage = state.stage;
  metricMeter
    .createCounter(WORKFLOW_METRICS.plans, 'runs', 'planning runs ended, by outcome')
    .add(1, { outcome, code: state.failure?.code ?? '' });
}

/** A step that failed (its last attempt), by tool (an llm or human step: its kind) and PLAN code. */
export function countStepFailure(tool: string, code: string): void {
  metricMeter
    .createCounter(WORKFLOW_METRICS.stepFailures, 'steps', 'plan steps failed, by tool')
    .add(1, { tool, code });
}
