/**
 * `planner.config.json`: the MCP servers the tool workers connect to, in Claude Desktop's format:
 *
 *   { "mcpServers": {
 *       "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/data"], "env": {}, "cwd": "/", "roots": ["/data"] },
 *       "search": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ..." } } } }
 *
 * A stdio server is a command the worker spawns; a Streamable HTTP server is a URL. The server name becomes the
 * catalog name and part of the task queue (`durable-planner-tools-mcp-<name>`).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InvalidInputError, formatZodIssues } from '../../domain/errors';

export const CONFIG_FILE = 'planner.config.json';
const SERVER_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

const Common = {
  /** Timeout of one tool call in milliseconds (default 60 s, the SDK's). */
  timeout_ms: z.number().int().positive().optional(),
  /** Largest tool result accepted, in bytes (default 1 MB); a larger one is a permanent McpResultTooLargeError. */
  max_result_bytes: z.number().int().positive().optional(),
  /**
   * The server dedupes side-effecting calls on the idempotency key the worker sends in `_meta`
   * ("io.durable-planner/idempotency-key"): true for all its tools, or the names of those that do. A tool can also
   * say so itself with `_meta: { "io.durable-planner/idempotency-key": true }` in tools/list.
   */
  accepts_idempotency_key: z.union([z.boolean(), z.array(z.string())]).optional(),
  /**
   * The folders (absolute) the server's tools may name in path params besides the worker's PLANNER_WORKSPACE_ROOTS,
   * e.g. the folder a filesystem server serves. An operator decision, like the server's own arguments.
   */
  roots: z.array(z.string().startsWith('/', 'must be an absolute path').max(4096)).max(64).optional(),
};

export const StdioServerSchema = z.strictObject({
  command: z.string().min(1, 'must name the executable to run'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  /** How long the server gets to exit after stdin closes, and again after SIGTERM, before SIGKILL (default 2000). */
  close_grace_ms: z.number().int().nonnegative().optional(),
  ...Common,
});

export const HttpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  headers: z.record(z.string(), z.string()).default({}),
  ...Common,
});

export const McpServerConfigSchema = z.union([StdioServerSchema, HttpServerSchema], {
  error: 'must be either { "command", "args", "env", "cwd" } (stdio) or { "url", "headers" } (Streamable HTTP)',
});

export const PlannerConfigSchema = z.object({
  mcpServers: z
    .record(z.string(), McpServerConfigSchema)
    .superRefine((servers, ctx) => {
      for (const name of Object.keys(servers)) {
        if (!SERVER_NAME.test(name)) {
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `bad server name "${name}": server names are letters, digits, _ . - only (at most 64)`,
          });
        }
      }
    })
    .default({}),
});

export type StdioServerConfig = z.output<typeof StdioServerSchema>;
export type HttpServerConfig = z.output<typeof HttpServerSchema>;
export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type PlannerConfig = z.output<typeof PlannerConfigSchema>;

export function isStdioServer(config: McpServerConfig): config is StdioServerConfig {
  return 'command' in config;
}

const HINT =
  'planner.config.json must look like { "mcpServers": { "<name>": { "command": "...", "args": [], "env": {}, "cwd": "..." } or { "url": "https://...", "headers": {} } } }.';

/** Parses a config object (already JSON-decoded); InvalidInputError lists every problem. */
export function parsePlannerConfig(value: unknown, source = CONFIG_FILE): PlannerConfig {
  const parsed = PlannerConfigSchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidInputError(`${source} is invalid:\n${formatZodIssues(parsed.error).join('\n')}`, HINT, {
      source,
      issues: formatZodIssues(parsed.error),
    });
  }
  return parsed.data;
}

/** Parses the text of a config file. */
export function parsePlannerConfigText(text: string, source = CONFIG_FILE): PlannerConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError(`${source} is not valid JSON: ${(err as Error).message}`, HINT, { source });
  }
  return parsePlannerConfig(value, source);
}

/**
 * Reads the config file. A missing file means "no MCP servers" unless `required` (a path the user named explicitly).
 */
export function loadPlannerConfig(file = CONFIG_FILE, options: { required?: boolean } = {}): PlannerConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !options.required) return { mcpServers: {} };
    throw new InvalidInputError(
      `cannot read ${file}: ${(err as Error).message}`,
      `Create ${file} or point to an existing file. ${HINT}`,
      {
        source: file,
      },
    );
  }
  return parsePlannerConfigText(text, file);
}
