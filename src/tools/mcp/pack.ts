/**
 * MCP servers as tool packs: one pack per server (catalog = server name), one tool per MCP tool (name = the MCP
 * tool's name, parameters = its inputSchema, task queue `durable-planner-tools-mcp-<server>`). Calls go through an
 * McpConnection that starts the server lazily and restarts it once per call when it has died.
 *
 * Annotations decide how a call may be retried: `readOnlyHint` or `idempotentHint` → idempotent (retried freely);
 * otherwise side-effecting: executeStep writes its intent to the ledger first, and after an unknown outcome it calls
 * again only when the tool accepts the idempotency key (`accepts_idempotency_key` in the config, or the tool's own
 * `_meta` in tools/list); otherwise the step fails with StepOutcomeUnknownError. Every call carries the key in
 * `_meta` (IDEMPOTENCY_KEY_META).
 *
 * A server that cannot start does not stop the others: createMcpPacks returns an unavailable pack for it (no tools;
 * runs that name its catalog get a retryable CatalogUnavailableError from the planner).
 */
import { z } from 'zod';
import type { JsonSchema } from '../../domain/json-schema';
import { checkJsonSchema } from '../../domain/json-schema';
import { toolSpecFromJsonSchema, type ToolSpec } from '../../domain/tool-spec';
import type { ToolImplementation, ToolPack } from '../tool';
import type { McpServerConfig, PlannerConfig } from './config';
import { IDEMPOTENCY_KEY_META, McpConnection, type McpToolInfo } from './connection';
import { McpServerUnavailableError } from './errors';

export const MCP_TASK_QUEUE_PREFIX = 'durable-planner-tools-mcp-';

export function mcpTaskQueue(server: string): string {
  return `${MCP_TASK_QUEUE_PREFIX}${server}`;
}

const STOP_WORDS = new Set(['a', 'an', 'the', 'of', 'to', 'and', 'or', 'in', 'for', 'with', 'by', 'on']);

/** Lower-case words of a tool name: `list_directory` → list, directory; `readTextFile` → read, text, file. */
export function tagsOf(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w));
  return [...new Set(words)];
}

/** Params checked against the tool's JSON Schema (the catalog's own checker, so planner and worker agree). */
export function jsonSchemaParams(schema: JsonSchema): z.ZodType<Record<string, unknown>> {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    for (const v of checkJsonSchema(value, schema)) {
      ctx.addIssue({ code: 'custom', message: v.message, path: v.path === '' ? [] : v.path.split(/\.|\[(\d+)\]/).filter(Boolean) });
    }
  });
}

function inputSchemaOf(tool: McpToolInfo): JsonSchema {
  const schema = (tool.inputSchema ?? { type: 'object' }) as JsonSchema;
  return { ...schema, type: 'object', properties: schema.properties ?? {} };
}

export function mcpToolSpec(server: string, tool: McpToolInfo): ToolSpec {
  const annotations = tool.annotations ?? {};
  return toolSpecFromJsonSchema({
    name: tool.name,
    description: tool.description?.trim() || tool.annotations?.title || tool.title || tool.name,
    parameters: inputSchemaOf(tool),
    task_queue: mcpTaskQueue(server),
    idempotent: annotations.readOnlyHint === true || annotations.idempotentHint === true,
    tags: tagsOf(tool.name),
    ...(tool.outputSchema ? { result: tool.outputSchema as JsonSchema } : {}),
  });
}

/** The tool dedupes side effects on the `_meta` idempotency key: said by the config, or by the tool itself. */
export function acceptsIdempotencyKey(config: McpServerConfig, tool: McpToolInfo): boolean {
  const declared = config.accepts_idempotency_key;
  if (declared === true || (Array.isArray(declared) && declared.includes(tool.name))) return true;
  return tool._meta?.[IDEMPOTENCY_KEY_META] === true;
}

export interface McpPack extends ToolPack {
  connection: McpConnection;
  /** Set when the server could not start: the pack has no tools and its catalog is unavailable. */
  unavailable?: McpServerUnavailableError;
}

/** Connects to one server, lists its tools and returns them as a pack; throws McpServerUnavailableError when the server cannot start. */
export async function createMcpPack(server: string, config: McpServerConfig): Promise<McpPack> {
  const connection = new McpConnection(server, config);
  try {
    const listed = await connection.listTools();
    const tools: ToolImplementation<Record<string, unknown>>[] = listed.map((info) => {
      const spec = mcpToolSpec(server, info);
      const keyed = !spec.idempotent && acceptsIdempotencyKey(config, info);
      return {
        spec,
        paramsSchema: jsonSchemaParams(spec.parameters),
        ...(keyed ? { keyed } : {}),
        async run(params, ctx) {
          const data = await connection.callTool(info.name, params, {
            signal: ctx.signal,
            idempotent: spec.idempotent,
            keyed,
            idempotencyKey: ctx.idempotencyKey,
            heartbeat: ctx.heartbeat,
          });
          return { data };
        },
      };
    });
    return { catalog: server, tools, connection, close: () => connection.close() };
  } catch (err) {
    await connection.close();
    throw err;
  }
}

/**
 * One pack per server of the config. A server that cannot start gives an unavailable pack (no tools, `unavailable`
 * set, logged on stderr) instead of stopping the worker: every other catalog keeps serving.
 */
export async function createMcpPacks(config: PlannerConfig, options: { log?: (message: string) => void } = {}): Promise<McpPack[]> {
  const log = options.log ?? ((m: string) => console.error(m));
  return await Promise.all(
    Object.entries(config.mcpServers).map(async ([name, server]) => {
      try {
        return await createMcpPack(name, server);
      } catch (err) {
        const unavailable =
          err instanceof McpServerUnavailableError
            ? err
            : new McpServerUnavailableError(name, 'cannot list tools', err instanceof Error ? err.message : String(err), { retryable: true, cause: err });
        log(`${unavailable.message}\nThe "${name}" catalog is unavailable on this worker; the others keep serving.`);
        const connection = new McpConnection(name, server);
        await connection.close();
        return { catalog: name, tools: [], connection, unavailable, close: async () => undefined } satisfies McpPack;
      }
    }),
  );
}
