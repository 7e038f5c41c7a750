/**
 * Where a worker serves its packs' tools (PLANNER_TOOL_QUEUES): by default on the planner's own task queue, so a
 * step is an activity on the workflow's queue, as in a plain Temporal deployment; `split` keeps each pack's queue
 * (pools scaled apart). Routing follows the packs as served.
 */
import { z } from 'zod';
import { loadConfig } from '../../src/config';
import { InvalidInputError } from '../../src/domain/errors';
import { defineTool, defineToolPack } from '../../src/tools/define-tool';
import { createWasteTools, WASTE_TOOLS_QUEUE } from '../../src/tools/waste';
import { catalogsOf, servedPacks } from '../../src/worker';

const unqueued = defineTool({
  name: 'echo',
  description: 'Echo the text',
  params: z.object({ text: z.string() }),
  result: z.string(),
  run: async ({ text }) => text,
});
const pinned = defineTool({
  ...{ name: 'gpu_render', description: 'Render', params: z.object({}), result: z.null() },
  taskQueue: 'gpu-pool',
  run: async () => null,
});
const packs = [
  defineToolPack('mine', [unqueued, pinned]),
  defineToolPack('waste', createWasteTools({ query: async () => [] })),
];
const queuesOf = (served: ReturnType<typeof servedPacks>) =>
  Object.fromEntries(served.flatMap((p) => p.tools.map((t) => [t.spec.name, t.spec.task_queue])));

test("by default every tool is served on the planner's queue, and routing sends its steps there", () => {
  const served = servedPacks(packs, 'planner-q', loadConfig({}).toolQueues);
  expect(new Set(Object.values(queuesOf(served)))).toEqual(new Set(['planner-q']));
  const routes = catalogsOf(served).routes('waste', ['shipments', 'facilities']);
  expect(Object.values(routes).map((r) => r.queues)).toEqual([['planner-q'], ['planner-q']]);
});

test("split keeps each pack's own queues; tools defined without one still join the planner's", () => {
  const served = servedPacks(packs, 'planner-q', 'split');
  expect(queuesOf(served)).toEqual(
    expect.objectContaining({
      echo: 'planner-q',
      gpu_render: 'gpu-pool',
      shipments: WASTE_TOOLS_QUEUE,
      inspections: WASTE_TOOLS_QUEUE,
    }),
  );
  expect(catalogsOf(served).routes('mine', ['gpu_render']).gpu_render!.queues).toEqual(['gpu-pool']);
});

test('PLANNER_TOOL_QUEUES takes planner or split; anything else is PLAN-006 naming the variable', () => {
  expect(loadConfig({}).toolQueues).toBe('planner');
  expect(loadConfig({ PLANNER_TOOL_QUEUES: 'split' }).toolQueues).toBe('split');
  expect(() => loadConfig({ PLANNER_TOOL_QUEUES: 'pools' })).toThrow(InvalidInputError);
  expect(() => loadConfig({ PLANNER_TOOL_QUEUES: 'pools' })).toThrow(
    expect.objectContaining({ hint: expect.stringContaining('PLANNER_TOOL_QUEUES') }),
  );
});
