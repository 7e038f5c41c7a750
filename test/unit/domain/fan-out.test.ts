/**
 * Which params fan a step out: a whole `.*` template given to a top-level param that takes one value (one call per
 * value); a list param takes the whole list in one call. Shown on a files-server-like schema (one path or many).
 */
import { fannedParams, fanOut } from '../../../src/domain/fan-out';
import type { JsonSchema } from '../../../src/domain/json-schema';

const files: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    paths: { type: 'array', items: { type: 'string' } },
    pattern: { type: 'string' },
  },
};

test('a `.*` template given to a param that takes one value fans out, from the step it names', () => {
  expect(fannedParams({ path: '${step[2].data.*.path}', pattern: '*.md' }, files)).toEqual([
    { key: 'path', from_step: 2 },
  ]);
});

test('a list param, a first-item template and a template inside text do not fan out', () => {
  expect(fannedParams({ paths: '${step[0].data.*.path}' }, files)).toEqual([]);
  expect(fannedParams({ path: '${step[0].data[0].path}' }, files)).toEqual([]);
  expect(fannedParams({ pattern: 'notes/${step[0].data.*.name}' }, files)).toEqual([]);
});

test('at run time a fanned param resolved to a list runs the step once per distinct value', () => {
  const original = { path: '${step[0].data.*.path}' };
  expect(fanOut(original, { path: ['a.md', 'b.md', 'a.md'] }, files)).toEqual([{ path: 'a.md' }, { path: 'b.md' }]);
  expect(fanOut(original, { path: 'a.md' }, files)).toEqual([{ path: 'a.md' }]);
});
