import { createPlanVersion, diffPlans } from '../../../src/domain/diff';
import { InvalidInputError } from '../../../src/domain/errors';
import { PlanSchema, type Plan } from '../../../src/domain/plan';
import { validPlanInput } from '../../support/plans';

const base = (): Plan => PlanSchema.parse(validPlanInput());

describe('diffPlans', () => {
  it('reports nothing for equal plans', () => {
    expect(diffPlans(base(), base())).toEqual({
      added: [],
      removed: [],
      changed: [],
      summary: 'v1 → v1: no step changes',
    });
  });

  it('reports added, removed and changed steps by id with the changed fields', () => {
    const a = base();
    const b = { ...base(), version: 2 };
    const [s0, s1] = b.tasks[0]!.steps;
    s0!.params = { ...s0!.params, status: 'rejected' };
    s0!.title = 'Fetch rejected shipments';
    b.tasks[0]!.steps = [s0!, { ...s1!, id: '1.3' }];
    const d = diffPlans(a, b);
    expect(d.added).toEqual(['1.3']);
    expect(d.removed).toEqual(['1.2']);
    // 2.1 still points at index 1, which is now step 1.3 instead of 1.2: its inputs changed.
    expect(d.changed).toEqual([
      { id: '1.1', fields: ['title', 'params'] },
      { id: '2.1', fields: ['params', 'depends_on'] },
    ]);
    expect(d.summary).toBe(
      'v1 → v2: 1 added (1.3), 1 removed (1.2), 2 changed (1.1: title+params; 2.1: params+depends_on)',
    );
  });

  it('compares dependencies and templates by step id, so an inserted step does not change later ones', () => {
    const a = base();
    const b = { ...base(), version: 2 };
    const inserted = { ...b.tasks[0]!.steps[0]!, id: '1.0', params: { status: 'pending' }, depends_on: [] };
    b.tasks[0]!.steps.unshift(inserted);
    // Indices shift by one: 1.2 now depends on index 1, 2.1 on index 2.
    b.tasks[0]!.steps[2]!.depends_on = [1];
    b.tasks[0]!.steps[2]!.params = { shipment_ids: '${step[1].data.*.id}' };
    b.tasks[1]!.steps[0]!.depends_on = [2];
    b.tasks[1]!.steps[0]!.params = { ...b.tasks[1]!.steps[0]!.params, content: 'Contaminants: ${step[2].data}' };
    const d = diffPlans(a, b);
    expect(d.added).toEqual(['1.0']);
    expect(d.changed).toEqual([]);
  });

  it('notices a real dependency change and a move between tasks', () => {
    const a = base();
    const b = { ...base(), version: 2 };
    const moved = b.tasks[0]!.steps.pop()!;
    b.tasks[1]!.steps.unshift(moved); // 1.2 moves to task 2, same flattened index
    b.tasks[1]!.steps[1]!.depends_on = [0, 1];
    expect(diffPlans(a, b).changed).toEqual([
      { id: '1.2', fields: ['task'] },
      { id: '2.1', fields: ['depends_on'] },
    ]);
  });
});

describe('createPlanVersion', () => {
  it('records the initial version without diff, frozen and detached from the input', () => {
    const plan = base();
    const v1 = createPlanVersion(plan, null, 'initial');
    expect(v1).toMatchObject({ version: 1, parent_version: null, reason: 'initial', diff: null });
    expect(Object.isFrozen(v1) && Object.isFrozen(v1.plan.tasks[0]!.steps[0]!.params)).toBe(true);
    plan.goal = 'changed later';
    expect(v1.plan.goal).not.toBe('changed later');
  });

  it('records later versions with their diff', () => {
    const v1 = createPlanVersion(base(), null, 'initial');
    const next = { ...base(), version: 2 };
    next.tasks[0]!.steps[0]!.parallel = false;
    const v2 = createPlanVersion(next, v1, 'replan_after_failure');
    expect(v2.parent_version).toBe(1);
    expect(v2.diff?.changed).toEqual([{ id: '1.1', fields: ['parallel'] }]);
  });

  it('rejects versions out of sequence and a parentless non-initial record', () => {
    const v1 = createPlanVersion(base(), null, 'initial');
    expect(() => createPlanVersion(base(), v1, 'refinement')).toThrow(InvalidInputError);
    expect(() => createPlanVersion({ ...base(), version: 3 }, v1, 'refinement')).toThrow(InvalidInputError);
    expect(() => createPlanVersion(base(), null, 'refinement')).toThrow(InvalidInputError);
    expect(() => createPlanVersion({ ...base(), version: 2 }, v1, 'initial')).toThrow(InvalidInputError);
  });
});
