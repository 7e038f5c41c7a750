/**
 * The stdio transport of the MCP client, in place of the SDK's StdioClientTransport for two reasons:
 *   - the server runs in a process group of its own, and closing always reaps the whole group: stdin is closed,
 *     then after a grace period SIGTERM, then SIGKILL, to the group (so a server that hangs, ignores signals or
 *     runs under a wrapper such as `npx` or `sh -c` leaves no orphan);
 *   - a message larger than `maxMessageBytes` does not kill the connection (the SDK's 10 MB read buffer closes it,
 *     which looked like "connection lost" and was retried): the line is skipped, and when it is the reply to a
 *     request, that request alone gets a JSON-RPC error RESULT_TOO_LARGE.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC error code (implementation-defined range) for a reply over the size limit. */
export const RESULT_TOO_LARGE = -32_099;

export interface GroupStdioOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  maxMessageBytes: number;
  /** Time the server gets to exit after stdin closes, and after SIGTERM, before the next step. */
  graceMs: number;
}

const KEEP = 256;

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly stderr = new PassThrough();
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Skipping an oversized line: its first and last bytes, to find the request id. */
  private skipping?: { head: string; tail: string; bytes: number };

  constructor(private readonly options: GroupStdioOptions) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('GroupStdioTransport already started');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        env: this.options.env,
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // its own process group, killed as a whole on close
        shell: false,
      });
      this.child = child;
      this.exited = new Promise((r) => child.once('exit', () => r()));
      child.once('error', (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once('spawn', () => resolve());
      // Whatever the server left behind in its group goes with it (and lets its pipes close).
      child.once('exit', () => this.killGroup('SIGKILL'));
      child.once('close', () => this.onclose?.());
      child.stdin!.on('error', (err) => this.onerror?.(err));
      child.stdout!.on('data', (chunk: Buffer) => this.read(chunk));
      child.stdout!.on('error', (err) => this.onerror?.(err));
      child.stderr!.pipe(this.stderr);
    });
  }

  private read(chunk: Buffer): void {
    let rest = chunk;
    for (;;) {
      const nl = rest.indexOf(0x0a);
      const part = nl === -1 ? rest : rest.subarray(0, nl);
      if (this.skipping) {
        this.skipping.bytes += part.length;
        this.skipping.tail = (
          this.skipping.tail + part.subarray(Math.max(0, part.length - KEEP)).toString('utf8')
        ).slice(-KEEP);
      } else {
        this.chunks.push(part);
        this.size += part.length;
        if (this.size > this.options.maxMessageBytes) {
          const all = Buffer.concat(this.chunks);
          this.skipping = {
            head: all.subarray(0, KEEP).toString('utf8'),
            tail: all.subarray(all.length - KEEP).toString('utf8'),
            bytes: all.length,
          };
          this.chunks = [];
          this.size = 0;
        }
      }
      if (nl === -1) return;
      this.endLine();
      rest = rest.subarray(nl + 1);
    }
  }

  private endLine(): void {
    if (this.skipping) {
      const { head, tail, bytes } = this.skipping;
      this.skipping = undefined;
      const id =
        /"id":\s*(\d+|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(tail)?.[1] ??
        /"id":\s*(\d+|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(head)?.[1];
      if (id === undefined)
        return this.onerror?.(
          new Error(`skipped a ${bytes}-byte message over the limit of ${this.options.maxMessageBytes} bytes`),
        );
      this.onmessage?.({
        jsonrpc: '2.0',
        id: JSON.parse(id) as string | number,
        error: {
          code: RESULT_TOO_LARGE,
          message: `the reply is ${bytes} bytes, over the limit of ${this.options.maxMessageBytes} bytes`,
          data: { bytes, max_bytes: this.options.maxMessageBytes },
        },
      });
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    try {
      this.onmessage?.(deserializeMessage(line));
    } catch (err) {
      this.onerror?.(err as Error);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) throw new Error('not connected');
    await new Promise<void>((resolve) =>
      stdin.write(serializeMessage(message)) ? resolve() : stdin.once('drain', resolve),
    );
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone already
    }
  }

  private running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  private async waitExit(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /** Closes stdin, then SIGTERM and SIGKILL to the process group after the grace periods; resolves once it exited. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    if (this.running()) await this.waitExit(this.options.graceMs);
    if (this.running()) {
      this.killGroup('SIGTERM');
      await this.waitExit(this.options.graceMs);
    }
    this.killGroup('SIGKILL');
    if (this.running()) await this.waitExit(5_000);
  }
}
