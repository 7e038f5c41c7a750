/**
 * RFC 6902 JSON Patch over a plan's JSON, generic over its shape, and the pointers at which two documents differ:
 * what `planner edit --patch` and `rerun --patch` apply and what a person-made version records.
 */
import { InvalidInputError } from '../../../src/domain/errors';
import { JSON_PATCH_LIMITS, applyJsonPatch, jsonChanges } from '../../../src/domain/json-patch';
import { downstreamCone } from '../../../src/domain/rerun';

const doc = () => ({
  tasks: [
    {
      id: '1',
      steps: [
        { id: '1.1', params: { a: 1 } },
        { id: '1.2', params: {} },
      ],
    },
  ],
  'x/y': { '~k': 0 },
});

describe('applyJsonPatch', () => {
  test('add, replace, remove, copy, move and test apply in order, on a copy', () => {
    const before = doc();
    const after = applyJsonPatch(before, [
      { op: 'test', path: '/tasks/0/steps/0/params/a', value: 1 },
      { op: 'replace', path: '/tasks/0/steps/0/params/a', value: 2 },
      { op: 'add', path: '/tasks/0/steps/1/params/b', value: [3] },
      { op: 'add', path: '/tasks/0/steps/-', value: { id: '1.3', params: {} } },
      { op: 'copy', from: '/tasks/0/steps/0/params', path: '/tasks/0/steps/2/params' },
      { op: 'move', from: '/tasks/0/steps/1', path: '/tasks/0/steps/0' },
      { op: 'remove', path: '/x~1y/~0k' },
    ]);
    expect(after).toEqual({
      tasks: [
        {
          id: '1',
          steps: [
            { id: '1.2', params: { b: [3] } },
            { id: '1.1', params: { a: 2 } },
            { id: '1.3', params: { a: 2 } },
          ],
        },
      ],
      'x/y': {},
    });
    expect(before).toEqual(doc());
  });

  test.each([
    [
      [{ op: 'remove', path: '/tasks/0/steps/5' }],
      'patch operation 0 (remove /tasks/0/steps/5): index "5" is out of the array\'s range (length 2)',
    ],
    [
      [{ op: 'replace', path: '/tasks/0/nope', value: 1 }],
      'patch operation 0 (replace /tasks/0/nope): nothing at /tasks/0/nope to replace',
    ],
    [
      [{ op: 'test', path: '/tasks/0/id', value: '2' }],
      'patch operation 0 (test /tasks/0/id): the value at /tasks/0/id is not the one the patch expects',
    ],
    [
      [{ op: 'add', path: '/__proto__/polluted', value: 1 }],
      'JSON Pointer /__proto__/polluted names __proto__, which a plan never has',
    ],
    [
      [{ op: 'move', from: '/tasks', path: '/tasks/0' }],
      'patch operation 0 (move /tasks/0): cannot move a value into itself',
    ],
  ])('%j is refused, naming the operation', (patch, message) => {
    expect(() => applyJsonPatch(doc(), patch)).toThrow(new InvalidInputError(message, ''));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a patch is bounded: not an array of operations, or over the limit, is refused before anything applies', () => {
    expect(() => applyJsonPatch(doc(), { op: 'add' })).toThrow(/^not a JSON Patch/);
    const many = Array.from({ length: JSON_PATCH_LIMITS.operations + 1 }, () => ({ op: 'test', path: '', value: 0 }));
    expect(() => applyJsonPatch(doc(), many)).toThrow(/^not a JSON Patch: \(patch\): Too big/);
    const deep = `/${Array.from({ length: JSON_PATCH_LIMITS.depth + 1 }, () => 'a').join('/')}`;
    expect(() => applyJsonPatch(doc(), [{ op: 'add', path: deep, value: 1 }])).toThrow(/deeper than 32 levels/);
  });
});

describe('jsonChanges', () => {
  test('lists the deepest pointers that differ, escaped, whatever the shape', () => {
    const b = applyJsonPatch(doc(), [
      { op: 'replace', path: '/tasks/0/steps/0/params/a', value: 5 },
      { op: 'remove', path: '/tasks/0/steps/1' },
      { op: 'add', path: '/x~1y/new', value: true },
    ]);
    expect(jsonChanges(doc(), b)).toEqual(['/tasks/0/steps/0/params/a', '/tasks/0/steps/1', '/x~1y/new']);
    expect(jsonChanges(doc(), doc())).toEqual([]);
  });

  test('stops at its limit and says how many more', () => {
    const a = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, i]));
    const b = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, -i - 1]));
    expect(jsonChanges(a, b, 2)).toEqual(['/k0', '/k1', '…3 more']);
  });
});

describe('downstreamCone', () => {
  const steps = [
    { id: 'a', depends_on: [] },
    { id: 'b', depends_on: [0] },
    { id: 'c', depends_on: [0] },
    { id: 'd', depends_on: [1, 2] },
    { id: 'e', depends_on: [] },
  ];
  test('is the step and every step that depends on it, directly or not; unrelated steps stay out', () => {
    expect(downstreamCone(steps, 'b')).toEqual(['b', 'd']);
    expect(downstreamCone(steps, 'a')).toEqual(['a', 'b', 'c', 'd']);
    expect(downstreamCone(steps, 'e')).toEqual(['e']);
    expect(downstreamCone(steps, 'z')).toBeNull();
  });
});
