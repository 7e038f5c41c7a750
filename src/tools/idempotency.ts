/**
 * Once-only execution of side-effecting tools. The ledger maps an idempotency key (stable across retries of a step)
 * to the result the tool returned the first time, so a retry after a lost completion (worker killed, network cut)
 * returns that result instead of repeating the effect.
 *
 * Ordering: the effect happens first and the ledger entry is written after it succeeds. A crash between the two
 * runs the tool again on retry, so the effect itself must be keyed on ctx.idempotencyKey (the demo `record-note`
 * tool appends its line only if the key is not in the file yet). The ledger then makes every later retry cheap and
 * guarantees the same result is returned.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { canonicalJson } from '../domain/canonical-json';
import { sha256Hex } from '../sha256';
import { LocalContentStore, writeFileAtomic, type ContentStore } from '../store/content-store';

export interface IdempotencyLedger {
  /** The value recorded under `key`, or undefined when the key is new. */
  get(key: string): Promise<unknown>;
  /** Records `value` under `key`; the first record wins. */
  record(key: string, value: unknown): Promise<void>;
}

interface Entry {
  key: string;
  value: unknown;
  recorded_at: string;
}

/** `<store dir>/ledger`: a ledger lives beside the content store of the results it records. */
export function ledgerDir(storeDir: string): string {
  return path.join(storeDir, 'ledger');
}

/** The file ledger beside `store`, or under `storeDir` when `store` keeps no files (e.g. in memory). */
export function ledgerBeside(store: ContentStore | undefined, storeDir: string): FileIdempotencyLedger {
  return new FileIdempotencyLedger(ledgerDir(store instanceof LocalContentStore ? store.dir : storeDir));
}

/** One JSON file per key under `dir` (see ledgerDir), written atomically. */
export class FileIdempotencyLedger implements IdempotencyLedger {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
  }

  private fileOf(key: string): string {
    const hash = sha256Hex(key);
    return path.join(this.dir, hash.slice(0, 2), `${hash}.json`);
  }

  async get(key: string): Promise<unknown> {
    let text: string;
    try {
      text = await fs.readFile(this.fileOf(key), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const entry = JSON.parse(text) as Entry;
    return entry.key === key ? entry.value : undefined;
  }

  async record(key: string, value: unknown): Promise<void> {
    if ((await this.get(key)) !== undefined) return;
    const entry: Entry = { key, value, recorded_at: new Date().toISOString() };
    await writeFileAtomic(this.fileOf(key), canonicalJson(entry));
  }
}

export class MemoryIdempotencyLedger implements IdempotencyLedger {
  private readonly entries = new Map<string, string>();

  async get(key: string): Promise<unknown> {
    const text = this.entries.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }

  async record(key: string, value: unknown): Promise<void> {
    if (!this.entries.has(key)) this.entries.set(key, canonicalJson(value));
  }
}

/**
 * Runs `fn` unless `key` is already in the ledger; records its (JSON) result after it succeeds.
 * `replayed` is true when the earlier result was returned and `fn` did not run.
 */
export async function once<T>(ledger: IdempotencyLedger, key: string, fn: () => Promise<T>): Promise<{ value: T; replayed: boolean }> {
  const earlier = await ledger.get(key);
  if (earlier !== undefined) return { value: earlier as T, replayed: true };
  const value = await fn();
  await ledger.record(key, value === undefined ? null : value);
  return { value, replayed: false };
}
