/**
 * The workspace pack (catalog `workspace`, its own task queue): `workspace-context` gathers the files of a
 * workspace that matter for a goal into a token-budgeted prompt text, so a plan can collect context as a step.
 * Read-only, hence idempotent (same files, same result).
 */
import { z } from 'zod';
import { toolSpecFromZod, type ToolSpec } from '../../domain/tool-spec';
import type { ToolImplementation, ToolPack } from '../tool';
import { gatherWorkspaceContext } from './context';
import { allowedWorkspaceRoot } from './roots';

export {
  DEFAULT_EXCLUDE,
  DEFAULT_INCLUDE,
  DEFAULT_MAX_FILE_BYTES,
  gatherWorkspaceContext,
  renderTree,
  type ContextFile,
  type FileInclusion,
  type GatherWorkspaceContextOptions,
  type WorkspaceContext,
} from './context';
export { compileGlob, matchesGlob, type CompiledGlob } from './glob';
export { countTokens, TOKENIZER } from './tokens';
export { allowedWorkspaceRoot, openInsideRoot, readDirInsideRoot, realPathOf } from './roots';

export const WORKSPACE_CATALOG_NAME = 'workspace';
export const WORKSPACE_TOOLS_QUEUE = 'durable-planner-tools-workspace';
export const WORKSPACE_CONTEXT_TOOL = 'workspace-context';

const globs = (what: string) =>
  z
    .array(z.string().min(1))
    .max(100)
    .optional()
    .describe(`${what} globs relative to the workspace root (** , * and ? only)`);

export const WorkspaceContextParams = z.object({
  goal: z.string().min(1).describe('The coding goal the context is for; its words rank the files'),
  include: globs('Files to consider, default everything:'),
  exclude: globs('Files to leave out, default node_modules, .git, dist, lockfiles and binaries:'),
  max_context_tokens: z
    .number()
    .int()
    .min(1)
    .max(2_000_000)
    .describe('Token budget of the returned text (o200k_base tokens)'),
});

export const WorkspaceContextResult = z.object({
  structure: z.string(),
  files: z.array(
    z.object({
      path: z.string(),
      tokens: z.number().int().nonnegative(),
      included: z.enum(['full', 'trimmed', 'omitted']),
      reason: z.string(),
      score: z.number(),
      included_tokens: z.number().int().nonnegative(),
    }),
  ),
  text: z.string(),
  total_tokens: z.number().int().nonnegative(),
  budget: z.number().int().positive(),
  tokenizer: z.literal('o200k_base'),
  walk_truncated: z.boolean(),
});

export const WORKSPACE_CATALOG: ToolSpec[] = [
  toolSpecFromZod({
    name: WORKSPACE_CONTEXT_TOOL,
    description:
      'Gathers workspace context for a coding goal: a tree of the files and the most relevant files in full (one trimmed), ranked by the goal words, within max_context_tokens. Read-only.',
    params: WorkspaceContextParams,
    result: WorkspaceContextResult,
    task_queue: WORKSPACE_TOOLS_QUEUE,
    idempotent: true,
    tags: ['workspace', 'context', 'code', 'files', 'read', 'repository', 'source'],
  }),
];

export interface WorkspacePackOptions {
  /** The folders a run's workspace_root may name or lie inside (config.workspaceRoots); default [root]. */
  allowedRoots?: readonly string[];
}

export function createWorkspaceContextTool(
  root: string,
  options: WorkspacePackOptions = {},
): ToolImplementation<z.output<typeof WorkspaceContextParams>> {
  const allowed = options.allowedRoots ?? [root];
  return {
    spec: WORKSPACE_CATALOG[0]!,
    paramsSchema: WorkspaceContextParams,
    resultSchema: WorkspaceContextResult,
    async run(p, ctx) {
      // A run's own workspace (constraints.workspace_root) wins over the folder the worker was started for, but only
      // inside the allowed roots (WorkspaceRootNotAllowedError, PLAN-006, otherwise); it is read at its real path.
      const base = ctx.workspaceRoot !== undefined ? await allowedWorkspaceRoot(ctx.workspaceRoot, allowed) : root;
      const data = await gatherWorkspaceContext({
        root: base,
        goal: p.goal,
        ...(p.include ? { include: p.include } : {}),
        ...(p.exclude ? { exclude: p.exclude } : {}),
        max_context_tokens: p.max_context_tokens,
        signal: ctx.signal,
        heartbeat: () => ctx.heartbeat(),
      });
      return { data };
    },
  };
}

/**
 * The workspace pack over the folder `root` (absolute; checked when the tool runs), unless a run names its own
 * inside `options.allowedRoots`.
 */
export function createWorkspacePack(root: string, options: WorkspacePackOptions = {}): ToolPack {
  return { catalog: WORKSPACE_CATALOG_NAME, tools: [createWorkspaceContextTool(root, options)], close: async () => {} };
}
