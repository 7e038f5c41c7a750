/** The waste-management tool pack: the catalog's four tools over a seeded PostgreSQL (embedded PGlite by default). */
import type { ToolPack } from '../tool';
import { WASTE_CLARIFICATIONS } from './catalog';
import { openWasteDatabase, type OpenWasteDatabaseOptions, type OpenedWasteDatabase, type Queryable } from './database';
import { createWasteTools } from './tools';

export const WASTE_CATALOG_NAME = 'waste';

export interface WastePack extends ToolPack {
  /** The database the tools query (for tests and diagnostics). */
  db: OpenedWasteDatabase['db'];
  data: OpenedWasteDatabase['data'];
  timings: OpenedWasteDatabase['timings'];
}

/**
 * Opens (and seeds, for `today`) the waste database and returns its tools. `databaseUrl` defaults to nothing
 * (embedded PGlite); pass the config's `databaseUrl` (DATABASE_URL) to use a PostgreSQL server. Call `close()` when done.
 */
export async function createWastePack(options: OpenWasteDatabaseOptions): Promise<WastePack> {
  const { db, data, timings } = await openWasteDatabase(options);
  return {
    catalog: WASTE_CATALOG_NAME,
    tools: createWasteTools(db),
    clarifications: WASTE_CLARIFICATIONS,
    db,
    data,
    timings,
    close: () => db.close(),
  };
}

/**
 * The waste pack with its database opened (and seeded) on the first query instead of now: a worker that never runs
 * a waste step never starts PGlite, whose WASM engine costs a few hundred MB of resident memory (see
 * docs/performance.md). An open that fails is tried again by the next query; `close()` waits for an open under way.
 */
export function createLazyWastePack(options: OpenWasteDatabaseOptions): ToolPack {
  let opening: Promise<OpenedWasteDatabase> | undefined;
  const open = () =>
    (opening ??= openWasteDatabase(options).catch((err: unknown) => {
      opening = undefined;
      throw err;
    }));
  const db: Queryable = {
    query: async <R>(sql: string, params?: readonly unknown[]) => await (await open()).db.query<R>(sql, params),
  };
  const close = async () => {
    const opened = await opening?.catch(() => undefined);
    await opened?.db.close();
  };
  return { catalog: WASTE_CATALOG_NAME, tools: createWasteTools(db), clarifications: WASTE_CLARIFICATIONS, close };
}

export { WASTE_CATALOG, WASTE_CLARIFICATIONS, WASTE_TOOLS_QUEUE } from './catalog';
export { generateWasteData, type WasteDataSet } from './data';
export { openWasteDatabase, seedWasteDatabase, WASTE_SCHEMA, type WasteDatabase, type Queryable } from './database';
export { createWasteTools } from './tools';
