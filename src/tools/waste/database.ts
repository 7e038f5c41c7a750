/**
 * The waste demo's database: real PostgreSQL SQL, run either by an embedded PostgreSQL (PGlite, WASM, in memory;
 * the default) or by a PostgreSQL server when DATABASE_URL is set (the `pg` driver). Both are seeded with the
 * generated data set (./data.ts) for a given `today`, at first use and again whenever `today` changes.
 *
 * Start-up: a fresh PGlite runs initdb (~5 s); the initialised, empty cluster is then cached as a gzip tarball under
 * `<project>/.planner/cache/` (PLANNER_CACHE_DIR), and later starts load it (~1 s). Each process gets its own
 * in-memory copy, so several workers never share (or corrupt, when SIGKILLed) one data directory. PGlite runs in
 * a worker thread (./pglite-thread.ts).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { generateWasteData, type WasteDataSet } from './data';
import { PgliteThread } from './pglite-thread';

/** Tables live in their own schema, so a shared PostgreSQL database keeps them apart from everything else. */
export const WASTE_SCHEMA = 'planner_waste';
/** Bump when the tables or the generator change, so existing databases are re-seeded. */
export const WASTE_DATA_VERSION = 1;

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface WasteDatabase extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` on one connection inside a transaction (committed when it resolves, rolled back when it throws). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenWasteDatabaseOptions {
  /** The day the data set is generated around (the worker passes the real current date). */
  today: string | Date;
  /** A PostgreSQL server (e.g. postgres://user:pass@host:5432/db); default: embedded PGlite. */
  databaseUrl?: string;
  /** PGlite only: keep the database in this folder instead of memory (one process at a time!). */
  dataDir?: string;
  /** PGlite only: where the initialised empty cluster is cached (the config's cacheDir); absent: not cached. */
  cacheDir?: string;
}

export interface OpenedWasteDatabase {
  db: WasteDatabase;
  data: WasteDataSet;
  /** Milliseconds spent starting the engine and seeding; shown by tests and worker logs. */
  timings: { start_ms: number; seed_ms: number; seeded: boolean; cached_image: boolean };
}

export async function openWasteDatabase(options: OpenWasteDatabaseOptions): Promise<OpenedWasteDatabase> {
  const t0 = Date.now();
  const { db, cachedImage } = options.databaseUrl
    ? { db: openPostgres(options.databaseUrl), cachedImage: false }
    : await openPglite(options);
  const t1 = Date.now();
  const data = generateWasteData(options.today);
  try {
    const seeded = await seedWasteDatabase(db, data);
    return { db, data, timings: { start_ms: t1 - t0, seed_ms: Date.now() - t1, seeded, cached_image: cachedImage } };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

function openPostgres(url: string): WasteDatabase {
  const { Pool } = require('pg') as typeof import('pg');
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined); // idle clients that lose their connection are replaced on next use
  return {
    kind: 'postgres',
    async query<R>(sql: string, params: readonly unknown[] = []) {
      return (await pool.query(sql, [...params])).rows as R[];
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <R>(sql: string, params: readonly unknown[] = []) =>
            (await client.query(sql, [...params])).rows as R[],
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

function pgliteVersion(): string {
  try {
    const pkg = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

async function openPglite(options: OpenWasteDatabaseOptions): Promise<{ db: WasteDatabase; cachedImage: boolean }> {
  if (options.dataDir) return await PgliteThread.start({ dataDir: path.resolve(options.dataDir) });
  const image = options.cacheDir
    ? path.resolve(options.cacheDir, `pglite-${pgliteVersion()}-initdb.tar.gz`)
    : undefined;
  return await PgliteThread.start(image ? { image } : {});
}

const S = WASTE_SCHEMA;

const CREATE_TABLES = `
CREATE TABLE ${S}.facilities (
  id text PRIMARY KEY,
  name text NOT NULL,
  location text NOT NULL,
  type text NOT NULL,
  capacity_tons double precision NOT NULL
);
CREATE TABLE ${S}.shipments (
  id text PRIMARY KEY,
  facility_id text NOT NULL REFERENCES ${S}.facilities(id),
  carrier text NOT NULL,
  shipped_on date NOT NULL,
  status text NOT NULL,
  waste_type text NOT NULL,
  weight_kg double precision NOT NULL,
  has_contaminants boolean NOT NULL
);
CREATE INDEX shipments_shipped_on ON ${S}.shipments (shipped_on);
CREATE TABLE ${S}.contaminant_detections (
  id text PRIMARY KEY,
  shipment_id text NOT NULL REFERENCES ${S}.shipments(id),
  facility_id text NOT NULL REFERENCES ${S}.facilities(id),
  contaminant text NOT NULL,
  risk_level text NOT NULL CHECK (risk_level IN ('low', 'medium', 'high', 'critical')),
  concentration_ppm double precision NOT NULL,
  detected_on date NOT NULL
);
CREATE INDEX contaminant_detections_shipment ON ${S}.contaminant_detections (shipment_id);
CREATE TABLE ${S}.inspections (
  id text PRIMARY KEY,
  shipment_id text NOT NULL REFERENCES ${S}.shipments(id),
  facility_id text NOT NULL REFERENCES ${S}.facilities(id),
  status text NOT NULL CHECK (status IN ('accepted', 'rejected', 'pending')),
  inspected_on date NOT NULL,
  inspector text NOT NULL,
  notes text NOT NULL
);
CREATE INDEX inspections_shipment ON ${S}.inspections (shipment_id);
`;

/** Column lists (name, SQL array type) for the bulk inserts, in row-schema order. */
const COLUMNS = {
  facilities: [
    ['id', 'text'],
    ['name', 'text'],
    ['location', 'text'],
    ['type', 'text'],
    ['capacity_tons', 'float8'],
  ],
  shipments: [
    ['id', 'text'],
    ['facility_id', 'text'],
    ['carrier', 'text'],
    ['shipped_on', 'date'],
    ['status', 'text'],
    ['waste_type', 'text'],
    ['weight_kg', 'float8'],
    ['has_contaminants', 'bool'],
  ],
  contaminant_detections: [
    ['id', 'text'],
    ['shipment_id', 'text'],
    ['facility_id', 'text'],
    ['contaminant', 'text'],
    ['risk_level', 'text'],
    ['concentration_ppm', 'float8'],
    ['detected_on', 'date'],
  ],
  inspections: [
    ['id', 'text'],
    ['shipment_id', 'text'],
    ['facility_id', 'text'],
    ['status', 'text'],
    ['inspected_on', 'date'],
    ['inspector', 'text'],
    ['notes', 'text'],
  ],
} as const;

async function insertAll(
  tx: Queryable,
  table: keyof typeof COLUMNS,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const columns = COLUMNS[table];
  const names = columns.map(([name]) => name).join(', ');
  const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  await tx.query(
    `INSERT INTO ${S}.${table} (${names}) SELECT * FROM unnest(${arrays})`,
    columns.map(([name]) => rows.map((r) => r[name])),
  );
}

/**
 * Creates and fills the tables for `data.today` unless they already hold that data set (same day, same version).
 * Serialised by an advisory lock, so workers starting together against one server seed it once. Returns whether
 * it seeded.
 */
export async function seedWasteDatabase(db: WasteDatabase, data: WasteDataSet): Promise<boolean> {
  return await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(720451001)`);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${S}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${S}.seed_info (id int PRIMARY KEY, today date NOT NULL, version int NOT NULL)`,
    );
    const [current] = await tx.query<{ today: string; version: number }>(
      `SELECT to_char(today, 'YYYY-MM-DD') AS today, version FROM ${S}.seed_info WHERE id = 1`,
    );
    if (current && current.today === data.today && current.version === WASTE_DATA_VERSION) return false;
    await tx.query(
      `DROP TABLE IF EXISTS ${S}.inspections, ${S}.contaminant_detections, ${S}.shipments, ${S}.facilities CASCADE`,
    );
    for (const statement of CREATE_TABLES.split(';')
      .map((s) => s.trim())
      .filter(Boolean))
      await tx.query(statement);
    await insertAll(tx, 'facilities', data.facilities);
    await insertAll(tx, 'shipments', data.shipments);
    await insertAll(tx, 'contaminant_detections', data.detections);
    await insertAll(tx, 'inspections', data.inspections);
    await tx.query(
      `INSERT INTO ${S}.seed_info (id, today, version) VALUES (1, $1::date, $2) ON CONFLICT (id) DO UPDATE SET today = EXCLUDED.today, version = EXCLUDED.version`,
      [data.today, WASTE_DATA_VERSION],
    );
    return true;
  });
}
