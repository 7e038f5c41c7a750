/**
 * Starts `temporal server start-dev` for local development and tests: state in a SQLite file (so a restart loses
 * nothing), the Web UI served, and the planner's search attributes registered at launch.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeCliFlags } from '../api/search-attributes';
import type { PlannerConfig } from '../config';
import { ensureTemporalCli, LOCAL_DIR } from './temporal-binaries';

export interface DevServerOptions {
  /** Where the `temporal` CLI is looked for (the config's TEMPORAL_CLI_PATH and PATH). */
  binaries: Pick<PlannerConfig, 'temporalCliPath' | 'pathDirs'>;
  /** SQLite file that keeps workflows across restarts. Omit for an in-memory server. */
  dbFile?: string;
  /** gRPC port; a free one when omitted. */
  port?: number;
  /** Web UI port; a free one when omitted. */
  uiPort?: number;
  headless?: boolean;
  /** Where the server's output goes; inherited streams are never used so tests stay quiet. */
  logFile?: string;
  /** Leave the server running after this process exits (the demo does, so its Web UI link keeps working). */
  detached?: boolean;
  log?: (line: string) => void;
}

export interface DevServer {
  /** host:port of the gRPC frontend. */
  address: string;
  port: number;
  uiPort: number;
  /** Base URL of the Web UI, or undefined when headless. */
  uiUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** Asks the OS for a port that is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isPortOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Waits until the frontend answers for the default namespace, not merely until the port is open. */
export async function waitForTemporal(address: string, timeoutMs = 60_000, isAlive: () => boolean = () => true) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`Temporal dev server exited before it was ready (${address})`);
    const [host, port] = address.split(':');
    if (await isPortOpen(host, Number(port))) {
      try {
        const connection = await Connection.connect({ address, connectTimeout: 2_000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          return;
        } finally {
          await connection.close();
        }
      } catch (err) {
        lastError = err;
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Temporal at ${address} not ready after ${timeoutMs} ms: ${String(lastError ?? 'port closed')}`);
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** How often a start is tried again when the server exits at once, e.g. a port found free was taken before it bound. */
const START_ATTEMPTS = 3;

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServerOnce(options);
    } catch (err) {
      if (!(err instanceof ServerExitedError) || attempt >= START_ATTEMPTS) throw err;
      options.log?.(`Temporal dev server exited at start (${err.message}); trying again with fresh ports`);
    }
  }
}

class ServerExitedError extends Error {}

async function startDevServerOnce(options: DevServerOptions): Promise<DevServer> {
  const cli = ensureTemporalCli(options.binaries, options.log);
  const port = options.port ?? (await freePort());
  const uiPort = options.uiPort ?? (await freePort());
  const args = [
    'server',
    'start-dev',
    '--ip',
    HOST,
    '--port',
    String(port),
    '--http-port',
    String(await freePort()),
    '--metrics-port',
    String(await freePort()),
    '--log-level',
    'warn',
    ...searchAttributeCliFlags(),
  ];
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort), '--ui-disable-news-fetch');
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }

  let out: number | 'ignore' = 'ignore';
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    out = openSync(options.logFile, 'a');
  }
  const child = spawn(cli, args, { stdio: ['ignore', out, out], detached: options.detached ?? false });
  if (typeof out === 'number') closeSync(out);
  const address = `${HOST}:${port}`;
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    await waitForTemporal(address, 60_000, () => !exited);
  } catch (err) {
    child.kill('SIGKILL');
    if (exited) throw new ServerExitedError(`${String((err as Error).message)}${lastLogLine(options.logFile)}`);
    throw err;
  }
  if (options.detached) child.unref();

  return {
    address,
    port,
    uiPort,
    uiUrl: options.headless ? undefined : `http://localhost:${uiPort}`,
    pid: child.pid!,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 10_000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
    },
  };
}

/** The server's last words, so an exit at start says why (a port in use, a locked database). */
function lastLogLine(logFile: string | undefined): string {
  if (!logFile) return '';
  try {
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    return `: ${lines[lines.length - 1].slice(0, 400)}`;
  } catch {
    return '';
  }
}

export const LOCAL_DEV_PORT = 7233;
export const LOCAL_SERVER_PID_FILE = path.join(LOCAL_DIR, 'dev-server.pid');
export const LOCAL_UI_PORT = 8233;

export interface LocalDevServer {
  address: string;
  uiUrl: string;
  /** True when this call started the server, false when one was already listening. */
  started: boolean;
  pid?: number;
}

/**
 * The demo's and `planner dev`'s server: reuse whatever listens on localhost:7233, otherwise start one in the
 * background with its state in .temporal/dev-server.db, left running so the printed Web UI links keep working.
 */
export async function ensureLocalDevServer(
  binaries: DevServerOptions['binaries'],
  log: (line: string) => void = () => {},
): Promise<LocalDevServer> {
  const address = `${HOST}:${LOCAL_DEV_PORT}`;
  const uiUrl = `http://localhost:${LOCAL_UI_PORT}`;
  if (await isPortOpen(HOST, LOCAL_DEV_PORT)) {
    await waitForTemporal(address, 15_000);
    return { address, uiUrl, started: false };
  }
  log(
    `Starting the Temporal dev server on ${address} (state in .temporal/dev-server.db, log in .temporal/dev-server.log) …`,
  );
  const server = await startDevServer({
    binaries,
    port: LOCAL_DEV_PORT,
    uiPort: LOCAL_UI_PORT,
    dbFile: path.join(LOCAL_DIR, 'dev-server.db'),
    logFile: path.join(LOCAL_DIR, 'dev-server.log'),
    detached: true,
    log,
  });
  writeFileSync(LOCAL_SERVER_PID_FILE, String(server.pid));
  return { address, uiUrl, started: true, pid: server.pid };
}

/** Stops the server that ensureLocalDevServer left running; returns its pid, or undefined if none was recorded. */
export async function stopLocalDevServer(): Promise<number | undefined> {
  let pid: number;
  try {
    pid = Number(readFileSync(LOCAL_SERVER_PID_FILE, 'utf8'));
  } catch {
    return undefined;
  }
  rmSync(LOCAL_SERVER_PID_FILE, { force: true });
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return undefined; // already gone
  }
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 10_000;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(pid, 'SIGKILL');
  return pid;
}
