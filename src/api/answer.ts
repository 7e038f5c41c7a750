/**
 * A run's answer is the data of its final steps (those no other step reads). When a run completes and every final
 * step returned no rows, "COMPLETED" alone would read as an answer: the note says what was asked and that nothing
 * matched, so a user sees the filters applied instead of trusting an empty list (or a wrong filter) silently.
 */
import { flattenSteps } from '../domain/plan';
import { scanTemplates } from '../domain/templates';
import type { PlanningState } from './state';

/** "Nothing matched: step 1.2 (shipments) with status=rejected, facility_id from step 1.1 (2 rows)…", or null. */
export function emptyAnswerNote(state: Pick<PlanningState, 'stage' | 'plan' | 'steps'>): string | null {
  if (state.stage !== 'COMPLETED' || !state.plan) return null;
  const steps = flattenSteps(state.plan);
  const read = new Set(steps.flatMap((s) => s.depends_on));
  const records = new Map(state.steps.map((r) => [r.id, r]));
  const finals = steps.map((step, i) => ({ step, i, record: records.get(step.id) })).filter(({ i, step }) => !read.has(i) && step.action === 'tool_call');
  if (finals.length === 0 || !finals.every(({ record }) => record?.status === 'COMPLETED' && record.result?.items === 0)) return null;
  const described = finals.map(({ step }) => {
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
