/**
 * The bench pack (catalog `bench`): ten no-op tools shaped so the deterministic ranking planner turns the goal
 * BENCH_GOAL into two parallel chains of five steps:
 *
 *   alpha → bravo → charlie → delta → echo        foxtrot → golf → hotel → india → juliet
 *
 * Each tool after the first of a chain takes `<previous>_ids` (the ranking planner links a param `<x>_ids` to the
 * tool named x with `${step[N].data.*.id}`), and every tool returns one row `{id}`. Nothing is read or written:
 * the bench measures the orchestration, not the tools.
 *
 * `flaky: true` (the ranking planner sets it from "flaky <tool>" in the goal, e.g. BENCH_REPLAN_GOAL) makes a tool
 * fail once per idempotency key with a permanent (non-retryable) error, so the run re-plans; the re-planned step
 * has the same key and succeeds. The memory of failed keys is per pack instance (one worker process).
 */
import { z } from 'zod';
import { StepFailedError } from '../src/domain/errors';
import { toolSpecFromZod, type ToolSpec } from '../src/domain/tool-spec';
import type { ToolImplementation, ToolPack } from '../src/tools/tool';

export const BENCH_CATALOG_NAME = 'bench';
export const BENCH_TOOLS_QUEUE = 'durable-planner-tools-bench';
export const BENCH_BRANCHES = [
  ['alpha', 'bravo', 'charlie', 'delta', 'echo'],
  ['foxtrot', 'golf', 'hotel', 'india', 'juliet'],
] as const;

/** The goal that makes the ranking planner produce the two chains of five. */
export const BENCH_GOAL = 'Run alpha, bravo, charlie, delta and echo; run foxtrot, golf, hotel, india and juliet';
/** The same plan, with `juliet` failing once (permanently) so the run re-plans once. */
export const BENCH_REPLAN_GOAL =
  'Run alpha, bravo, charlie, delta and echo; run foxtrot, golf, hotel, india and flaky juliet';

export const BenchResult = z.array(z.object({ id: z.string() }));

function paramsFor(previous: string | undefined) {
  const flaky = z.boolean().optional().describe('Fail once (permanently) per idempotency key: a bench of re-planning');
  return previous
    ? z.object({ [`${previous}_ids`]: z.array(z.string()).min(1).describe(`Ids from ${previous}`), flaky })
    : z.object({ flaky });
}

export function benchCatalog(taskQueue = BENCH_TOOLS_QUEUE): ToolSpec[] {
  return BENCH_BRANCHES.flatMap((branch) =>
    branch.map((name, i) =>
      toolSpecFromZod({
        name,
        description: `No-op bench tool ${name}${i > 0 ? ` (takes the ids ${branch[i - 1]} returns)` : ''}.`,
        params: paramsFor(branch[i - 1]),
        result: BenchResult,
        task_queue: taskQueue,
        idempotent: true,
        cost_per_call_usd: 0,
        tokens_per_call: 0,
        tags: [],
      }),
    ),
  );
}

export function createBenchPack(options: { taskQueue?: string } = {}): ToolPack {
  const failedOnce = new Set<string>();
  const specs = benchCatalog(options.taskQueue);
  const tools: ToolImplementation[] = BENCH_BRANCHES.flatMap((branch) =>
    branch.map((name, i) => ({
      spec: specs.find((s) => s.name === name)!,
      paramsSchema: paramsFor(branch[i - 1]),
      resultSchema: BenchResult,
      async run(params: { flaky?: boolean }, ctx) {
        if (params.flaky && !failedOnce.has(ctx.idempotencyKey)) {
          failedOnce.add(ctx.idempotencyKey);
          throw new StepFailedError(`${name} failed once on purpose (flaky)`, { retryable: false });
        }
        return { data: [{ id: `${name}-1` }] };
      },
    })),
  );
  return { catalog: BENCH_CATALOG_NAME, tools, close: async () => undefined };
}
