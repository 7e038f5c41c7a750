/**
 * A run's answer is the data of its final steps (those no other step reads). When every final step returned no rows,
 * "COMPLETED" alone would read as an answer: once, if a step passed a value the goal does not say and came back
 * empty, the run re-plans with that named (`emptyAnswerFeedback`); and the note says what was asked and that nothing
 * matched (`emptyAnswerNote`), so a user sees the filters applied instead of trusting an empty list silently.
 */
import { flattenSteps, type Step } from '../domain/plan';
import { scanTemplates } from '../domain/templates';
import type { PlanningOutcome, PlanningState, StepRecord } from './state';

type AnswerView = Pick<PlanningState, 'plan' | 'steps'>;

/** The final tool steps when every one of them completed with no rows; null when the answer has data (or none yet). */
function emptyFinalSteps(
  state: AnswerView,
): { steps: Step[]; finals: Step[]; records: Map<string, StepRecord> } | null {
  if (!state.plan) return null;
  const steps = flattenSteps(state.plan);
  const read = new Set(steps.flatMap((s) => s.depends_on));
  const records = new Map(state.steps.map((r) => [r.id, r]));
  const finals = steps.filter((step, i) => !read.has(i) && step.action === 'tool_call');
  if (
    finals.length === 0 ||
    !finals.every((step) => records.get(step.id)?.status === 'COMPLETED' && records.get(step.id)!.result?.items === 0)
  )
    return null;
  return { steps, finals, records };
}

/** "Nothing matched: step 1.2 (shipments) with status=rejected, facility_id from step 1.1 (2 rows)…", or null. */
export function emptyAnswerNote(state: AnswerView & Pick<PlanningState, 'stage'>): string | null {
  const empty = state.stage === 'COMPLETED' ? emptyFinalSteps(state) : null;
  if (!empty) return null;
  const { steps, finals, records } = empty;
  const described = finals.map((step) => {
    const filters = Object.entries(step.params).map(([param, value]) => {
      const refs = scanTemplates(value).refs;
      if (refs.length === 0) return `${param}=${JSON.stringify(value)}`;
      const source = steps[refs[0]!.step];
      const items = source ? records.get(source.id)?.result?.items : undefined;
      return `${param} from step ${source?.id ?? refs[0]!.step}${items === undefined || items === null ? '' : ` (${items} row${items === 1 ? '' : 's'})`}`;
    });
    return `step ${step.id} (${step.tool})${filters.length ? ` with ${filters.join(', ')}` : ''}`;
  });
  return `Nothing matched: ${described.join('; ')} returned no rows.`;
}

/**
 * Why an empty answer is suspicious, as re-planning feedback: the steps that returned no rows while passing a value
 * the goal does not say (the plan version's `unsaid` literals). Empty when the answer has data, or when every value of
 * the empty steps came from the goal: then nothing matched what the user asked, and that is the answer.
 */
export function emptyAnswerFeedback(state: AnswerView & Pick<PlanningState, 'versions'>): string[] {
  const empty = emptyFinalSteps(state);
  const unsaid = state.versions.at(-1)?.unsaid ?? [];
  if (!empty || unsaid.length === 0) return [];
  return [...empty.records.values()]
    .filter((r) => r.status === 'COMPLETED' && r.result?.items === 0)
    .flatMap((r) => {
      const guesses = unsaid.filter((u) => u.step_id === r.id);
      if (guesses.length === 0) return [];
      const values = guesses.map((u) => `${u.param}=${JSON.stringify(u.value)}`).join(', ');
      return [
        `step ${r.id} (${r.tool}) returned no rows with ${values}, which the goal does not say: use the goal's own words or a broader value, drop the filter, or look the value up in an earlier step's data`,
      ];
    });
}

/** What the workflow returns: the outcome without the full audit, with the note of an empty answer. */
export function outcomeOf(state: PlanningState): PlanningOutcome {
  return {
    workflow_id: state.workflow_id,
    stage: state.stage,
    plan_version: state.plan?.version ?? null,
    plan_status: state.plan?.status ?? null,
    steps: state.steps.map((s) => ({
      id: s.id,
      tool: s.tool,
      status: s.status,
      items: s.result?.items ?? null,
      preview: s.result?.preview ?? null,
      ref: s.result?.ref ?? null,
    })),
    budget: state.budget,
    warnings: state.warnings,
    failure: state.failure,
    answer_note: emptyAnswerNote(state),
    cost_within_p90: state.forecast_outcome?.within_p90 ?? null,
  };
}
