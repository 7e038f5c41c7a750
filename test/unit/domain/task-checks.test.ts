/**
 * The verifier's checks (src/domain/acceptance.ts), the task level of validation (src/domain/task-validation.ts), the
 * strict plan schema, and task order in the scheduler (src/domain/step-scheduler.ts).
 */
import { checkCriterion, stepsInTaskOrder } from '../../../src/domain/acceptance';
import { PlanSchema, type AcceptanceCriterion } from '../../../src/domain/plan';
import { stepsToStart } from '../../../src/domain/step-scheduler';
import { validatePlan } from '../../../src/domain/validation';
import { catalog, validPlanInput } from '../../support/plans';
import { rankingPlan } from '../../support/planning';

const criterion = (assertion: AcceptanceCriterion['assertion'], test = true): AcceptanceCriterion => ({
  id: 'AC-1.1',
  description: 'd',
  assertion,
  test,
});
const data = (byStep: Record<string, unknown>) => (id: string) => (id in byStep ? { data: byStep[id] } : undefined);
const noFiles = () => false;

describe('checking a criterion', () => {
  test('rows_non_empty', () => {
    const c = criterion({ kind: 'rows_non_empty', step: '1.1' }, false);
    expect(checkCriterion(c, data({ '1.1': [{ id: 'a' }] }), noFiles)).toMatchObject({ passed: true, test: false });
    expect(checkCriterion(c, data({ '1.1': [] }), noFiles)).toMatchObject({ passed: false, detail: '0 row(s)' });
    expect(checkCriterion(c, data({}), noFiles)).toMatchObject({ passed: false, detail: 'step 1.1 has no result' });
  });

  test("values_in_range: every row's date inside the range, the first offending ones named", () => {
    const c = criterion({ kind: 'values_in_range', step: '1.1', field: 'on', from: '2026-11-16', to: '2026-11-22' });
    expect(
      checkCriterion(c, data({ '1.1': [{ on: '2026-11-16' }, { on: '2026-11-22T23:00:00Z' }] }), noFiles).passed,
    ).toBe(true);
    expect(checkCriterion(c, data({ '1.1': [{ on: '2026-11-16' }, { on: '2026-11-23' }, {}] }), noFiles)).toMatchObject(
      {
        passed: false,
        detail: 'on outside 2026-11-16…2026-11-22: "2026-11-23", undefined',
      },
    );
  });

  test("values_among: every row's facility among those the lookup step returned", () => {
    const c = criterion({
      kind: 'values_among',
      step: '2.1',
      field: 'facility_id',
      source_step: '1.1',
      source_field: 'id',
    });
    const facilities = [{ id: 'FAC-01' }, { id: 'FAC-02' }];
    expect(checkCriterion(c, data({ '1.1': facilities, '2.1': [{ facility_id: 'FAC-02' }] }), noFiles).passed).toBe(
      true,
    );
    expect(checkCriterion(c, data({ '1.1': facilities, '2.1': [{ facility_id: 'FAC-09' }] }), noFiles)).toMatchObject({
      passed: false,
      detail: 'facility_id not among step 1.1\'s id values: "FAC-09"',
    });
  });

  test('path_exists asks the file system; step_completed needs a result', () => {
    const c = criterion({ kind: 'path_exists', step: '1.1', path: 'out/b.md' });
    expect(checkCriterion(c, data({ '1.1': null }), (p) => p === 'out/b.md').passed).toBe(true);
    expect(checkCriterion(c, data({ '1.1': null }), noFiles)).toMatchObject({
      passed: false,
      detail: 'out/b.md does not exist',
    });
    expect(
      checkCriterion(criterion({ kind: 'step_completed', step: '1.1' }), data({ '1.1': 'text' }), noFiles).passed,
    ).toBe(true);
  });
});

describe('task-level validation', () => {
  const plan = () => structuredClone(validPlanInput()) as any;
  const codes = (p: unknown) => validatePlan(p, { catalog }).map((i) => i.code);

  test('two tasks with one id', () => {
    const p = plan();
    p.tasks[1].id = '1';
    p.tasks[1].depends_on = [];
    expect(codes(p)).toContain('DUPLICATE_TASK_ID');
  });

  test('a dependency on no task of the plan, or on itself', () => {
    const p = plan();
    p.tasks[1].depends_on = ['9'];
    expect(codes(p)).toContain('UNKNOWN_TASK_DEPENDENCY');
    p.tasks[1].depends_on = ['2'];
    expect(validatePlan(p, { catalog }).map((i) => i.message)).toContain('task "2" depends on itself');
  });

  test('a cycle of tasks is named by task ids', () => {
    const p = plan();
    p.tasks[0].depends_on = ['2'];
    const issue = validatePlan(p, { catalog }).find((i) => i.code === 'TASK_CYCLE');
    expect(issue?.message).toBe('task dependency cycle "1" → "2" → "1"');
  });

  test('a step reading a step of a task its task does not depend on', () => {
    const p = plan();
    p.tasks[1].depends_on = [];
    expect(codes(p)).toEqual(['STEP_CROSSES_TASKS']);
  });

  test('a criterion naming a step outside its task and the tasks it depends on', () => {
    const p = plan();
    p.tasks[0].acceptance_criteria = [
      { id: 'AC-1.1', description: 'd', assertion: { kind: 'rows_non_empty', step: '2.1' }, test: true },
    ];
    expect(codes(p)).toEqual(['CRITERION_UNKNOWN_STEP']);
  });

  test('ids well-formed: a task id with a dot or a space is refused', () => {
    const p = plan();
    p.tasks[0].id = '1 a';
    expect(codes(p)).toContain('SCHEMA');
  });
});

describe('strict schemas: an unknown key is refused, named', () => {
  test.each([
    ['the plan', (p: any) => (p.owner = 'x'), 'owner'],
    ['a task', (p: any) => (p.tasks[0].priority = 1), 'priority'],
    ['a step', (p: any) => (p.tasks[0].steps[0].retries = 3), 'retries'],
    ['the estimate', (p: any) => (p.estimate.minutes = 3), 'minutes'],
  ])('%s', (_what, edit, key) => {
    const p = structuredClone(validPlanInput()) as any;
    edit(p);
    const parsed = PlanSchema.safeParse(p);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error!.issues)).toContain(`"${key}"`);
  });
});

describe('the scheduler keeps task order', () => {
  const plan = rankingPlan('Get contaminated shipments from last week and show me the contaminant details');
  const steps = plan.tasks.flatMap((t) => t.steps);

  test("a task's steps wait for every step of the tasks it depends on", () => {
    const ordered = stepsInTaskOrder(plan, steps);
    expect(ordered.map((s) => s.depends_on)).toEqual([[], [0]]);
    expect(stepsToStart(ordered, ['PENDING', 'PENDING'], () => true).start).toEqual([0]);
  });

  test('and, its steps all done, for the verifier to pass those tasks', () => {
    const ordered = stepsInTaskOrder(plan, steps);
    const waiting = (i: number) => i === 1; // task 1 not yet checked
    expect(stepsToStart(ordered, ['COMPLETED', 'PENDING'], () => true, waiting).start).toEqual([]);
    expect(stepsToStart(ordered, ['COMPLETED', 'PENDING'], () => true).start).toEqual([1]);
  });
});
