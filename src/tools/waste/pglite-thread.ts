/**
 * PGlite (PostgreSQL compiled to WASM) in a worker thread. Two reasons: its queries are CPU work that would
 * otherwise stall the Temporal worker's event loop (and so its heartbeats), and its loader uses dynamic `import()`,
 * which Jest's module sandbox refuses; a worker thread runs outside that sandbox. The thread's script is plain
 * CommonJS kept in a string, so it runs the same from src/ (tsx, Jest) and from dist/.
 */
import { Worker } from 'node:worker_threads';
import type { Queryable, WasteDatabase } from './database';

const THREAD_SCRIPT = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { PGlite } = require(workerData.entry);
let pg;
// PostgreSQL's default 128 MB of shared buffers would all become resident WASM memory; the demo data needs little.
const SETTINGS = { postgresqlconf: ['shared_buffers = 16MB'] };

async function saveImage(file) {
  const blob = await pg.dumpDataDir('gzip');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = file + '.' + process.pid + '.' + crypto.randomBytes(6).toString('hex') + '.tmp';
  fs.writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
  fs.renameSync(tmp, file);
}

async function init() {
  const { dataDir, image } = workerData;
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    pg = await PGlite.create(dataDir, SETTINGS);
    return { cached_image: false };
  }
  if (image && fs.existsSync(image)) {
    try {
      pg = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(image)]), ...SETTINGS });
      return { cached_image: true };
    } catch {
      fs.rmSync(image, { force: true }); // a broken cache file: start fresh and write it again
    }
  }
  pg = await PGlite.create(SETTINGS);
  if (image) await saveImage(image).catch(() => undefined); // the cache is an optimisation only
  return { cached_image: false };
}

parentPort.on('message', async (msg) => {
  try {
    let result = null;
    if (msg.op === 'init') result = await init();
    else if (msg.op === 'query') result = (await pg.query(msg.sql, msg.params)).rows;
    else if (msg.op === 'close') { if (pg) await pg.close(); }
    parentPort.postMessage({ id: msg.id, ok: true, result });
  } catch (err) {
    const e = err || {};
    parentPort.postMessage({ id: msg.id, ok: false, error: { message: String(e.message || e), code: e.code, detail: e.detail } });
  }
});
`;

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: { message: string; code?: string; detail?: string };
}

export interface PgliteThreadOptions {
  /** Keep the database in this folder (one process at a time); default: in memory. */
  dataDir?: string;
  /** A gzip tarball of an initialised cluster: loaded when present, written after a fresh initdb when absent. */
  image?: string;
}

export class PgliteThread implements WasteDatabase {
  readonly kind = 'pglite' as const;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private nextId = 1;
  private lock: Promise<unknown> = Promise.resolve();
  private dead: Error | undefined;

  private constructor(options: PgliteThreadOptions) {
    this.worker = new Worker(THREAD_SCRIPT, {
      eval: true,
      workerData: { entry: require.resolve('@electric-sql/pglite'), ...options },
    });
    this.worker.unref(); // held (ref) only while a request is in flight, so an unclosed pack never blocks exit
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`the PGlite thread exited (code ${code})`)));
  }

  static async start(options: PgliteThreadOptions = {}): Promise<{ db: PgliteThread; cachedImage: boolean }> {
    const db = new PgliteThread(options);
    try {
      const { cached_image } = (await db.call('init')) as { cached_image: boolean };
      return { db, cachedImage: cached_image };
    } catch (err) {
      await db.worker.terminate();
      throw err;
    }
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.ok) waiter.resolve(reply.result);
    else
      waiter.reject(
        Object.assign(new Error(reply.error?.message ?? 'PGlite error'), {
          code: reply.error?.code,
          detail: reply.error?.detail,
        }),
      );
  }

  private fail(err: Error): void {
    this.dead ??= err;
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }

  private call(op: 'init' | 'query' | 'close', payload: Record<string, unknown> = {}): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, op, ...payload });
    });
  }

  /** One connection: queries and transactions take turns. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  private raw<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.call('query', { sql, params: [...params] }) as Promise<R[]>;
  }

  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]> {
    return this.exclusive(() => this.raw<R>(sql, params));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.raw('BEGIN');
      try {
        const result = await fn({ query: (sql, params) => this.raw(sql, params) });
        await this.raw('COMMIT');
        return result;
      } catch (err) {
        await this.raw('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    if (this.dead) return;
    await this.exclusive(() => this.call('close')).catch(() => undefined);
    this.dead = new Error('the PGlite database is closed');
    await this.worker.terminate();
  }
}
