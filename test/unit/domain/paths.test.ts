/** Path params by schema (x-path marks, the name fallback for unmarked schemas) and the lexical workspace check. */
import { z } from 'zod';
import type { JsonSchema } from '../../../src/domain/json-schema';
import { isInsideWorkspace, pathParamSchemas, pathParamValues } from '../../../src/domain/paths';
import { pathParam, toolSpecFromZod } from '../../../src/domain/tool-spec';

const spec = toolSpecFromZod({
  name: 'files',
  description: 'files',
  params: z.object({
    source: pathParam(),
    targets: z.array(pathParam()).optional(),
    maybe: pathParam().nullable().optional(),
    nested: z.object({ into: pathParam(), note: z.string() }).optional(),
    path: z.string().optional(),
  }),
  task_queue: 'q',
  idempotent: true,
});

test('marked mode: exactly the x-path strings, in arrays, nullable unions and nested objects', () => {
  const params = {
    source: 'a',
    targets: ['b', 'c'],
    maybe: 'd',
    nested: { into: 'e', note: '/etc/x' },
    path: '/etc/y',
  };
  expect(pathParamValues(params, spec.parameters, 'marked').map((p) => [p.at, p.value])).toEqual([
    [['source'], 'a'],
    [['targets', 0], 'b'],
    [['targets', 1], 'c'],
    [['maybe'], 'd'],
    [['nested', 'into'], 'e'],
  ]);
});

test('by-name mode adds the name/value heuristic; local $refs are followed', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { file: { type: 'string' }, q: { type: 'string' }, src: { $ref: '#/$defs/p' } },
    $defs: { p: { type: 'string', 'x-path': true } },
  };
  const found = pathParamValues({ file: 'x', q: '../up', src: 'rel', other: 'plain' }, schema, 'by-name');
  expect(found.map((p) => p.value).sort()).toEqual(['../up', 'rel', 'x']);
  expect(pathParamValues({ file: 'x', q: '../up', src: 'rel' }, schema, 'marked').map((p) => p.value)).toEqual(['rel']);
});

test('pathParamSchemas: the top-level path params a schema declares (marked, or by name), a list of paths by its items', () => {
  expect(pathParamSchemas(spec.parameters, 'marked').map(({ param, list }) => [param, list])).toEqual([
    ['source', false],
    ['targets', true],
  ]);
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      paths: { type: 'array', items: { type: 'string' } },
      url: { type: 'string' },
      source: { type: 'string' },
      file: { type: 'integer' },
    },
  };
  const found = pathParamSchemas(schema, 'by-name');
  expect(found.map(({ param }) => param)).toEqual(['path', 'paths']);
  // The string schema of one path, in place: what a caller annotates lands in the schema.
  expect(found[1]!.path).toBe((schema.properties!.paths as JsonSchema).items);
});

test('isInsideWorkspace resolves ".." anywhere in the value', () => {
  expect(isInsideWorkspace('sub/../../etc/passwd', '/ws')).toBe(false);
  expect(isInsideWorkspace('sub/../a', '/ws')).toBe(true);
  expect(isInsideWorkspace('/ws/sub/../../ws2', '/ws')).toBe(false);
});
