/**
 * The content store and the idempotency ledger (tool intents and outcomes, LLM call usage) on a PostgreSQL server
 * that every worker and the CLI reach through DATABASE_URL, so a result stored on one machine is read on another
 * and a side effect recorded by a worker that died is seen by the retry on another.
 *
 * One schema, `planner`, created on first use by numbered migrations: each runs in its own transaction and is
 * recorded in `planner.migrations`; a session-level advisory lock serialises workers that start at the same moment.
 * Writes are idempotent (ON CONFLICT): content keys are content addresses, ledger keys keep their first value.
 * A value is one row, written in one statement, so a reader sees all of it or nothing.
 */
import { Context } from '@temporalio/activity';
import type { Pool, PoolClient } from 'pg';
import { InvalidInputError, StoreUnavailableError } from '../domain/errors';
import { sha256Hex } from '../sha256';
import type { IdempotencyLedger } from './idempotency';
import {
  contentAddress,
  hashOf,
  missingValue,
  type ContentStore,
  type StoredRef,
  type WriteOrigin,
} from './content-store';
import { NO_OPEN_RUNS, type GarbageReport, type OpenRunNeeds, type PlannerStorage } from './storage';

/** pg_advisory_lock key of the planner's migrations (any constant other code does not use). */
const MIGRATION_LOCK = 720451002;

/** The schema's history; append only. Each entry runs once, in a transaction, in order. */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'content, writers and ledger',
    sql: `
      CREATE TABLE planner.content (
        ref text PRIMARY KEY CHECK (ref ~ '^sha256:[0-9a-f]{64}$'),
        body text NOT NULL,
        bytes integer NOT NULL,
        created_at timestamptz NOT NULL,
        written_at timestamptz NOT NULL
      );
      CREATE INDEX content_written_at ON planner.content (written_at);
      -- Which runs (workflow ids) wrote a value and when each last did: retention keeps what recent runs need.
      CREATE TABLE planner.content_writers (
        ref text NOT NULL,
        workflow_id text NOT NULL,
        written_at timestamptz NOT NULL,
        PRIMARY KEY (ref, workflow_id)
      );
      CREATE INDEX content_writers_workflow ON planner.content_writers (workflow_id, written_at);
      CREATE TABLE planner.ledger (
        key text PRIMARY KEY,
        value text NOT NULL,
        workflow_id text,
        recorded_at timestamptz NOT NULL
      );
      CREATE INDEX ledger_recorded_at ON planner.ledger (recorded_at);
      CREATE INDEX ledger_workflow ON planner.ledger (workflow_id);
    `,
  },
];

/** Creates the schema and applies the migrations not applied yet; safe when several processes call it at once. */
export async function migrate(pool: Pool): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE SCHEMA IF NOT EXISTS planner');
      await client.query(
        'CREATE TABLE IF NOT EXISTS planner.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await client.query<{ version: number }>('SELECT version FROM planner.migrations')).rows.map((r) => r.version),
      );
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await inTransaction(client, async () => {
          await client.query(m.sql);
          await client.query('INSERT INTO planner.migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        });
        applied.push(m.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return applied;
}

async function inTransaction<T>(client: PoolClient, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** How long a store call waits out a database outage (a restart, a failover) before it fails, retryable. */
export const OUTAGE_WAIT_MS = 30_000;

/** Node's and PostgreSQL's codes (class 08, 57P01–03) for "the server cannot be reached now", not "the statement is wrong". */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

function isOutage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && OUTAGE_CODES.has(code)) return true;
  return (
    err instanceof Error &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      err.message,
    )
  );
}

/** Keeps the running activity alive while it waits (local activities and non-activity callers need nothing). */
function heartbeatIfActivity(): void {
  try {
    const ctx = Context.current();
    if (!ctx.info.isLocal) ctx.heartbeat();
  } catch {
    // not in an activity
  }
}

/** The database as messages name it: host, port and database, never the user or password of the URL. */
export function databaseName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

/** The pool and the schema, migrated once per process on first use. */
class PlannerDatabase {
  private ready: Promise<void> | undefined;

  constructor(
    readonly pool: Pool,
    readonly now: () => Date,
    readonly name: string,
  ) {}

  /**
   * Runs `work` on the migrated pool, waiting out an outage of up to OUTAGE_WAIT_MS (every statement here may run
   * twice: writes are idempotent, GC is one transaction); then StoreUnavailableError, which Temporal retries.
   */
  async run<T>(work: (pool: Pool) => Promise<T>): Promise<T> {
    const began = Date.now();
    for (let tries = 0; ; tries++) {
      try {
        return await work(await this.migrated());
      } catch (err) {
        if (!isOutage(err)) throw err;
        const waited = Date.now() - began;
        if (waited >= OUTAGE_WAIT_MS) {
          throw new StoreUnavailableError(
            `the planner's database (${this.name}) is unreachable: ${(err as Error).message}`,
            { database: this.name, waited_ms: waited },
          );
        }
        heartbeatIfActivity();
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** tries, 2_000, OUTAGE_WAIT_MS - waited)));
      }
    }
  }

  /** The pool once the schema is in place; a failed migration is retried by the next call. */
  async migrated(): Promise<Pool> {
    this.ready ??= migrate(this.pool).then(
      () => undefined,
      (err: unknown) => {
        this.ready = undefined;
        throw err;
      },
    );
    await this.ready;
    return this.pool;
  }
}

export class PostgresContentStore implements ContentStore {
  constructor(private readonly db: PlannerDatabase) {}

  async put(value: unknown, origin?: WriteOrigin): Promise<StoredRef> {
    const { ref, bytes, text } = contentAddress(value);
    // One statement: the value (its body written once, its last write time refreshed) and who wrote it.
    await this.db.run((pool) =>
      pool.query(
        `WITH stored AS (
         INSERT INTO planner.content (ref, body, bytes, created_at, written_at) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (ref) DO UPDATE SET written_at = GREATEST(planner.content.written_at, EXCLUDED.written_at)
         RETURNING ref)
       INSERT INTO planner.content_writers (ref, workflow_id, written_at)
       SELECT ref, $5::text, $4 FROM stored WHERE $5::text IS NOT NULL
       ON CONFLICT (ref, workflow_id) DO UPDATE SET written_at = GREATEST(planner.content_writers.written_at, EXCLUDED.written_at)`,
        [ref, text, bytes, this.db.now(), origin?.workflowId ?? null],
      ),
    );
    return { ref, bytes };
  }

  async get(ref: string): Promise<unknown> {
    hashOf(ref);
    const { rows } = await this.db.run((pool) =>
      pool.query<{ body: string }>('SELECT body FROM planner.content WHERE ref = $1', [ref]),
    );
    const body = rows[0]?.body;
    if (body === undefined) throw missingValue(ref, 'PostgreSQL (DATABASE_URL, schema planner)');
    if (`sha256:${sha256Hex(body)}` !== ref)
      throw new Error(`content store row ${ref} is corrupt: its body does not hash to its ref`);
    return JSON.parse(body) as unknown;
  }
}

export class PostgresIdempotencyLedger implements IdempotencyLedger {
  constructor(private readonly db: PlannerDatabase) {}

  async get(key: string): Promise<unknown> {
    const { rows } = await this.db.run((pool) =>
      pool.query<{ value: string }>('SELECT value FROM planner.ledger WHERE key = $1', [key]),
    );
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as unknown);
  }

  async record(key: string, value: unknown, origin?: WriteOrigin): Promise<void> {
    await this.db.run((pool) =>
      pool.query(
        'INSERT INTO planner.ledger (key, value, workflow_id, recorded_at) VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO NOTHING',
        [key, JSON.stringify(value === undefined ? null : value), origin?.workflowId ?? null, this.db.now()],
      ),
    );
  }

  async remove(key: string): Promise<void> {
    await this.db.run((pool) => pool.query('DELETE FROM planner.ledger WHERE key = $1', [key]));
  }
}

/**
 * Runs within the retention: those still open ($2) and those that wrote a value or a ledger entry at or after the
 * cutoff. Everything such a run wrote is kept, however old; of the rest, what was last written before the cutoff goes.
 */
const RECENT_RUNS = `
  SELECT unnest($2::text[])
  UNION SELECT workflow_id FROM planner.content_writers WHERE written_at >= $1
  UNION SELECT workflow_id FROM planner.ledger WHERE recorded_at >= $1 AND workflow_id IS NOT NULL`;

export class PostgresStorage implements PlannerStorage {
  readonly kind = 'postgres';
  readonly store: PostgresContentStore;
  readonly ledger: PostgresIdempotencyLedger;
  private readonly db: PlannerDatabase;

  constructor(url: string, options: { now?: () => Date; max?: number } = {}) {
    const { Pool } = require('pg') as typeof import('pg');
    // A server that does not answer a connection fails it in 5 s: run() then waits out the outage.
    const pool = new Pool({ connectionString: url, max: options.max ?? 8, connectionTimeoutMillis: 5_000 });
    pool.on('error', () => undefined); // an idle client that loses its connection is replaced on next use
    this.db = new PlannerDatabase(pool, options.now ?? (() => new Date()), databaseName(url));
    this.store = new PostgresContentStore(this.db);
    this.ledger = new PostgresIdempotencyLedger(this.db);
  }

  get where(): string {
    return 'PostgreSQL (DATABASE_URL, schema planner)';
  }

  /** Connects and migrates now, failing at once (no outage wait) when the database cannot be reached: a worker's start check. */
  async check(): Promise<void> {
    try {
      await this.db.migrated();
    } catch (err) {
      throw new StoreUnavailableError(
        `cannot reach the planner's database at DATABASE_URL (${this.db.name}): ${(err as Error).message || String(err)}`,
        { database: this.db.name },
      );
    }
  }

  async collectGarbage(cutoff: Date, open: OpenRunNeeds = NO_OPEN_RUNS): Promise<GarbageReport> {
    if (Number.isNaN(cutoff.getTime()))
      throw new InvalidInputError('invalid garbage-collection cutoff', 'Give a date, e.g. 30 days ago.');
    return await this.db.run(async (pool) => {
      const client = await pool.connect();
      try {
        const openRuns = [...open.workflowIds];
        return await inTransaction(client, async () => {
          await client.query(
            `DELETE FROM planner.content_writers WHERE written_at < $1 AND workflow_id NOT IN (${RECENT_RUNS})`,
            [cutoff, openRuns],
          );
          // A put racing this delete refreshes written_at on the row first, so the row's re-check keeps it.
          const values = await client.query(
            `DELETE FROM planner.content c WHERE c.written_at < $1 AND c.ref <> ALL($2::text[])
             AND NOT EXISTS (SELECT 1 FROM planner.content_writers w WHERE w.ref = c.ref)`,
            [cutoff, [...open.refs]],
          );
          const entries = await client.query(
            `DELETE FROM planner.ledger WHERE recorded_at < $1 AND (workflow_id IS NULL OR workflow_id NOT IN (${RECENT_RUNS}))`,
            [cutoff, openRuns],
          );
          return { values: values.rowCount ?? 0, ledgerEntries: entries.rowCount ?? 0 };
        });
      } finally {
        client.release();
      }
    });
  }

  async close(): Promise<void> {
    await this.db.pool.end();
  }
}
