/**
 * What the Web UI and `planner list` see of a run: the memo, the goal's keywords and the stage, plan version and
 * spend as search attributes, and the markdown plan view as the run's current details. Reads the state; never
 * changes it.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setCurrentDetails, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  goalKeywords,
  PlanCostSpentKey,
  PlanGoalKeywordsKey,
  PlanStageKey,
  PlanTokensSpentKey,
  PlanVersionKey,
} from '../api/search-attributes';
import type { PlanningState } from '../api/state';
import { isTerminal, type Stage } from '../domain/stages';
import { planDetails } from './details';
import type { ProgressLog } from './progress';

/**
 * The memo, unless the start set the goal there as the run reads it (PlannerClient.start does; a start without it, or
 * with another goal there, gets the run's own: each memo update is one more visibility write on the server), and the
 * goal's keywords, with the first search attributes the run publishes.
 */
function publishGoal(state: PlanningState, parked: ParkedSearchAttributes): void {
  if (workflowInfo().memo?.goal !== state.request.goal) upsertMemo({ goal: state.request.goal });
  if (state.options.search_attributes)
    parked.add({ key: PlanGoalKeywordsKey, value: goalKeywords(state.request.goal) });
}

/** When watchers see a change (progress events, current details): at once, or (a step's) when the run next parks. */
export type Shown = 'now' | 'when-parked';

/**
 * When watchers see a run's changes. Progress events (ProgressLog) and the current details (held by the worker, read
 * by the Web UI through the metadata query: no command, no history) follow a change at once, or, for a step's changes
 * (several per step, most of a run's), when the run next parks. It parks before every wait, and nobody sees a run
 * between its waits (queries and updates come between workflow activations), so nothing shows later, at a fraction
 * of the work. Search attributes: those that changed, when the run parks (ParkedSearchAttributes; an upsert is a
 * command).
 */
export class RunView {
  private readonly parked = new ParkedSearchAttributes();
  private unshown = false;

  constructor(private readonly progress: ProgressLog) {}

  publishGoal(state: PlanningState): void {
    publishGoal(state, this.parked);
  }

  /** A change, shown by the next `show`. */
  changed(): void {
    this.unshown = true;
  }

  /** Whether anything changed since last shown; if so, the progress log has observed it and the details show it. */
  show(state: PlanningState): boolean {
    if (!this.unshown) return false;
    this.unshown = false;
    this.progress.observe(state);
    setCurrentDetails(planDetails(state));
    return true;
  }

  park(state: PlanningState): void {
    this.parked.publish(state);
  }
}

function searchAttributesOf(state: PlanningState): SearchAttributeUpdatePair[] {
  return [
    { key: PlanStageKey, value: state.stage },
    { key: PlanVersionKey, value: state.plan?.version ?? 0 },
    { key: PlanCostSpentKey, value: state.budget.spent.cost_usd },
    { key: PlanTokensSpentKey, value: state.budget.spent.tokens },
  ];
}

/**
 * Search attributes published only when the run parks (waits for an activity, a message or a timer, or ends), and
 * only the keys whose values changed since the last upsert. The server applies a workflow task's commands when the
 * task completes, so the stages a run passes through inside one task (local activities keep it open) were never
 * seen by anyone: one upsert where the run waits shows all anyone could have seen, at a fraction of the events.
 */
export class ParkedSearchAttributes {
  private readonly published = new Map<string, unknown>();
  private pending: SearchAttributeUpdatePair[] = [];

  /** A value to publish with the next upsert, whatever else changed. */
  add(pair: SearchAttributeUpdatePair): void {
    this.pending.push(pair);
  }

  publish(state: PlanningState): void {
    if (!state.options.search_attributes) return;
    const changed = [
      ...this.pending,
      ...searchAttributesOf(state).filter(({ key, value }) => this.published.get(key.name) !== value),
    ];
    this.pending = [];
    if (changed.length === 0) return;
    for (const { key, value } of changed) this.published.set(key.name, value);
    upsertSearchAttributes(changed);
  }
}

/**
 * Whether a run that enters `stage` waits there for something outside its workflow task: a message or a timer, its
 * steps, an LLM call (a regular activity; deterministic planning work runs as local activities), or its end.
 * APPROVED and ROUTED pass at once; EXECUTING parks before each wait for its steps (phases/execute.ts).
 */
export function waitsIn(stage: Stage, mayCallLlm: boolean): boolean {
  if (
    stage === 'AWAITING_CLARIFICATION' ||
    stage === 'AWAITING_APPROVAL' ||
    stage === 'BUDGET_EXHAUSTED' ||
    isTerminal(stage)
  )
    return true;
  return mayCallLlm && (stage === 'ANALYZING' || stage === 'PLANNING' || stage === 'CRITIQUING');
}
