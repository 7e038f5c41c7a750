import { z } from 'zod';
import { defineTool, defineToolPack, withPlannerQueue } from '../../../src/tools/define-tool';

const greet = defineTool({
  name: 'greet_user',
  description: 'Greet the user',
  params: z.object({ name: z.string(), language: z.enum(['english', 'french']).default('english') }),
  result: z.object({ greeting: z.string() }),
  cost: { cost_per_call_usd: 0.01 },
  tags: ['hello'],
  run: async ({ name, language }) => ({ greeting: `${language === 'french' ? 'Bonjour' : 'Hello'} ${name}` }),
});

test('defineTool builds the catalog entry from the zod schemas', () => {
  expect(greet.spec).toEqual(
    expect.objectContaining({
      name: 'greet_user',
      required: ['name'],
      cost_per_call_usd: 0.01,
      tokens_per_call: 0,
      idempotent: false,
      tags: ['hello'],
      parameters: expect.objectContaining({ type: 'object', additionalProperties: false, required: ['name'] }),
      result: expect.objectContaining({ type: 'object', required: ['greeting'] }),
    }),
  );
});

test('run receives parsed params and returns the data as the tool output', async () => {
  const params = greet.paramsSchema.parse({ name: 'Ada' });
  const ctx = { idempotencyKey: 'k', heartbeat() {}, signal: new AbortController().signal };
  await expect(greet.run(params, ctx)).resolves.toEqual({ data: { greeting: 'Hello Ada' } });
});

test("tools without a task queue move to the planner's queue; tools with one keep it", () => {
  const pinned = defineTool({ ...greetDefinition(), name: 'pinned', taskQueue: 'gpu-pool' });
  const pack = withPlannerQueue(defineToolPack('greetings', [greet, pinned]), 'team-planner');
  expect(pack.tools.map((t) => [t.spec.name, t.spec.task_queue])).toEqual([
    ['greet_user', 'team-planner'],
    ['pinned', 'gpu-pool'],
  ]);
});

test('a bad tool name is refused when the tool is defined', () => {
  expect(() => defineTool({ ...greetDefinition(), name: 'greet user!' })).toThrow(/invalid tool definition/);
});

function greetDefinition() {
  return {
    name: 'x',
    description: 'Greet',
    params: z.object({}),
    result: z.object({}),
    run: async () => ({}),
  };
}
