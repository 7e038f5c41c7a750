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
 * Each tool's spec also carries what the server says about itself (its instructions, resources and allowed
 * directories: self-description.ts), so the planners know, e.g., under which folder a filesystem server's paths lie.
 *
 * A server that cannot start does not stop the others: createMcpPacks returns an unavailable pack for it (no tools;
 * runs that name its catalog get a retryable CatalogUnavailableError from the planner) and keeps starting it in the
 * background, with backoff, until it starts (`recovered`) or the pack is closed.
 */
import { z } from 'zod';
import type { JsonSchema } from '../../domain/json-schema';
import { checkJsonSchema } from '../../domain/json-schema';
import { LISTED_PATHS } from '../../domain/paths';
import { nameTags } from '../../domain/text';
import { toolSpecFromJsonSchema, type ToolSpec } from '../../domain/tool-spec';
import type { ToolImplementation, ToolPack } from '../tool';
import type { McpServerConfig, PlannerConfig } from './config';
import { IDEMPOTENCY_KEY_META, McpConnection, type McpToolInfo } from './connection';
import { McpServerUnavailableError } from './errors';
import { describedSpec, describeServer } from './self-description';

export const MCP_TASK_QUEUE_PREFIX = 'durable-planner-tools-mcp-';

export function mcpTaskQueue(server: string): string {
  return `${MCP_TASK_QUEUE_PREFIX}${server}`;
}

/** Params checked against the tool's JSON Schema (the catalog's own checker, so planner and worker agree). */
export function jsonSchemaParams(schema: JsonSchema): z.ZodType<Record<string, unknown>> {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    for (const v of checkJsonSchema(value, schema)) {
      ctx.addIssue({
        code: 'custom',
        message: v.message,
        path: v.path === '' ? [] : v.path.split(/\.|\[(\d+)\]/).filter(Boolean),
      });
    }
  });
}

function inputSchemaOf(tool: McpToolInfo): JsonSchema {
  const schema = (tool.inputSchema ?? { type: 'object' }) as JsonSchema;
  return { ...schema, type: 'object', properties: schema.properties ?? {} };
}

/**
 * The tool's output schema with the `paths` list result.ts adds to a text result that lists absolute paths: declared
 * (optional) on every object result with a text field, so a plan may read `${step[N].data.paths}`.
 */
function withListedPathsField(output: JsonSchema): JsonSchema {
  const properties = output.properties ?? {};
  const hasText = Object.values(properties).some(
    (p) => typeof p === 'object' && p !== null && (p as JsonSchema).type === 'string',
  );
  if (output.type !== 'object' || !hasText || LISTED_PATHS in properties) return output;
  const paths: JsonSchema = {
    type: 'array',
    items: { type: 'string' },
    description: 'The absolute paths the text lists, one a line (present only when every line of it is one).',
  };
  return { ...output, properties: { ...properties, [LISTED_PATHS]: paths } };
}

export function mcpToolSpec(server: string, tool: McpToolInfo): ToolSpec {
  const annotations = tool.annotations ?? {};
  return toolSpecFromJsonSchema({
    name: tool.name,
    description: tool.description?.trim() || tool.annotations?.title || tool.title || tool.name,
    parameters: inputSchemaOf(tool),
    task_queue: mcpTaskQueue(server),
    idempotent: annotations.readOnlyHint === true || annotations.idempotentHint === true,
    tags: nameTags(tool.name),
    ...(tool.outputSchema ? { result: withListedPathsField(tool.outputSchema as JsonSchema) } : {}),
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
  /** Set when the server could not start: the pack has no tools and its catalog is unavailable until `recovered`. */
  unavailable?: McpServerUnavailableError;
  recovered?: Promise<McpPack | null>;
}

/** How often a server that could not start is tried again: after `first_ms`, doubling up to `max_ms` between tries. */
export interface StartRetry {
  first_ms: number;
  max_ms: number;
}
export const DEFAULT_START_RETRY: StartRetry = { first_ms: 1_000, max_ms: 60_000 };

/**
 * Starts `server` again and again in the background (backoff per `retry`) until it starts; `recovered` is then its
 * pack. `stop` ends the retries and closes a pack started meanwhile (`recovered` is then null). The timers do not
 * keep the process alive.
 */
function startInBackground(
  name: string,
  server: McpServerConfig,
  retry: StartRetry,
  log: (message: string) => void,
): { recovered: Promise<McpPack | null>; stop(): Promise<void> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<McpPack | null> | undefined;
  const recovered = (async (): Promise<McpPack | null> => {
    for (let delay = retry.first_ms; !stopped; delay = Math.min(delay * 2, retry.max_ms)) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
        timer.unref();
      });
      if (stopped) break;
      attempt = createMcpPack(name, server).catch(() => null);
      const pack = await attempt;
      if (!pack) continue;
      if (stopped) {
        await pack.close();
        break;
      }
      log(`MCP server "${name}" has started; the "${name}" catalog is available on this worker.`);
      return pack;
    }
    return null;
  })();
  return {
    recovered,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await attempt;
      const pack = await recovered;
      await pack?.close();
    },
  };
}

/** Connects to one server, lists its tools and returns them as a pack; throws McpServerUnavailableError when the server cannot start. */
export async function createMcpPack(server: string, config: McpServerConfig): Promise<McpPack> {
  const connection = new McpConnection(server, config);
  try {
    const listed = await connection.listTools();
    const about = await describeServer(connection, listed);
    const files = {
      ...(config.roots ? { roots: config.roots } : {}),
      ...('cwd' in config && config.cwd ? { cwd: config.cwd } : {}),
    };
    const tools: ToolImplementation<Record<string, unknown>>[] = listed.map((info) => {
      const spec = describedSpec(mcpToolSpec(server, info), about);
      const keyed = !spec.idempotent && acceptsIdempotencyKey(config, info);
      return {
        spec,
        paramsSchema: jsonSchemaParams(spec.parameters),
        ...(keyed ? { keyed } : {}),
        files,
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
    return { catalog: server, tools, connection, isolated: true, close: () => connection.close() };
  } catch (err) {
    await connection.close();
    throw err;
  }
}

/**
 * One pack per server of the config. A server that cannot start gives an unavailable pack (no tools, `unavailable`
 * set, logged on stderr) instead of stopping the worker: every other catalog keeps serving, and the server is tried
 * again in the background (`retry`, default DEFAULT_START_RETRY) until its pack is `recovered`.
 */
export async function createMcpPacks(
  config: PlannerConfig,
  options: { log?: (message: string) => void; retry?: StartRetry } = {},
): Promise<McpPack[]> {
  const log = options.log ?? ((m: string) => console.error(m));
  const retry = options.retry ?? DEFAULT_START_RETRY;
  return await Promise.all(
    Object.entries(config.mcpServers).map(async ([name, server]) => {
      try {
        return await createMcpPack(name, server);
      } catch (err) {
        const unavailable =
          err instanceof McpServerUnavailableError
            ? err
            : new McpServerUnavailableError(
                name,
                'cannot list tools',
                err instanceof Error ? err.message : String(err),
                { retryable: true, cause: err },
              );
        log(
          `${unavailable.message}\nThe "${name}" catalog is unavailable on this worker until the server starts (tried again in the background); the others keep serving.`,
        );
        const connection = new McpConnection(name, server);
        await connection.close();
        const later = startInBackground(name, server, retry, log);
        return {
          catalog: name,
          tools: [],
          connection,
          unavailable,
          recovered: later.recovered,
          isolated: true,
          close: later.stop,
        } satisfies McpPack;
      }
    }),
  );
}
