/**
 * The `executeStep` activity: runs one plan step on the worker pool that serves its tool (the workflow proxies it on
 * the tool's task queue). Contract: StepExecutionInputSchema in, StepResultSchema out (src/domain/step-execution.ts).
 *
 *   parse input → find the tool → load the results the params' templates reference (inline data or the content
 *   store) → resolve templates (a `.*` list given to a one-value param: one call per value, ../domain/fan-out) → parse params with the tool's zod schema → keep file params inside workspace_root
 *   (the root itself must lie inside the worker's allowed roots; without one, inside those roots and the tool's
 *   own; each path param, found by the tool's schema or, for MCP, also by naming an existing entry, is followed to
 *   its real path; ctx.openFile checks again what a tool opens) → idempotency key → run (heartbeats, cancellation; for non-idempotent tools an intent
 *   in the ledger first, and no second run after an unknown outcome unless the tool is `keyed`: see
 *   src/store/idempotency.ts) → check the result
 *   against the tool's result schema → store the data → StepResult (data inlined when small).
 *
 * Planner errors leave as non-retryable ApplicationFailures (withPlannerFailures); any other error a tool throws is
 * passed through, so Temporal retries it per the step's retry policy. A tool reports a permanent failure by throwing
 * a StepFailedError with retryable = false.
 */
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import { addUsage, callUsage, ZERO_USAGE, type Usage } from '../domain/budget';
import { combineFannedData, fanOut } from '../domain/fan-out';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import { isInsideWorkspace, pathParamValues, type PathParamValue } from '../domain/paths';
import {
  idempotencyScopeOf,
  INLINE_RESULT_BYTES,
  StepExecutionInputSchema,
  previewOf,
  type StepExecutionInput,
  type StepResult,
} from '../domain/step-execution';
import { referencedSteps, resolveTemplates } from '../domain/templates';
import { forEachString, formatPath } from '../domain/walk';
import { canonicalJson } from '../domain/canonical-json';
import { sha256Hex } from '../sha256';
import type { ContentStore, WriteOrigin } from '../store/content-store';
import { PathOutsideWorkspaceError, StepParamsError, ToolResultError, UnknownToolError } from '../tools/errors';
import { once, type IdempotencyLedger } from '../store/idempotency';
import { allowedWorkspaceRoot, openInsideRoot, realPathOf } from '../tools/workspace/roots';
import type { ToolContext, ToolImplementation, ToolOutput } from '../tools/tool';
import { withPlannerFailures } from '../api/failures';
import { observedToolCall } from '../telemetry/observe';

export interface ToolActivityDependencies {
  tools: readonly ToolImplementation[];
  store: ContentStore;
  /** Where non-idempotent tools record their intents and results (the planning dependencies' ledger). */
  ledger: IdempotencyLedger;
  /** The folders a step's workspace_root may name or lie inside (config.workspaceRoots). */
  workspaceRoots: readonly string[];
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
 * Where a step's file params must stay: inside `roots` (real paths), relative values taken from `base` (a real path).
 * With a workspace_root that is the root alone; without one, the worker's allowed roots and the tool's own
 * (`files.roots`, an MCP server's from planner.config.json), relative to the tool's folder.
 */
export interface PathConfinement {
  /** What a refusal names: the run's workspace_root as given, or the allowed roots. */
  label: string;
  base: string;
  roots: readonly string[];
  /** The run's workspace_root as given: a value under it is lexically inside too (it may differ from its real path). */
  given?: string;
}

const MAX_PATH_CHARS = 4096;

/** Whether `value` names an existing file system entry (absolute, or relative to `base`); never follows the last link. */
async function namesAnEntry(value: string, base: string): Promise<boolean> {
  if (value === '' || value.length > MAX_PATH_CHARS || value.includes('\0')) return false;
  return fs.lstat(value.startsWith('/') ? value : nodePath.join(base, value)).then(
    () => true,
    () => false,
  );
}

/**
 * The param values of `tool` that are file paths: its schema's x-path marks; for schemas without marks (MCP, mode
 * "by-name") also the name/value heuristic, and any other string that names an existing entry, whatever the param is
 * called (`{"location": "link/hostname"}`).
 */
async function pathValuesOf(tool: ToolImplementation, params: unknown, base: string): Promise<PathParamValue[]> {
  const found = pathParamValues(params, tool.spec.parameters, tool.spec.path_params);
  if (tool.spec.path_params !== 'by-name') return found;
  const known = new Set(found.map((f) => formatPath(f.at)));
  const others: PathParamValue[] = [];
  forEachString(params, (value, at) => {
    if (!known.has(formatPath(at))) others.push({ at: [...at], value });
  });
  for (const other of others) if (await namesAnEntry(other.value, base)) found.push(other);
  return found;
}

/**
 * Every path param of `tool` must stay inside the confinement: lexically, then at its real path, each component
 * followed the way the OS will (symlinks, then ".."). Throws PathOutsideWorkspaceError before the tool runs. A tool
 * that opens the file itself does so with ctx.openFile, which checks again what it opened.
 */
export async function checkPaths(
  tool: ToolImplementation,
  params: unknown,
  confinement: PathConfinement,
): Promise<void> {
  const { base, roots, given, label } = confinement;
  const inside = (path: string) => roots.some((root) => isInsideWorkspace(path, root));
  for (const { at, value } of await pathValuesOf(tool, params, base)) {
    const param = formatPath(at);
    const full = value.startsWith('/') ? value : `${base}/${value}`;
    if (!inside(full) && !(given !== undefined && isInsideWorkspace(value, given))) {
      throw new PathOutsideWorkspaceError(tool.spec.name, param, value, label);
    }
    let real: string;
    try {
      real = await realPathOf(value, base);
    } catch (err) {
      throw new PathOutsideWorkspaceError(
        tool.spec.name,
        param,
        value,
        label,
        `unresolvable: ${(err as Error).message}`,
      );
    }
    if (!inside(real)) throw new PathOutsideWorkspaceError(tool.spec.name, param, value, label, real);
  }
}

/** The real path of each folder of `paths`; one missing on this machine (a remote MCP server's) as written. */
async function realFolders(paths: readonly string[]): Promise<string[]> {
  return [...new Set(await Promise.all(paths.map((p) => fs.realpath(p).catch(() => nodePath.resolve(p)))))];
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
  const { ledger, workspaceRoots } = deps;

  async function loadResults(
    input: z.output<typeof StepExecutionInputSchema>,
  ): Promise<Record<number, { data: unknown }>> {
    const results: Record<number, { data: unknown }> = {};
    for (const step of referencedSteps(input.params)) {
      const given = input.inputs[String(step)];
      if (!given) continue; // resolveTemplates reports the missing result with its template and param
      results[step] = { data: given.data !== undefined ? given.data : await deps.store.get(given.ref!) };
    }
    return results;
  }

  async function runTool(
    tool: ToolImplementation,
    params: unknown,
    ctx: ToolContext,
    origin: WriteOrigin,
  ): Promise<{ output: ToolOutput; replayed: boolean }> {
    const activity = Context.current();
    const every = activity.info.heartbeatTimeoutMs
      ? Math.max(200, Math.floor(activity.info.heartbeatTimeoutMs / 3))
      : 0;
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
      throw new InvalidInputError(
        'executeStep: invalid input',
        'The workflow sent input this worker does not understand; check that workflow and worker versions match.',
        {
          issues: formatZodIssues(parsed.error),
        },
      );
    }
    const input = parsed.data;
    const entry = byName.get(input.tool);
    if (!entry) throw new UnknownToolError(input.tool, served, queues);
    const { tool } = entry;
    // A root outside the worker's allowed roots is refused (PLAN-006) before anything is read; a run without one is
    // kept inside the allowed roots all the same (and the tool's own, e.g. an MCP server's configured folders).
    const root =
      input.workspace_root === undefined ? undefined : await allowedWorkspaceRoot(input.workspace_root, workspaceRoots);
    const confinement: PathConfinement = root
      ? { label: input.workspace_root!, base: root, roots: [root], given: input.workspace_root! }
      : {
          label: [...workspaceRoots, ...(tool.files?.roots ?? [])].join(', '),
          base: await fs
            .realpath(tool.files?.cwd ?? process.cwd())
            .catch(() => nodePath.resolve(tool.files?.cwd ?? '.')),
          roots: await realFolders([...workspaceRoots, ...(tool.files?.roots ?? [])]),
        };

    const resolved = resolveTemplates(input.params, await loadResults(input));
    // One call, or one per value where a `.*` template gave a list to a param that takes one value.
    const calls = fanOut(input.params, resolved, tool.spec.parameters).map((set) => {
      const checked = entry.params.safeParse(set);
      if (!checked.success) throw new StepParamsError(tool.spec.name, formatZodIssues(checked.error));
      return checked.data as unknown;
    });
    for (const params of calls) await checkPaths(tool, params, confinement);

    const activity = Context.current();
    const workflowId = input.workflow_id ?? activity.info.workflowExecution?.workflowId;
    if (!workflowId)
      throw new InvalidInputError(
        'executeStep: no workflow id',
        'Outside a workflow, send workflow_id with the step.',
        {},
      );
    const scope = idempotencyScopeOf(input, workflowId);
    const origin = { workflowId };
    const outputs: { output: ToolOutput; replayed: boolean }[] = [];
    for (const params of calls) {
      const ctx: ToolContext = {
        idempotencyKey: idempotencyKey(scope, tool.spec.name, params),
        heartbeat: () => activity.heartbeat(),
        signal: activity.cancellationSignal,
        ...(root ? { workspaceRoot: root } : {}),
        openFile: (path) => openInsideRoot(path, confinement.base, confinement.roots),
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
      attempts: Context.current().info.attempt,
    };
    log.info(
      `step ${input.step_index} ${tool.spec.name}: ${result.items ?? 'no'} items, ${bytes} bytes${replayed ? ', replayed' : ''}`,
      {
        workflow_id: workflowId,
        plan_version: input.plan_version,
        step_id: input.step_id,
        tool: tool.spec.name,
        items: result.items,
        bytes,
        ref,
        replayed,
        duration_ms: Date.now() - started,
      },
    );
    return result;
  }

  return { executeStep: withPlannerFailures(observedToolCall(executeStep)) };
}

export type ToolActivities = ReturnType<typeof createToolActivities>;
