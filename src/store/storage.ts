/**
 * Where a worker keeps what outlives an activity: the content store (step results, LLM transcripts, archived plan
 * versions) and the idempotency ledger (tool intents and outcomes, LLM call usage). Two implementations of the same
 * pair of interfaces: files under PLANNER_STORE_DIR (the default, one machine) and PostgreSQL at DATABASE_URL
 * (several machines share it). openStorage picks by the config.
 */
import path from 'node:path';
import type { PlannerConfig } from '../config';
import { FileIdempotencyLedger, ledgerDir, type IdempotencyLedger } from './idempotency';
import { LocalContentStore, type ContentStore } from './content-store';
import { PostgresStorage } from './postgres';

export interface GarbageReport {
  /** Content values removed. */
  values: number;
  /** Ledger entries (intents, outcomes, LLM call usage) removed. */
  ledgerEntries: number;
}

/**
 * What the runs still open need, kept however old: everything written by their workflow ids (ledger entries, and
 * values where writers are recorded) and every value their state reaches.
 */
export interface OpenRunNeeds {
  workflowIds: ReadonlySet<string>;
  refs: ReadonlySet<string>;
}

export const NO_OPEN_RUNS: OpenRunNeeds = { workflowIds: new Set(), refs: new Set() };

export interface PlannerStorage {
  readonly kind: 'local' | 'postgres';
  readonly store: ContentStore;
  readonly ledger: IdempotencyLedger;
  /** Says where the values live, for messages. */
  readonly where: string;
  /** Removes what was last written before `cutoff` and is not needed by an open run or one that wrote anything since. */
  collectGarbage(cutoff: Date, open?: OpenRunNeeds): Promise<GarbageReport>;
  close(): Promise<void>;
}

/** The files of one machine: `<dir>/<aa>/<hash>.json` and the ledger under `<dir>/ledger`; retention by write time. */
export class LocalStorage implements PlannerStorage {
  readonly kind = 'local';
  readonly store: LocalContentStore;
  readonly ledger: FileIdempotencyLedger;

  constructor(dir: string, options: { now?: () => Date } = {}) {
    this.store = new LocalContentStore(dir, options);
    this.ledger = new FileIdempotencyLedger(ledgerDir(this.store.dir), options);
  }

  get where(): string {
    return this.store.dir;
  }

  async collectGarbage(cutoff: Date, open: OpenRunNeeds = NO_OPEN_RUNS): Promise<GarbageReport> {
    return {
      values: await this.store.removeOlderThan(cutoff, open.refs),
      ledgerEntries: await this.ledger.removeOlderThan(cutoff, open.workflowIds),
    };
  }

  async close(): Promise<void> {}
}

/** PostgreSQL when DATABASE_URL is set, else the files under PLANNER_STORE_DIR. */
export function openStorage(config: Pick<PlannerConfig, 'databaseUrl' | 'storeDir'>): PlannerStorage {
  return config.databaseUrl ? new PostgresStorage(config.databaseUrl) : new LocalStorage(path.resolve(config.storeDir));
}

/** Where openStorage keeps step results and ledgers, for the line workers print at start. */
export function storeLocation(config: Pick<PlannerConfig, 'databaseUrl' | 'storeDir'>): string {
  return config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : path.resolve(config.storeDir);
}
