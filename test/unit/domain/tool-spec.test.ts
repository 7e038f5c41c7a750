import { z } from 'zod';
import { InvalidInputError } from '../../../src/domain/errors';
import { checkJsonSchema, type JsonSchema } from '../../../src/domain/json-schema';
import { toolSpecFromJsonSchema, toolSpecFromZod } from '../../../src/domain/tool-spec';
import { catalog } from '../../support/plans';

describe('ToolSpec builders', () => {
  it('builds the JSON Schema from zod, in input form, rejecting unknown params', () => {
    const shipments = catalog[0]!;
    expect(shipments.required).toEqual([]);
    expect(shipments.parameters.type).toBe('object');
    expect(shipments.parameters.additionalProperties).toBe(false);
    expect(shipments.parameters.properties?.status).toMatchObject({ enum: ['pending', 'delivered', 'rejected'] });
    expect(shipments.parameters).not.toHaveProperty('$schema');
    const report = catalog[3]!;
    expect(report.required).toEqual(['path', 'content']);
    expect(report).toMatchObject({
      cost_per_call_usd: 0,
      tokens_per_call: 0,
      task_queue: 'tools-files',
      idempotent: false,
      tags: [],
    });
  });

  it('keeps an explicit additionalProperties of a loose zod object', () => {
    const spec = toolSpecFromZod({
      name: 'loose',
      description: 'd',
      params: z.looseObject({ a: z.string() }),
      task_queue: 'q',
      idempotent: true,
    });
    expect(spec.parameters.additionalProperties).not.toBe(false);
    expect(checkJsonSchema({ a: 'x', extra: 1 }, spec.parameters)).toEqual([]);
  });

  it('derives required from an MCP JSON Schema', () => {
    const spec = toolSpecFromJsonSchema({
      name: 'github.list_issues',
      description: 'List issues',
      parameters: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
      task_queue: 'mcp',
      idempotent: true,
    });
    expect(spec.required).toEqual(['repo']);
  });

  it('rejects a definition whose params are not an object schema, or with a bad name', () => {
    const base = { description: 'd', task_queue: 'q', idempotent: true };
    expect(() => toolSpecFromJsonSchema({ ...base, name: 'x', parameters: { type: 'string' } })).toThrow(
      InvalidInputError,
    );
    expect(() => toolSpecFromJsonSchema({ ...base, name: 'bad name!', parameters: { type: 'object' } })).toThrow(
      /name/,
    );
    expect(() =>
      toolSpecFromJsonSchema({ ...base, name: 'x', parameters: { type: 'object' }, cost_per_call_usd: -1 }),
    ).toThrow(InvalidInputError);
  });
});

describe('checkJsonSchema', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: 10 },
      ratio: { type: 'number' },
      flag: { type: 'boolean' },
      status: { type: 'string', enum: ['open', 'closed'] },
      day: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'date-time' },
      ids: { type: 'array', items: { type: 'string' } },
      nested: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false },
      maybe: { type: ['string', 'null'] },
      either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    },
    required: ['name'],
    additionalProperties: false,
  };
  const paths = (value: unknown) => checkJsonSchema(value, schema).map((v) => `${v.path}:${v.keyword}`);

  it('accepts a value that matches', () => {
    expect(
      paths({
        name: 'a',
        limit: 3,
        ratio: 0.5,
        flag: true,
        status: 'open',
        day: '2026-11-23',
        at: '2026-11-23T10:00:00Z',
        ids: ['a'],
        nested: { x: 1 },
        maybe: null,
        either: 2,
      }),
    ).toEqual([]);
  });

  it('reports each violation with its path and keyword', () => {
    expect(
      paths({
        limit: 2.5,
        ratio: 'x',
        flag: 'yes',
        status: 'shut',
        day: '23/11/2026',
        at: 'noon',
        ids: ['a', 3],
        nested: { y: 1 },
        maybe: 1,
        either: true,
        extra: 1,
      }),
    ).toEqual([
      'name:required',
      'limit:type',
      'ratio:type',
      'flag:type',
      'status:enum',
      'day:format',
      'at:format',
      'ids[1]:type',
      'nested.x:required',
      'nested.y:additionalProperties',
      'maybe:type',
      'either:anyOf',
      'extra:additionalProperties',
    ]);
  });

  it('checks minimum and maximum', () => {
    expect(paths({ name: 'a', limit: 0 })).toEqual(['limit:minimum']);
    expect(paths({ name: 'a', limit: 11 })).toEqual(['limit:maximum']);
  });

  it('accepts a whole ${step[N]...} template for any type', () => {
    expect(
      paths({
        name: '${step[0].data[0].name}',
        limit: '${step[0].data[0].n}',
        ids: '${step[1].data.*.id}',
        nested: '${step[2].data}',
      }),
    ).toEqual([]);
  });

  it('accepts an embedded template only where a string is allowed, skipping enum and format', () => {
    expect(paths({ name: 'x', status: 'is ${step[0].data}', day: '${step[0].data.y}-01-01' })).toEqual([]);
    expect(paths({ name: 'x', limit: 'top ${step[0].data}' })).toEqual(['limit:type']);
  });

  it('treats a string that only looks like a template as a plain string', () => {
    expect(paths({ name: 'x', limit: '${step[x].data}' })).toEqual(['limit:type']);
  });

  it('handles boolean schemas and ignores unknown keywords', () => {
    expect(checkJsonSchema(1, true)).toEqual([]);
    expect(checkJsonSchema(1, false)).toHaveLength(1);
    expect(checkJsonSchema('abc', { type: 'string', pattern: '^x', minLength: 10 })).toEqual([]);
  });
});
