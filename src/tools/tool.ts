/**
 * A tool implementation: the catalog entry the planner sees (`spec`), the zod schemas its params and result must
 * match, and `run`. Tools are served by workers on `spec.task_queue` through the `executeStep` activity, which
 * resolves templates, validates params, handles idempotency and stores the result; `run` only does the work.
 */
import type { FileHandle } from 'node:fs/promises';
import type { z } from 'zod';
import type { Usage } from '../domain/budget';
import type { PlannerError } from '../domain/errors';
import type { ClarificationLexicon } from '../domain/requirements';
import type { ToolSpec } from '../domain/tool-spec';

export interface ToolContext {
  /** Stable across retries of one step with the same params: side-effecting tools key their effect on it. */
  idempotencyKey: string;
  /** Tells Temporal the tool is alive; call it during long work (cheap, throttled by the SDK). */
  heartbeat(): void;
  /** Aborted when the step is cancelled (or its activity timed out); pass it to fetch, timers, child processes. */
  signal: AbortSignal;
  /**
   * The run's workspace root at its real path, when the run names one: executeStep has checked that it lies inside
   * the worker's allowed roots and that every path param stays inside it; resolve relative paths against it.
   */
  workspaceRoot?: string;
  /**
   * Opens a file for reading (absolute, or relative to workspaceRoot, else to the worker's folder) only when what was
   * opened lies inside the run's workspace root (else the worker's allowed roots); read from the handle. A tool that
   * reads files must open them with this, not by path: a path checked before the tool ran can be swapped for a
   * symlink before it opens it (OpenedOutsideRootError, src/tools/workspace/roots.ts). Set by executeStep; absent
   * only when a test calls `run` directly.
   */
  openFile?(path: string): Promise<FileHandle>;
}

export interface ToolOutput {
  data: unknown;
  /** What the call actually cost, when the tool knows; the spec's per-call estimates fill the gaps. */
  usage?: Partial<Usage>;
}

export interface ToolImplementation<P = any> {
  spec: ToolSpec;
  /** Parses the resolved params; its output is what `run` receives. */
  paramsSchema: z.ZodType<P>;
  /** When set, the data `run` returns must match it (a mismatch is a permanent step failure). */
  resultSchema?: z.ZodType;
  /**
   * For side-effecting tools (`spec.idempotent: false`): the tool dedupes its effect on ctx.idempotencyKey (or hands it
   * to a server that does, like an MCP server honouring the `_meta` key), so a retry whose earlier attempt's outcome
   * is unknown may run it again: exactly-once. Without it such a retry fails with StepOutcomeUnknownError
   * (at-most-once). Default false.
   */
  keyed?: boolean;
  /**
   * For a tool that opens files in a process of its own (an MCP server): the folders it may use besides the worker's
   * PLANNER_WORKSPACE_ROOTS (the server's `roots` in planner.config.json), and the folder its relative paths resolve
   * against (its `cwd`; default the worker's). Path params of a run without a workspace_root are kept inside them.
   */
  files?: { roots?: readonly string[]; cwd?: string };
  run(params: P, ctx: ToolContext): Promise<ToolOutput>;
}

/** The tools of one catalog, as a worker serves them; `close` releases what the pack holds (database, files). */
export interface ToolPack {
  catalog: string;
  tools: ToolImplementation[];
  /** Vague words of the pack's domain and the options the rule analyzer offers for them. */
  clarifications?: ClarificationLexicon;
  /**
   * Set on a pack whose tools could not be loaded when the worker started (an MCP server that did not start): its
   * catalog is unavailable (runs naming it get a retryable CatalogUnavailableError) until `recovered` settles.
   */
  unavailable?: PlannerError;
  /** With `unavailable`: the working pack once a background retry succeeds; null when the pack was closed first. */
  recovered?: Promise<ToolPack | null>;
  /**
   * Served on its own task queue even when the packs' tools join the planner's (PLANNER_TOOL_QUEUES=planner): an
   * external server (MCP) whose crash, hang or late start must not reach the planner's worker.
   */
  isolated?: boolean;
  close(): Promise<void>;
}

/** The catalog (what the planner sees) of a set of implementations. */
export function specsOf(tools: readonly ToolImplementation[]): ToolSpec[] {
  return tools.map((t) => t.spec);
}
