/**
 * Goal → Tasks → Steps as the system derives it (src/domain/task-structure.ts): steps labelled by the part of the goal
 * they serve become tasks, ordered by the data they pass, with complexity, resources and acceptance criteria (which
 * a person's edit keeps only for the steps it keeps).
 */
import { PlanSchema, type AcceptanceCriterion, type Step } from '../../../src/domain/plan';
import {
  groupIntoTasks,
  structureTasks,
  type LabelledStep,
  withoutOrphanCriteria,
  type UngroupedStep,
} from '../../../src/domain/task-structure';
import { indexCatalog } from '../../../src/domain/tool-spec';
import { mcpToolSpec } from '../../../src/tools/mcp/pack';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { rankingPlan } from '../../support/planning';
import { stepDefaults } from '../../support/plans';

const step = (s: Partial<UngroupedStep>): UngroupedStep => ({ title: 'step', action: 'noop', ...stepDefaults(), ...s });
const waste = indexCatalog(WASTE_CATALOG);

describe('grouping steps into tasks', () => {
  test("the seed's example: a validator, then a form handler and tests that both build on it", () => {
    const steps: LabelledStep[] = [
      { label: 'Create EmailValidator class', step: step({ title: 'Read existing validators' }) },
      { label: 'Create EmailValidator class', step: step({ title: 'Generate EmailValidator', depends_on: [0] }) },
      { label: 'Update form handler', step: step({ title: 'Add validation call', depends_on: [1] }) },
      { label: 'Add unit tests', step: step({ title: 'Generate tests', depends_on: [1] }) },
    ];
    const tasks = structureTasks(steps, waste);
    expect(tasks.map((t) => [t.id, t.title, t.depends_on, t.steps.map((s) => s.id)])).toEqual([
      ['1', 'Create EmailValidator class', [], ['1.1', '1.2']],
      ['2', 'Update form handler', ['1'], ['2.1']],
      ['3', 'Add unit tests', ['1'], ['3.1']],
    ]);
    expect(tasks.map((t) => t.complexity)).toEqual([2, 1, 1]);
    expect(tasks.every((t) => t.acceptance_criteria.length > 0)).toBe(true);
  });

  test('a part written first that reads a later part comes after it; indices and templates follow the new order', () => {
    const tasks = groupIntoTasks([
      {
        label: 'contaminants',
        step: step({
          action: 'tool_call',
          tool: 'contaminants-detected',
          params: { shipment_ids: '${step[1].data.*.id}' },
          depends_on: [1],
        }),
      },
      { label: 'shipments', step: step({ action: 'tool_call', tool: 'shipments' }) },
    ]);
    expect(tasks.map((t) => [t.id, t.title, t.depends_on])).toEqual([
      ['1', 'shipments', []],
      ['2', 'contaminants', ['1']],
    ]);
    expect(tasks[1]!.steps[0]).toMatchObject({
      id: '2.1',
      depends_on: [0],
      params: { shipment_ids: '${step[0].data.*.id}' },
    });
  });

  test('parts that read each other are one task (no cycle of tasks)', () => {
    const tasks = groupIntoTasks([
      { label: 'a', step: step({}) },
      { label: 'b', step: step({ depends_on: [0] }) },
      { label: 'a', step: step({ depends_on: [1] }) },
    ]);
    expect(tasks.map((t) => [t.title, t.steps.map((s) => s.id), t.depends_on])).toEqual([
      ['a', ['1.1', '1.2', '1.3'], []],
    ]);
  });
});

describe('acceptance criteria derived from the steps', () => {
  test('a period bound to a step: its rows carry dates inside it (a test); a final list is non-empty (reported only)', () => {
    const plan = rankingPlan('Get me shipments from last week');
    expect(plan.tasks[0]!.acceptance_criteria).toEqual([
      {
        id: 'AC-1.1',
        description: 'every row of step 1.1 (shipments) has shipped_on from 2026-11-16 to 2026-11-22',
        assertion: { kind: 'values_in_range', step: '1.1', field: 'shipped_on', from: '2026-11-16', to: '2026-11-22' },
        test: true,
      },
      {
        id: 'AC-1.2',
        description: 'step 1.1 (shipments) returns at least one row',
        assertion: { kind: 'rows_non_empty', step: '1.1' },
        test: false,
      },
    ]);
  });

  test("rows filtered by a lookup's ids carry those ids (every row's facility among the facilities found)", () => {
    const plan = rankingPlan('Which shipments went to facilities in Hannover?');
    const among = plan.tasks.flatMap((t) => t.acceptance_criteria).filter((c) => c.assertion.kind === 'values_among');
    expect(among.map((c) => c.assertion)).toEqual([
      expect.objectContaining({ kind: 'values_among', field: 'facility_id', source_field: 'id' }),
    ]);
    expect(among.every((c) => c.test)).toBe(true);
  });

  test('on a filesystem catalog (second catalog): a written file exists afterwards; files read and written are resources', () => {
    const path = { type: 'string', examples: ['/srv/notes'] };
    const text = { type: 'object', properties: { content: { type: 'string' } } };
    const files = indexCatalog([
      mcpToolSpec('files', {
        name: 'read_text_file',
        description: 'Read a file as text.',
        inputSchema: { type: 'object', properties: { path }, required: ['path'] },
        outputSchema: text,
        annotations: { readOnlyHint: true },
      }),
      mcpToolSpec('files', {
        name: 'write_file',
        description: 'Create a new file or overwrite an existing file.',
        inputSchema: {
          type: 'object',
          properties: { path, content: { type: 'string' } },
          required: ['path', 'content'],
        },
        outputSchema: text,
      }),
    ]);
    const [task] = structureTasks(
      [
        {
          label: 'Copy the notes',
          step: step({ action: 'tool_call', tool: 'read_text_file', params: { path: 'notes/a.md' } }),
        },
        {
          label: 'Copy the notes',
          step: step({
            action: 'tool_call',
            tool: 'write_file',
            params: { path: 'out/b.md', content: '${step[0].data.content}' },
            depends_on: [0],
          }),
        },
      ],
      files,
    );
    expect(task!.acceptance_criteria.map((c) => [c.assertion.kind, c.test])).toEqual([
      ['step_completed', true], // the write (a read feeding it needs no criterion of its own)
      ['path_exists', true],
    ]);
    expect(task!.acceptance_criteria[1]!.assertion).toEqual({ kind: 'path_exists', step: '1.2', path: 'out/b.md' });
    expect(task!.resources).toMatchObject({
      tools: ['read_text_file', 'write_file'],
      reads: ['read_text_file'],
      writes: ['write_file'],
      files_read: ['notes/a.md'],
      files_written: ['out/b.md'],
    });
    expect(task!.steps.map((s: Step) => s.expected_output)).toEqual([
      'the result of read_text_file',
      'the result of write_file',
    ]);
  });
});

describe("a person's edit keeps the criteria of the steps it keeps", () => {
  test('the criteria derived for a step the edit removed go with it; one naming a step it kept stays', () => {
    const plan = rankingPlan('Which shipments went to facilities in Hannover?');
    const task = plan.tasks[0]!;
    expect(task.acceptance_criteria.map((c) => c.assertion.step)).toEqual(['1.2', '1.2']);
    const theirs: AcceptanceCriterion = {
      id: 'AC-P',
      description: 'step 1.1 (facilities) returns at least one row',
      assertion: { kind: 'rows_non_empty', step: '1.1' },
      test: false,
    };
    const edited = {
      ...plan,
      tasks: [{ ...task, steps: task.steps.slice(0, 1), acceptance_criteria: [...task.acceptance_criteria, theirs] }],
    };
    expect(withoutOrphanCriteria(edited).tasks[0]!.acceptance_criteria).toEqual([theirs]);
    expect(withoutOrphanCriteria(plan)).toEqual(plan); // nothing removed, nothing dropped
  });
});

describe('the ranking planner splits a goal into tasks', () => {
  test('two asks joined by "and", the second needing the first\'s data: two tasks, the second depending on the first', () => {
    const plan = rankingPlan('Get contaminated shipments from last week and show me the contaminant details');
    expect(plan.tasks.map((t) => [t.id, t.title, t.depends_on, t.steps.map((s) => `${s.id} ${s.tool}`)])).toEqual([
      ['1', 'Get contaminated shipments from last week', [], ['1.1 shipments']],
      ['2', 'Show me the contaminant details', ['1'], ['2.1 contaminants-detected']],
    ]);
    expect(plan.tasks[1]!.steps[0]!.title).toBe('Call contaminants-detected for the results of step 1.1');
    expect(plan.complexity).toBe(2);
    expect(PlanSchema.safeParse(plan).success).toBe(true);
  });

  test('one ask is one task', () => {
    expect(rankingPlan('Get me shipments from last week').tasks).toHaveLength(1);
  });
});
