import { z } from 'zod';
import { toolSpecFromJsonSchema, toolSpecFromZod } from '../../../src/domain/tool-spec';
import { renderCatalogs, toolView } from '../../../src/cli/tool-catalog';
import { stepTiming } from '../../../src/cli/render';

const weather = toolSpecFromZod({
  name: 'weather',
  description: 'The forecast for a city.',
  task_queue: 'weather-tools',
  idempotent: true,
  params: z.object({
    city: z.string().describe('City name'),
    units: z.enum(['metric', 'imperial']).default('metric'),
    days: z.number().int().optional(),
    hours: z.array(z.enum(['am', 'pm'])).optional(),
  }),
});
const send = toolSpecFromJsonSchema({
  name: 'send-mail',
  description: 'Sends an e-mail.',
  task_queue: 'mail',
  idempotent: false,
  parameters: {
    type: 'object',
    properties: {
      to: { type: 'string' },
      priority: { anyOf: [{ const: 'low' }, { const: 'high' }] },
      cc: { type: ['string', 'null'] },
    },
    required: ['to'],
  },
});

describe('planner tools: what a catalog offers', () => {
  test("each param's name, type, whether it is required, and its enum values", () => {
    expect(toolView(weather)).toEqual({
      name: 'weather',
      description: 'The forecast for a city.',
      idempotent: true,
      sideEffects: false,
      taskQueue: 'weather-tools',
      params: [
        { name: 'city', type: 'string', required: true, enum: null, description: 'City name' },
        { name: 'units', type: 'string', required: false, enum: ['metric', 'imperial'], description: null },
        { name: 'days', type: 'integer', required: false, enum: null, description: null },
        { name: 'hours', type: 'array of string', required: false, enum: ['am', 'pm'], description: null },
      ],
    });
  });

  test('a tool with side effects is marked so; const alternatives are its enum; a type list is shown as a union', () => {
    const view = toolView(send);
    expect(view).toEqual(expect.objectContaining({ idempotent: false, sideEffects: true, taskQueue: 'mail' }));
    expect(view.params).toEqual([
      { name: 'to', type: 'string', required: true, enum: null, description: null },
      { name: 'priority', type: 'string', required: false, enum: ['low', 'high'], description: null },
      { name: 'cc', type: 'string | null', required: false, enum: null, description: null },
    ]);
  });

  test('as text: the catalog, each tool with its queue and retry safety, optional params marked, enums listed', () => {
    const lines = renderCatalogs([
      { catalog: 'mine', unavailable: null, tools: [toolView(weather), toolView(send)] },
      { catalog: 'fs', unavailable: 'the MCP server "fs" did not start', tools: [] },
    ]);
    expect(lines).toContain('Catalog mine: 2 tool(s)');
    expect(lines).toContain('weather  [idempotent] queue weather-tools');
    expect(lines).toContain('  city: string · City name');
    expect(lines).toContain('  units?: string one of "metric", "imperial"');
    expect(lines).toContain('send-mail  [side effects: runs once, never retried blindly] queue mail');
    expect(lines).toContain('Catalog fs: unavailable (the MCP server "fs" did not start)');
  });
});

describe("a step's time and attempts as show and watch print them", () => {
  test('elapsed time in ms, s or min; attempts only when Temporal retried; a running step says since when', () => {
    expect(stepTiming(412, 1)).toBe(' · 412 ms');
    expect(stepTiming(1_430, 2)).toBe(' · 1.4 s · 2 attempts');
    expect(stepTiming(125_000, null)).toBe(' · 2 min 5 s');
    expect(stepTiming(null, null, '2026-11-26T10:11:12.345Z')).toBe(' · running since 10:11:12Z');
    expect(stepTiming(undefined, undefined)).toBe('');
  });
});
