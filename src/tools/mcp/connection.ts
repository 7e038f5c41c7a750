/**
 * One client connection to one MCP server, opened lazily: over stdio (the worker spawns the server in a process
 * group of its own, see stdio-transport.ts) or Streamable HTTP. When the server dies (its process exits, the
 * connection closes), every call in flight on it gets a typed error and the next call starts it again.
 *
 * A call whose connection dies (or times out) after the request was sent:
 *   - idempotent tool (readOnlyHint / idempotentHint): retried once on a new connection, then a retryable
 *     McpServerUnavailableError, so Temporal retries the step on its own schedule;
 *   - side-effecting tool that accepts the idempotency key (sent in `_meta` as IDEMPOTENCY_KEY_META): a retryable
 *     McpServerUnavailableError; the retry sends the same key and the server dedupes;
 *   - any other side-effecting tool: StepOutcomeUnknownError (PLAN-014, never retried): it may have acted.
 * A result larger than `max_result_bytes` (default 1 MB) is a permanent McpResultTooLargeError.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StepOutcomeUnknownError } from '../../domain/errors';
import { isStdioServer, type McpServerConfig } from './config';
import { McpProtocolError, McpResultTooLargeError, McpServerUnavailableError } from './errors';
import { mcpResultData, type McpCallResult } from './result';
import { GroupStdioTransport, RESULT_TOO_LARGE } from './stdio-transport';

const CLIENT_INFO = { name: 'durable-planner', version: '0.1.0' };
const STDERR_KEEP = 4_000;
/** Default largest tool result, in bytes. */
export const DEFAULT_MAX_RESULT_BYTES = 1_000_000;
/** The `_meta` field of a tools/call request that carries the step's idempotency key. */
export const IDEMPOTENCY_KEY_META = 'io.durable-planner/idempotency-key';

/** What listTools reports about a tool (the fields the pack uses). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    idempotentHint?: boolean;
    destructiveHint?: boolean;
    openWorldHint?: boolean;
  };
  _meta?: Record<string, unknown>;
}

interface Live {
  client: Client;
  transport: Transport;
  closed: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Safe to send again when the connection died during the call. */
  idempotent?: boolean;
  /** The step's idempotency key, sent in `_meta` (IDEMPOTENCY_KEY_META). */
  idempotencyKey?: string;
  /** The server dedupes on the key: a lost call may be sent again (with the same key). */
  keyed?: boolean;
  /** Called on progress notifications (keeps the step's heartbeat going during long calls). */
  heartbeat?: () => void;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class McpConnection {
  private live?: Live;
  private opening?: Promise<Live>;
  private stopped = false;
  private stderr = '';
  /** How many times a server was started (1 after the first connect; more after restarts). */
  starts = 0;

  constructor(
    readonly server: string,
    readonly config: McpServerConfig,
  ) {}

  /** Process id of a running stdio server (for tests and diagnostics). */
  get pid(): number | null {
    const t = this.live?.transport;
    return t instanceof GroupStdioTransport && !this.live!.closed ? t.pid : null;
  }

  get maxResultBytes(): number {
    return this.config.max_result_bytes ?? DEFAULT_MAX_RESULT_BYTES;
  }

  private where(): Record<string, unknown> {
    return isStdioServer(this.config)
      ? { command: this.config.command, args: this.config.args, ...(this.config.cwd ? { cwd: this.config.cwd } : {}) }
      : { url: this.config.url };
  }

  private transport(): Transport {
    if (isStdioServer(this.config)) {
      const t = new GroupStdioTransport({
        command: this.config.command,
        args: this.config.args,
        env: { ...getDefaultEnvironment(), ...this.config.env },
        ...(this.config.cwd ? { cwd: this.config.cwd } : {}),
        // the reply's JSON-RPC envelope on top of the result
        maxMessageBytes: this.maxResultBytes + 64 * 1024,
        graceMs: this.config.close_grace_ms ?? 2_000,
      });
      t.stderr.on('data', (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_KEEP);
      });
      return t;
    }
    return new StreamableHTTPClientTransport(new URL(this.config.url), {
      requestInit: { headers: this.config.headers },
    });
  }

  private async open(): Promise<Live> {
    if (this.stopped)
      throw new McpServerUnavailableError(this.server, 'closed', 'the connection was closed', { retryable: false });
    this.stderr = '';
    const transport = this.transport();
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const live: Live = { client, transport, closed: false };
    client.onclose = () => {
      live.closed = true;
    };
    client.onerror = () => {
      // transport errors surface as failed requests or as onclose; nothing to do here
    };
    try {
      await client.connect(transport, { timeout: this.config.timeout_ms ?? 30_000 });
    } catch (err) {
      await client.close().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50)); // let the last stderr lines arrive
      const stderr = this.stderr.trim();
      throw new McpServerUnavailableError(
        this.server,
        isStdioServer(this.config) ? 'cannot start' : 'cannot connect',
        `${messageOf(err)}${stderr ? `\nserver stderr:\n${stderr}` : ''}`,
        {
          // A command that does not exist (or may not run) will not start on a retry either.
          retryable: !['ENOENT', 'EACCES', 'ENOTDIR'].includes(String((err as NodeJS.ErrnoException).code)),
          noEffect: true,
          details: { ...this.where(), ...(stderr ? { stderr } : {}) },
          cause: err,
        },
      );
    }
    this.starts++;
    this.live = live;
    return live;
  }

  /** The open connection, or a new one when there is none or it has closed. */
  private async connection(): Promise<Live> {
    if (this.live && !this.live.closed) return this.live;
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return await this.opening;
  }

  private async drop(live: Live): Promise<void> {
    live.closed = true;
    if (this.live === live) this.live = undefined;
    await live.client.close().catch(() => undefined);
  }

  async listTools(): Promise<McpToolInfo[]> {
    const live = await this.connection();
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await live.client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.config.timeout_ms ?? 30_000,
      });
      tools.push(...(page.tools as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** The server's `instructions` from its initialize result (connecting first), if it gave any. */
  async instructions(): Promise<string | undefined> {
    return (await this.connection()).client.getInstructions();
  }

  /** The names of the server's resources, at most `limit` (none when it offers no resources). */
  async resourceNames(limit: number): Promise<string[]> {
    const live = await this.connection();
    if (!live.client.getServerCapabilities()?.resources) return [];
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await live.client.listResources(cursor ? { cursor } : undefined, {
        timeout: this.config.timeout_ms ?? 30_000,
      });
      names.push(...page.resources.map((r) => r.name));
      cursor = page.nextCursor;
    } while (cursor && names.length < limit);
    return names.slice(0, limit);
  }

  /** Calls a tool and maps its result to step data (src/tools/mcp/result.ts); every failure is typed (PLAN-008 or PLAN-014). */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<unknown> {
    const meta =
      options.idempotencyKey !== undefined ? { _meta: { [IDEMPOTENCY_KEY_META]: options.idempotencyKey } } : {};
    for (let attempt = 1; ; attempt++) {
      let live: Live;
      try {
        live = await this.connection();
      } catch (err) {
        if (attempt < 2 && !this.stopped) continue;
        throw err; // McpServerUnavailableError, noEffect: the request was never sent
      }
      let result: McpCallResult;
      try {
        result = (await live.client.callTool({ name, arguments: args, ...meta }, undefined, {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(this.config.timeout_ms ? { timeout: this.config.timeout_ms } : {}),
          ...(options.heartbeat ? { onprogress: options.heartbeat, resetTimeoutOnProgress: true } : {}),
        })) as McpCallResult;
      } catch (err) {
        if (options.signal?.aborted) throw err;
        if (err instanceof McpError && err.code === RESULT_TOO_LARGE) {
          const data = (err.data ?? {}) as { bytes?: number };
          throw new McpResultTooLargeError(
            this.server,
            name,
            data.bytes ?? this.maxResultBytes + 1,
            this.maxResultBytes,
          );
        }
        const lost = live.closed || (err instanceof McpError && err.code === ErrorCode.ConnectionClosed);
        const timedOut = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
        if (!lost && !timedOut)
          throw new McpProtocolError(this.server, name, err instanceof McpError ? err.code : undefined, messageOf(err));
        if (lost) await this.drop(live);
        if (lost && attempt < 2 && options.idempotent === true) continue;
        if (options.idempotent !== true && options.keyed !== true) {
          throw new StepOutcomeUnknownError(
            `MCP tool "${name}" of server "${this.server}" may have acted: ${lost ? 'the connection was lost' : 'the call timed out'} after the request was sent (${messageOf(err)})`,
            {
              server: this.server,
              tool: name,
              ...(options.idempotencyKey ? { idempotency_key: options.idempotencyKey } : {}),
            },
          );
        }
        throw new McpServerUnavailableError(this.server, lost ? 'connection lost' : 'timeout', messageOf(err), {
          retryable: true,
          details: { tool: name, ...this.where() },
          cause: err,
        });
      }
      const bytes = Buffer.byteLength(JSON.stringify(result));
      if (bytes > this.maxResultBytes) throw new McpResultTooLargeError(this.server, name, bytes, this.maxResultBytes);
      return mcpResultData(this.server, name, result);
    }
  }

  /** Closes the connection (a stdio server process is stopped); later calls fail. */
  async close(): Promise<void> {
    this.stopped = true;
    const live = this.live;
    this.live = undefined;
    if (live) await this.drop(live);
  }
}
