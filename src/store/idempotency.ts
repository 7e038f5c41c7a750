/**
 * Once-only execution of side-effecting tools: exactly-once where the tool can cooperate, at-most-once where it
 * cannot. The ledger maps an idempotency key (stable across retries of a step) to
 *   - the INTENT, written before the tool acts (`intent:<key>`), and
 *   - the OUTCOME, the result the tool returned the first time (`<key>`).
 *
 * A retry that finds the outcome returns it (replayed) and does not act. A retry that finds an intent without an
 * outcome (the worker died between the effect and the ledger write, or the call's fate is unknown) acts again only
 * when the tool dedupes on ctx.idempotencyKey itself (`keyed`: the demo `record-note` appends its line only if the
 * key is not in the file yet; an MCP server that honours the `_meta` key); otherwise it throws
 * StepOutcomeUnknownError (PLAN-014, non-retryable) rather than risk doing the effect twice.
 *
 * When the attempt fails in a way that says the tool did not act (`noEffect`: the server could not be started, or it
 * answered with an error), the intent is withdrawn: the outcome is known.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { canonicalJson } from '../domain/canonical-json';
import { StepOutcomeUnknownError } from '../domain/errors';
import { sha256Hex } from '../sha256';
import {
  LocalContentStore,
  removeFilesOlderThan,
  writeFileAtomic,
  type ContentStore,
  type WriteOrigin,
} from './content-store';

export interface IdempotencyLedger {
  /** The value recorded under `key`, or undefined when the key is new. */
  get(key: string): Promise<unknown>;
  /** Records `value` under `key` for the run `origin`; the first record wins. */
  record(key: string, value: unknown, origin?: WriteOrigin): Promise<void>;
  /** Removes what is recorded under `key` (used to withdraw an intent whose outcome is known). */
  remove(key: string): Promise<void>;
}

/** The ledger key of the intent to run the step keyed `key`. */
export function intentKey(key: string): string {
  return `intent:${key}`;
}

/**
 * An error that says the tool did not act (`noEffect: true`): the request never reached it (the server could not be
 * started), or it answered with an error. Then the intent is withdrawn and a later attempt may act.
 */
export function isNoEffect(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { noEffect?: unknown }).noEffect === true;
}

interface Entry {
  key: string;
  value: unknown;
  recorded_at: string;
  workflow_id?: string;
}

/** `<store dir>/ledger`: a ledger lives beside the content store of the results it records. */
export function ledgerDir(storeDir: string): string {
  return path.join(storeDir, 'ledger');
}

/** The file ledger beside `store`, or under `storeDir` when `store` keeps no files (e.g. in memory). */
export function ledgerBeside(store: ContentStore | undefined, storeDir: string): FileIdempotencyLedger {
  return new FileIdempotencyLedger(ledgerDir(store instanceof LocalContentStore ? store.dir : storeDir));
}

/** One JSON file per key under `dir` (see ledgerDir), written atomically; its mtime is when it was recorded. */
export class FileIdempotencyLedger implements IdempotencyLedger {
  readonly dir: string;
  private readonly now: () => Date;

  constructor(dir: string, options: { now?: () => Date } = {}) {
    this.dir = path.resolve(dir);
    this.now = options.now ?? (() => new Date());
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

  async record(key: string, value: unknown, origin?: WriteOrigin): Promise<void> {
    if ((await this.get(key)) !== undefined) return;
    const at = this.now();
    const entry: Entry = {
      key,
      value,
      recorded_at: at.toISOString(),
      ...(origin ? { workflow_id: origin.workflowId } : {}),
    };
    await writeFileAtomic(this.fileOf(key), canonicalJson(entry));
    await fs.utimes(this.fileOf(key), at, at);
  }

  async remove(key: string): Promise<void> {
    await fs.rm(this.fileOf(key), { force: true });
  }

  /** Removes the entries recorded before `cutoff`, except those of the runs `kept`; returns how many. */
  async removeOlderThan(cutoff: Date, kept: ReadonlySet<string>): Promise<number> {
    const ofKeptRun = async (file: string) => {
      const text = await fs.readFile(file, 'utf8').catch(() => '');
      try {
        const entry = JSON.parse(text) as Partial<Entry>;
        return entry.workflow_id !== undefined && kept.has(entry.workflow_id);
      } catch {
        return false; // unreadable: nobody can use it
      }
    };
    return await removeFilesOlderThan(this.dir, cutoff, () => true, ofKeptRun);
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

  async remove(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

export interface OnceOptions {
  /** The tool dedupes on the key itself: after an intent without an outcome it may run again. */
  keyed?: boolean;
  /** Names the step in a StepOutcomeUnknownError. */
  details?: Record<string, unknown>;
  /** The run the entries belong to (for retention). */
  origin?: WriteOrigin;
}

/**
 * Runs `fn` unless `key` is already in the ledger; writes the intent before and records its (JSON) result after it
 * succeeds. `replayed` is true when the earlier result was returned and `fn` did not run. An intent without an
 * outcome throws StepOutcomeUnknownError unless `keyed`.
 */
export async function once<T>(
  ledger: IdempotencyLedger,
  key: string,
  fn: () => Promise<T>,
  options: OnceOptions = {},
): Promise<{ value: T; replayed: boolean }> {
  const earlier = await ledger.get(key);
  if (earlier !== undefined) return { value: earlier as T, replayed: true };
  const intent = intentKey(key);
  const pending = (await ledger.get(intent)) as { at?: string } | undefined;
  if (pending !== undefined && options.keyed !== true) {
    throw new StepOutcomeUnknownError(
      `an earlier attempt of this side-effecting step started at ${pending.at ?? '?'} and never reported an outcome; the tool may have acted, so it is not run again`,
      { idempotency_key: key, intent_at: pending.at ?? null, ...options.details },
    );
  }
  if (pending === undefined) await ledger.record(intent, { at: new Date().toISOString() }, options.origin);
  let value: T;
  try {
    value = await fn();
  } catch (err) {
    // The tool says it did not act (never reached, or answered with an error): the outcome is known. Any other
    // failure (lost connection, timeout, cancellation, a crash) leaves the intent: the outcome is unknown.
    if (isNoEffect(err)) await ledger.remove(intent).catch(() => undefined);
    throw err;
  }
  await ledger.record(key, value === undefined ? null : value, options.origin);
  return { value, replayed: false };
}
