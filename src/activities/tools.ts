/**
 * The `executeStep` activity: runs one plan step on the worker pool that serves its tool (the workflow proxies it on
 * the tool's task queue). Contract: StepExecutionInputSchema in, StepResultSchema out (src/domain/step-execution.ts).
 *
 *   parse input → find the tool → load the results the params' templates reference (inline data or the content
 *   store) → resolve templates (a `.*` list given to a one-value param: one call per value, ../domain/fan-out) → parse params with the tool's zod schema → keep file params inside workspace_root
 *   (the root itself must lie inside the worker's allowed roots; each path param, found by the tool's schema, is
 *   followed to its real path) → idempotency key → run (heartbeats, cancellation; for non-idempotent tools an intent
 *   in the ledger first, and no second run after an unknown outcome unless the tool is `keyed`: see
 *   src/tools/idempotency.ts) → check the result
 *   against the tool's result schema → store the data → StepResult (data inlined when small).
 *
 * Planner errors leave as non-retryable ApplicationFailures (withPlannerFailures); any other error a tool throws is
 * passed through, so Temporal retries it per the step's retry policy. A tool reports a permanent failure by throwing
 * a StepFailedError with retryable = false.
 */
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { loadConfig } from '../config';
import { addUsage, callUsage, ZERO_USAGE, type Usage } from '../domain/budget';
import { combineFannedData, fanOut } from '../domain/fan-out';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import { isInsideWorkspace, pathParamValues } from '../domain/paths';
import { idempotencyScopeOf, INLINE_RESULT_BYTES, StepExecutionInputSchema, previewOf, type StepExecutionInput, type StepResult } from '../domain/step-execution';
import { referencedSteps, resolveTemplates } from '../domain/templates';
import { formatPath } from '../domain/walk';
import { canonicalJson } from '../domain/canonical-json';
import { sha256Hex } from '../sha256';
import type { ContentStore, WriteOrigin } from '../store/content-store';
import { PathOutsideWorkspaceError, StepParamsError, ToolResultError, UnknownToolError } from '../tools/errors';
import { ledgerBeside, once, type IdempotencyLedger } from '../tools/idempotency';
import { allowedWorkspaceRoot, realPathOf } from '../tools/workspace/roots';
import type { ToolContext, ToolImplementation, ToolOutput } from '../tools/tool';
import { withPlannerFailures } from '../api/failures';
import { observedToolCall } from '../telemetry/observe';

export interface ToolActivityDependencies {
  tools: readonly ToolImplementation[];
  store: ContentStore;
  /** Where non-idempotent tools record their intents and results; default: the file ledger beside the store (ledgerBeside). */
  ledger?: IdempotencyLedger;
  /** The folders a step's workspace_root may name or lie inside; default: loadConfig().workspaceRoots. */
  workspaceRoots?: readonly string[];
}

/** `${scope}:${sha256(tool + canonical params)}`: the same for every attempt of a step, different when params differ. */
export function idempotencyKey(scope: string, tool: string, params: unknown): string {
  return `${scope}:${sha256Hex(`${tool}\n${canonicalJson(params)}`)}`;
}

function strictParams(schema: z.ZodType): z.ZodType {
  // A plain z.object strips unknown keys, which would hide a planner mistake; the catalog (toolSpecFromZod) already
  // declares additionalProperties: false, so reject them here too unless the schema chose catchall/passthrough.
  if (schema instanceof z.ZodObject && schema._zod.def.catchall === undefined) return schema.strict();
  return schema;
}

/**
 * Every path param of `tool` (its schema's x-path marks; the name heuristic for MCP schemas) must stay inside the
 * workspace: lexically (as plan validation checks), then at its real path, each component followed the way the OS
 * will (symlinks, then ".."), against the root's real path. Throws PathOutsideWorkspaceError before the tool runs.
 */
export async function checkPaths(tool: ToolImplementation, params: unknown, root: { given: string; real: string }): Promise<void> {
  for (const { at, value } of pathParamValues(params, tool.spec.parameters, tool.spec.path_params)) {
    const param = formatPath(at);
    if (!isInsideWorkspace(value, root.given) && !isInsideWorkspace(value, root.real)) {
      throw new PathOutsideWorkspaceError(tool.spec.name, param, value, root.given);
    }
    let real: string;
    try {
      real = await realPathOf(value, root.real);
    } catch (err) {
      throw new PathOutsideWorkspaceError(tool.spec.name, param, value, root.given, `unresolvable: ${(err as Error).message}`);
    }
    if (!isInsideWorkspace(real, root.real)) throw new PathOutsideWorkspaceError(tool.spec.name, param, value, root.given, real);
  }
}

function usageOf(tool: ToolImplementation, reported: Partial<Usage> | undefined): Usage {
  return {
    ...callUsage(reported?.cost_usd ?? tool.spec.cost_per_call_usd, reported?.tokens ?? tool.spec.tokens_per_call),
    calls: 1,
  };
}

export function createToolActivities(deps: ToolActivityDependencies) {
  const byName = new Map(deps.tools.map((t) => [t.spec.name, { tool: t, params: strictParams(t.paramsSchema) }]));
  const served = [...byName.keys()].sort();
  const queues = [...new Set(deps.tools.map((t) => t.spec.task_queue))].sort();
  const ledger = deps.ledger ?? ledgerBeside(deps.store, loadConfig().storeDir);
  const workspaceRoots = deps.workspaceRoots ?? loadConfig().workspaceRoots;

  async function loadResults(input: z.output<typeof StepExecutionInputSchema>): Promise<Record<number, { data: unknown }>> {
    const results: Record<number, { data: unknown }> = {};
    for (const step of referencedSteps(input.params)) {
      const given = input.inputs[String(step)];
      if (!given) continue; // resolveTemplates reports the missing result with its template and param
      results[step] = { data: given.data !== undefined ? given.data : await deps.store.get(given.ref!) };
    }
    return results;
  }

  async function runTool(tool: ToolImplementation, params: unknown, ctx: ToolContext, origin: WriteOrigin): Promise<{ output: ToolOutput; replayed: boolean }> {
    const activity = Context.current();
    const every = activity.info.heartbeatTimeoutMs ? Math.max(200, Math.floor(activity.info.heartbeatTimeoutMs / 3)) : 0;
    const timer = every > 0 ? setInterval(() => activity.heartbeat(), every) : undefined;
    try {
      const call = async (): Promise<ToolOutput> => {
        const out = await Promise.race([tool.run(params, ctx), activity.cancelled]);
        return { data: out.data === undefined ? null : out.data, ...(out.usage ? { usage: out.usage } : {}) };
      };
      if (tool.spec.idempotent) return { output: await call(), replayed: false };
      const { value, replayed } = await once(ledger, ctx.idempotencyKey, call, {
        keyed: tool.keyed === true,
        details: { tool: tool.spec.name, attempt: activity.info.attempt },
        origin,
      });
      return { output: value, replayed };
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  async function executeStep(raw: StepExecutionInput): Promise<StepResult> {
    const started = Date.now();
    const parsed = StepExecutionInputSchema.safeParse(raw);
    if (!parsed.success) {
      throw new InvalidInputError('executeStep: invalid input', 'The workflow sent input this worker does not understand; check that workflow and worker versions match.', {
        issues: formatZodIssues(parsed.error),
      });
    }
    const input = parsed.data;
    const entry = byName.get(input.tool);
    if (!entry) throw new UnknownToolError(input.tool, served, queues);
    const { tool } = entry;
    // A root outside the worker's allowed roots is refused (PLAN-006) before anything is read.
    const root = input.workspace_root === undefined ? undefined : { given: input.workspace_root, real: await allowedWorkspaceRoot(input.workspace_root, workspaceRoots) };

    const resolved = resolveTemplates(input.params, await loadResults(input));
    // One call, or one per value where a `.*` template gave a list to a param that takes one value.
    const calls = fanOut(input.params, resolved, tool.spec.parameters).map((set) => {
      const checked = entry.params.safeParse(set);
      if (!checked.success) throw new StepParamsError(tool.spec.name, formatZodIssues(checked.error));
      return checked.data as unknown;
    });
    if (root) for (const params of calls) await checkPaths(tool, params, root);

    const activity = Context.current();
    const workflowId = input.workflow_id ?? activity.info.workflowExecution?.workflowId;
    if (!workflowId) throw new InvalidInputError('executeStep: no workflow id', 'Outside a workflow, send workflow_id with the step.', {});
    const scope = idempotencyScopeOf(input, workflowId);
    const origin = { workflowId };
    const outputs: { output: ToolOutput; replayed: boolean }[] = [];
    for (const params of calls) {
      const ctx: ToolContext = {
        idempotencyKey: idempotencyKey(scope, tool.spec.name, params),
        heartbeat: () => activity.heartbeat(),
        signal: activity.cancellationSignal,
        ...(root ? { workspaceRoot: root.real } : {}),
      };
      outputs.push(await runTool(tool, params, ctx, origin));
    }
    const key = idempotencyKey(scope, tool.spec.name, calls.length === 1 ? calls[0] : calls);
    const replayed = outputs.some((o) => o.replayed);
    const usage = outputs.reduce((sum, o) => addUsage(sum, usageOf(tool, o.output.usage)), ZERO_USAGE);

    let data = calls.length === 1 ? outputs[0]!.output.data : combineFannedData(outputs.map((o) => o.output.data));
    if (tool.resultSchema) {
      const valid = tool.resultSchema.safeParse(data);
      if (!valid.success) throw new ToolResultError(tool.spec.name, formatZodIssues(valid.error));
      data = valid.data;
    }
    const text = canonicalJson(data);
    data = JSON.parse(text) as unknown; // the inline copy is exactly what the store holds
    const { ref, bytes } = await deps.store.put(data, origin);
    const result: StepResult = {
      ref,
      bytes,
      items: Array.isArray(data) ? data.length : null,
      preview: previewOf(text),
      ...(bytes <= INLINE_RESULT_BYTES ? { data } : {}),
      usage,
      idempotency_key: key,
      replayed,
    };
    log.info(`step ${input.step_index} ${tool.spec.name}: ${result.items ?? 'no'} items, ${bytes} bytes${replayed ? ', replayed' : ''}`, {
      workflow_id: workflowId,
      plan_version: input.plan_version,
      step_id: input.step_id,
      tool: tool.spec.name,
      items: result.items,
      bytes,
      ref,
      replayed,
      duration_ms: Date.now() - started,
    });
    return result;
  }

  return { executeStep: withPlannerFailures(observedToolCall(executeStep)) };
}

export type ToolActivities = ReturnType<typeof createToolActivities>;
