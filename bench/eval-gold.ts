/**
 * The gold answers of the eval: each goal's gold calls executed directly against the tool implementations of its
 * catalog (the same packs the workers serve, seeded for the eval's pinned day), before any run. The data of each
 * call is kept, as a step would store it (canonical JSON), for bench/eval-scoring.ts to compare a run's answer with.
 */
import { formatZodIssues } from '../src/domain/errors';
import { canonicalJson } from '../src/domain/canonical-json';
import type { ToolPack } from '../src/tools/tool';
import { workspaceRootOf, type GoldenGoal } from './eval-harness';
import { ROOT_PLACEHOLDER } from './eval-scoring';

/** Per goal id: the data of each gold call, in the order of `gold.calls`. */
export type GoldData = ReadonlyMap<string, readonly unknown[]>;

/** `params` with every ROOT_PLACEHOLDER replaced by `root`. */
function withRoot(params: Record<string, unknown>, root: string | undefined, where: string): Record<string, unknown> {
  const text = JSON.stringify(params);
  if (!text.includes(ROOT_PLACEHOLDER)) return params;
  if (root === undefined) throw new Error(`${where}: ${ROOT_PLACEHOLDER} in params, but the catalog serves no folder`);
  return JSON.parse(text.split(ROOT_PLACEHOLDER).join(JSON.stringify(root).slice(1, -1))) as Record<string, unknown>;
}

/**
 * Runs every gold call of `goals` with the tools of `packs` (by the goal's catalog); `roots` names the folder a
 * catalog serves, put in for ROOT_PLACEHOLDER. Throws, naming the goal and call, when a call names no tool of the
 * catalog, has params its tool refuses, fails, or would change something: gold calls are read-only, so executing
 * them leaves what the runs see as it was.
 */
export async function executeGold(
  goals: readonly GoldenGoal[],
  packs: readonly ToolPack[],
  roots: Readonly<Record<string, string>> = {},
): Promise<Map<string, unknown[]>> {
  const data = new Map<string, unknown[]>();
  for (const goal of goals) {
    if (!goal.gold) continue;
    const pack = packs.find((p) => p.catalog === goal.catalog);
    const workspaceRoot = workspaceRootOf(goal);
    const results: unknown[] = [];
    for (const [i, call] of goal.gold.calls.entries()) {
      const where = `goal ${goal.id}, gold call ${i} (${call.tool})`;
      const tool = pack?.tools.find((t) => t.spec.name === call.tool);
      if (!tool)
        throw new Error(
          `${where}: the "${goal.catalog}" catalog has no such tool${pack?.unavailable ? ` (unavailable: ${pack.unavailable.message})` : ''}`,
        );
      if (!tool.spec.idempotent) throw new Error(`${where}: the tool has side effects; gold calls must be read-only`);
      const params = tool.paramsSchema.safeParse(withRoot(call.params, roots[goal.catalog], where));
      if (!params.success) throw new Error(`${where}: invalid params: ${formatZodIssues(params.error).join('; ')}`);
      const output = await tool
        .run(params.data, {
          idempotencyKey: `eval-gold:${goal.id}:${i}`,
          heartbeat: () => undefined,
          signal: new AbortController().signal,
          ...(workspaceRoot ? { workspaceRoot } : {}),
        })
        .catch((err: unknown) => {
          throw new Error(`${where}: ${err instanceof Error ? err.message : String(err)}`);
        });
      // As executeStep stores it: checked by the tool's result schema (which may drop fields), then canonical JSON.
      const checked = tool.resultSchema
        ? tool.resultSchema.safeParse(output.data)
        : { success: true as const, data: output.data };
      if (!checked.success)
        throw new Error(
          `${where}: result does not match the tool's schema: ${formatZodIssues(checked.error).join('; ')}`,
        );
      results.push(JSON.parse(canonicalJson(checked.data)) as unknown);
    }
    data.set(goal.id, results);
  }
  return data;
}
