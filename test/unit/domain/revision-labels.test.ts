/**
 * withLabelsOfDraft: a revision the model wrote without `task` labels takes them from the draft it revises, step by
 * step, by what each step calls and reads. On the waste catalog and on a lending library the rule was not written for.
 */
import type { PlanDraft } from '../../../src/domain/plan-draft';
import { withLabelsOfDraft } from '../../../src/domain/revision-labels';

type Step = PlanDraft['steps'][number];

const step = (tool: string, params: Record<string, unknown> = {}, depends_on: number[] = [], task?: string): Step => ({
  title: tool,
  tool,
  params,
  depends_on,
  ...(task === undefined ? {} : { task }),
});
const draft = (...steps: Step[]): PlanDraft => ({ status: 'FEASIBLE', missing_capabilities: [], steps });
const labelsOf = (revision: PlanDraft, reviewed: PlanDraft) =>
  withLabelsOfDraft(revision, reviewed).steps.map((s) => s.task);

const LAST_WEEK = { since: '2026-11-16', until: '2026-11-22' };
const THIS_WEEK = { since: '2026-11-23', until: '2026-11-23' };

describe('withLabelsOfDraft', () => {
  test('of two draft steps of one tool, each revised step takes the label of the one whose params it shares', () => {
    const reviewed = draft(
      step('loans', { status: 'overdue', ...LAST_WEEK }, [], 'Overdue loans of last week'),
      step('loans', { status: 'overdue', ...THIS_WEEK }, [], 'Of this week'),
    );
    // The model swapped them and added a filter: the dates still say which is which.
    const revision = draft(
      step('loans', { status: 'overdue', ...THIS_WEEK, member_id: 'M-1' }),
      step('loans', { status: 'overdue', ...LAST_WEEK }),
    );
    expect(labelsOf(revision, reviewed)).toEqual(['Of this week', 'Overdue loans of last week']);
  });

  test('two revised steps equally like two draft steps of their tool take one each, in order', () => {
    const reviewed = draft(
      step('loans', { ...LAST_WEEK }, [], 'Loans of last week'),
      step('loans', { ...THIS_WEEK }, [], 'Loans of this week'),
    );
    const revision = draft(step('loans', { since: '2026-11-01' }), step('loans', { since: '2026-11-02' }));
    expect(labelsOf(revision, reviewed)).toEqual(['Loans of last week', 'Loans of this week']);
  });

  test('a step with no counterpart joins the part of the step it reads; of several, the part the draft puts last', () => {
    const reviewed = draft(
      step('shipments', { has_contaminants: true }, [], 'Contaminated shipments'),
      step('contaminants-detected', { shipment_ids: '${step[0].data.*.id}' }, [0], 'Their contaminants'),
    );
    const revision = draft(
      step('shipments', { has_contaminants: true }),
      step('contaminants-detected', { shipment_ids: '${step[0].data.*.id}' }, [0]),
      // Reads both parts: depends_on names one, a template the other.
      step('inspections', { shipment_ids: '${step[0].data.*.id}', status: '${step[1].data[0].risk_level}' }, [0]),
      step('facilities', { type: 'landfill' }, [2]),
    );
    expect(labelsOf(revision, reviewed)).toEqual([
      'Contaminated shipments',
      'Their contaminants',
      'Their contaminants',
      'Their contaminants',
    ]);
  });

  test('a lookup the model added joins the part of the step that reads it; with neither, a step joins the first part', () => {
    const reviewed = draft(
      step('books', { genre: 'history' }, [], 'The history books'),
      step('loans', { status: 'overdue' }, [], 'The overdue loans'),
    );
    const revision = draft(
      step('members', { city: 'Leipzig' }),
      step('books', { genre: 'history' }),
      step('loans', { status: 'overdue', member_id: '${step[0].data.*.id}' }, [0]),
      step('notes', { text: 'x' }),
    );
    expect(labelsOf(revision, reviewed)).toEqual([
      'The overdue loans',
      'The history books',
      'The overdue loans',
      'The history books',
    ]);
  });

  test('a step of the same tool that shares no param with the draft step is no counterpart', () => {
    const reviewed = draft(
      step('books', { genre: 'history' }, [], 'The history books'),
      step('loans', { status: 'overdue' }, [0], 'The overdue loans'),
    );
    const revision = draft(step('loans', { status: 'overdue' }), step('books', { author: 'Ada' }, [0]));
    expect(labelsOf(revision, reviewed)).toEqual(['The overdue loans', 'The overdue loans']);
  });

  test("the model's own labels stand, and a draft of one task (no labels) labels nothing", () => {
    const reviewed = draft(step('books', {}, [], 'Books'), step('loans', {}, [], 'Loans'));
    const own = draft(step('books', {}, [], 'My part'), step('loans'));
    expect(withLabelsOfDraft(own, reviewed)).toBe(own);
    const single = draft(step('books'), step('loans'));
    expect(withLabelsOfDraft(draft(step('books')), single).steps[0]!.task).toBeUndefined();
  });
});
