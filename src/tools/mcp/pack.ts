/**
 * MCP servers as tool packs: one pack per server (catalog = server name), one tool per MCP tool (name = the MCP
 * tool's name, parameters = its inputSchema, task queue `durable-planner-tools-mcp-<server>`). Calls go through an
 * McpConnection that starts the server lazily and restarts it once per call when it has died.
 */
import { z } from 'zod';
import type { JsonSchema } from '../../domain/json-schema';
import { checkJsonSchema } from '../../domain/json-schema';
import { toolSpecFromJsonSchema, type ToolSpec } from '../../domain/tool-spec';
import type { ToolImplementation, ToolPack } from '../tool';
import type { McpServerConfig, PlannerConfig } from './config';
import { McpConnection, type McpToolInfo } from './connection';

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

export interface McpPack extends ToolPack {
  connection: McpConnection;
}

/** Connects to one server, lists its tools and returns them as a pack; throws McpServerUnavailableError when the server cannot start. */
export async function createMcpPack(server: string, config: McpServerConfig): Promise<McpPack> {
  const connection = new McpConnection(server, config);
  try {
    const listed = await connection.listTools();
    const tools: ToolImplementation<Record<string, unknown>>[] = listed.map((info) => {
      const spec = mcpToolSpec(server, info);
      return {
        spec,
        paramsSchema: jsonSchemaParams(spec.parameters),
        async run(params, ctx) {
          return { data: await connection.callTool(info.name, params, { signal: ctx.signal, idempotent: spec.idempotent, heartbeat: ctx.heartbeat }) };
        },
      };
    });
    return { catalog: server, tools, connection, close: () => connection.close() };
  } catch (err) {
    await connection.close();
    throw err;
  }
}

/** One pack per server of the config; on a failure the packs already made are closed. */
export async function createMcpPacks(config: PlannerConfig): Promise<McpPack[]> {
  const packs: McpPack[] = [];
  try {
    for (const [name, server] of Object.entries(config.mcpServers)) packs.push(await createMcpPack(name, server));
    return packs;
  } catch (err) {
    await Promise.allSettled(packs.map((p) => p.close()));
    throw err;
  }
}
