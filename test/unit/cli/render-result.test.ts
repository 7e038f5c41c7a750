import { emptyAnswerNote, type PlanningState } from '../../../src/api';
import { resultSourcesOfState } from '../../../src/cli/json-views';
import { renderData, renderResult } from '../../../src/cli/render';
import { rankingPlan } from '../../support/planning';

describe('which steps planner result reads', () => {
  test('the final steps are those no step depends on; small data comes inline, the rest by ref', () => {
    const plan = rankingPlan('Get contaminated shipments from last week and show me the contaminant details');
    const [first, second] = plan.tasks.flatMap((t) => t.steps);
    expect(second!.depends_on).toEqual([0]);
    const ref = (c: string) => `sha256:${c.repeat(64)}`;
    const state = {
      plan,
      steps: [
        {
          index: 0,
          id: first!.id,
          title: '',
          tool: first!.tool,
          queue: 'q',
          status: 'COMPLETED',
          result: { ref: ref('a'), bytes: 9, items: 1, preview: '', data: [{ id: 'SHP-1' }] },
        },
        {
          index: 1,
          id: second!.id,
          title: '',
          tool: second!.tool,
          queue: 'q',
          status: 'COMPLETED',
          result: { ref: ref('b'), bytes: 9000, items: 40, preview: '' },
        },
      ],
    } as unknown as PlanningState;
    expect(resultSourcesOfState(state)).toEqual([
      {
        number: 1,
        id: first!.id,
        tool: 'shipments',
        status: 'COMPLETED',
        items: 1,
        ref: ref('a'),
        inline: [{ id: 'SHP-1' }],
        final: false,
      },
      {
        number: 2,
        id: second!.id,
        tool: 'contaminants-detected',
        status: 'COMPLETED',
        items: 40,
        ref: ref('b'),
        final: true,
      },
    ]);
  });
});

describe('planner result rendering', () => {
  test('rows become a table: a column per key (first-seen order), every row, values as text or JSON', () => {
    const lines = renderData([
      { id: 'SHP-1', weight_kg: 1200.5, tags: ['a'] },
      { id: 'SHP-22', weight_kg: 3, extra: null },
    ]);
    expect(lines).toEqual([
      'ID      WEIGHT_KG  TAGS   EXTRA',
      'SHP-1   1200.5     ["a"]',
      'SHP-22  3                 null',
    ]);
  });

  test('anything else is indented JSON, line by line', () => {
    expect(renderData({ count: 2, ids: ['x'] })).toEqual(['{', '  "count": 2,', '  "ids": [', '    "x"', '  ]', '}']);
    expect(renderData([1, 2])).toEqual(['[', '  1,', '  2', ']']);
  });

  test('control characters and newlines inside values are printed escaped, never interpreted', () => {
    const [, row] = renderData([{ note: 'evil\u001b[2Jline\nnext\u009b\u202e' }]);
    expect(row).toBe('evil\\x1b[2Jline\\nnext\\x9b\\u202e');
    expect(renderData({ note: '\u001b]0;title\u0007' }).join('\n')).not.toMatch(
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/,
    );
  });

  test('a step header names its number, id, tool, status, size and ref; a step without a result says so', () => {
    const lines = renderResult({
      workflowId: 'plan-1',
      stage: 'EXECUTING',
      planVersion: 2,
      steps: [
        {
          number: 2,
          id: '1.2',
          tool: 'facilities',
          status: 'COMPLETED',
          items: 1,
          ref: `sha256:${'a'.repeat(64)}`,
          data: [{ id: 'FAC-01' }],
        },
        { number: 3, id: '1.3', tool: 'inspections', status: 'PENDING', items: null, ref: null, data: null },
      ],
      answer_note: null,
    });
    expect(lines).toEqual([
      'Results of plan-1 · plan v2 · stage EXECUTING',
      '',
      `Step 2 (1.2) facilities [COMPLETED] · 1 item(s) · sha256:${'a'.repeat(64)}`,
      'ID',
      'FAC-01',
      '',
      'Step 3 (1.3) inspections [PENDING]',
      '(no result)',
    ]);
  });
});

describe('a completed run whose answer is empty says what it asked for', () => {
  const plan = rankingPlan('Contaminants detected in Bielefeld today');
  const [lookup, detections] = plan.tasks.flatMap((t) => t.steps);
  const record = (id: string, items: number) => ({
    id,
    tool: null,
    status: 'COMPLETED' as const,
    result: {
      ref: `sha256:${'b'.repeat(64)}`,
      bytes: 2,
      items,
      preview: '[]',
      usage: { cost_usd: 0, tokens: 0, calls: 1 },
      idempotency_key: 'k',
      replayed: false,
    },
  });

  test('every final step returned no rows: the note names each with its filters and where its ids came from', () => {
    const state = {
      stage: 'COMPLETED',
      plan,
      steps: [record(lookup!.id, 0), record(detections!.id, 0)],
    } as unknown as PlanningState;
    expect(emptyAnswerNote(state)).toBe(
      'Nothing matched: step 1.2 (contaminants-detected) with date_from="2026-11-23", date_to="2026-11-23", facility_id from step 1.1 (0 rows) returned no rows.',
    );
    const lines = renderResult({
      workflowId: 'w',
      stage: 'COMPLETED',
      planVersion: 1,
      steps: [],
      answer_note: emptyAnswerNote(state),
    });
    expect(lines.at(-1)).toBe(`Answer: ${emptyAnswerNote(state)}`);
  });

  test('an answer with rows, or a run not completed, has no note', () => {
    expect(
      emptyAnswerNote({
        stage: 'COMPLETED',
        plan,
        steps: [record(lookup!.id, 1), record(detections!.id, 3)],
      } as unknown as PlanningState),
    ).toBeNull();
    expect(
      emptyAnswerNote({
        stage: 'EXECUTING',
        plan,
        steps: [record(lookup!.id, 0), record(detections!.id, 0)],
      } as unknown as PlanningState),
    ).toBeNull();
  });
});
