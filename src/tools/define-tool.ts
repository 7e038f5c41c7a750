/**
 * defineTool / defineToolPack: how teams embedding the planner add their own tools. A tool is a name, a description
 * (the ranking planner matches goal words against both; the LLM planner reads them), zod schemas for its params and
 * result (turned into the catalog's JSON Schema) and `run`. A pack is a named catalog of tools: runs choose it with
 * `request.tool_catalog`.
 */
import type { z } from 'zod';
import { DEFAULT_TASK_QUEUE } from '../config';
import { toolSpecFromZod } from '../domain/tool-spec';
import type { ToolContext, ToolImplementation, ToolPack } from './tool';

export interface ToolDefinitionInput<P extends z.ZodObject, R extends z.ZodType> {
  /** Letters, digits and _ . : / - (at most 128 characters). */
  name: string;
  description: string;
  params: P;
  /** The data `run` returns; a mismatch fails the step permanently. */
  result: R;
  /** Estimates per call, charged against a run's budget. */
  cost?: { cost_per_call_usd?: number; tokens_per_call?: number };
  /** Safe to call twice with the same params (so safe to retry); default false. */
  idempotent?: boolean;
  /**
   * For a side-effecting tool: `run` dedupes its effect on ctx.idempotencyKey, so a retry after an unknown outcome
   * (worker killed mid-call) may run it again. Without it such a retry fails with StepOutcomeUnknownError.
   */
  keyed?: boolean;
  /** Extra keywords the ranking planner matches goals against. */
  tags?: string[];
  /** The queue of the workers serving the tool; default: the planner worker's own queue (see `withPlannerQueue`). */
  taskQueue?: string;
  run(params: z.output<P>, ctx: ToolContext): Promise<z.input<R>>;
}

/** Tools defined without a task queue: they run wherever the planner runs. */
const onPlannerQueue = new WeakSet<ToolImplementation>();

export function defineTool<P extends z.ZodObject, R extends z.ZodType>(
  def: ToolDefinitionInput<P, R>,
): ToolImplementation {
  const tool: ToolImplementation = {
    spec: toolSpecFromZod({
      name: def.name,
      description: def.description,
      params: def.params,
      result: def.result,
      ...def.cost,
      idempotent: def.idempotent ?? false,
      tags: def.tags ?? [],
      task_queue: def.taskQueue ?? DEFAULT_TASK_QUEUE,
    }),
    paramsSchema: def.params,
    resultSchema: def.result,
    ...(def.keyed ? { keyed: true } : {}),
    run: async (params: z.output<P>, ctx) => ({ data: await def.run(params, ctx) }),
  };
  if (def.taskQueue === undefined) onPlannerQueue.add(tool);
  return tool;
}

/** A catalog named `catalog`; `close` releases what the tools hold (connections, files), called when workers stop. */
export function defineToolPack(
  catalog: string,
  tools: ToolImplementation[],
  close: () => Promise<void> = async () => {},
): ToolPack {
  return { catalog, tools, close };
}

/** The same pack with every tool served from `queue` (and optionally wrapped, e.g. by tests to count or fail calls). */
export function onQueue(
  pack: ToolPack,
  queue: string,
  wrap: (tool: ToolImplementation) => ToolImplementation = (t) => t,
): ToolPack {
  return { ...pack, tools: pack.tools.map((t) => wrap({ ...t, spec: { ...t.spec, task_queue: queue } })) };
}

/** The pack as served by a planner on `taskQueue`: its tools defined without a queue of their own move there. */
export function withPlannerQueue(pack: ToolPack, taskQueue: string): ToolPack {
  const tools = pack.tools.map((t) =>
    onPlannerQueue.has(t) ? { ...t, spec: { ...t.spec, task_queue: taskQueue } } : t,
  );
  return { ...pack, tools };
}
