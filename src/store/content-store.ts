/**
 * A content-addressed store of JSON values: `put` returns `sha256:<hex of the canonical JSON>`, `get` reads it back.
 * Step results, LLM prompts and responses live here so only references travel through workflow history.
 *
 * The interface is deliberately two methods, so an S3 or GCS store can replace the local one: keys are immutable,
 * writes are idempotent, and a reader never sees a half-written value.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InvalidInputError } from '../domain/errors';
import { canonicalJson } from '../domain/canonical-json';
import { sha256Hex } from '../sha256';

export interface StoredRef {
  /** `sha256:<64 hex>` of the value's canonical JSON. */
  ref: string;
  /** Size of the canonical JSON in UTF-8 bytes. */
  bytes: number;
}

/** Who wrote a value: the run whose activity stored it. Retention (`planner gc`) keeps what recent runs wrote. */
export interface WriteOrigin {
  workflowId: string;
}

export interface ContentStore {
  /** Stores `value` under its content address; writing it again is a no-op apart from refreshing its write time. */
  put(value: unknown, origin?: WriteOrigin): Promise<StoredRef>;
  /** The value stored under `ref`; throws InvalidInputError (PLAN-006) when there is none. */
  get(ref: string): Promise<unknown>;
}

const REF = /^sha256:([0-9a-f]{64})$/;

/** The address and the canonical text of a value, without storing it. */
export function contentAddress(value: unknown): StoredRef & { text: string } {
  const text = canonicalJson(value);
  return { ref: `sha256:${sha256Hex(text)}`, bytes: Buffer.byteLength(text, 'utf8'), text };
}

export function hashOf(ref: string): string {
  const m = REF.exec(ref);
  if (!m)
    throw new InvalidInputError(
      `invalid content ref "${ref}"`,
      'A content ref looks like sha256:<64 lowercase hex digits>.',
      { ref },
    );
  return m[1]!;
}

export function missingValue(ref: string, where: string): InvalidInputError {
  return new InvalidInputError(
    `no value stored under ${ref} in ${where}`,
    'Workers, the workflow activities and the CLI must share the same store: DATABASE_URL on several machines (PLANNER_STORE_DIR only on one); the ref may also be older than the retention (planner gc).',
    { ref, store: where },
  );
}

/**
 * How stale a value's write time may be when it is put again: retention counts in minutes at least (`planner gc`
 * takes 1m and up), and a busy worker puts the same small results many times a second, each a file-system call.
 */
export const REFRESH_INTERVAL_MS = 5_000;
const REFRESHES_REMEMBERED = 10_000;

/**
 * Files under `<dir>/<first 2 hex>/<hash>.json`, written to a temp file and renamed into place. A file's mtime is its
 * last write (a put of a stored value refreshes it, at most once per REFRESH_INTERVAL_MS from one store), which
 * retention goes by: one machine keeps no writer list.
 */
export class LocalContentStore implements ContentStore {
  readonly dir: string;
  private readonly now: () => Date;
  /** When this store last wrote or refreshed each ref (bounded: forgotten all at once when full). */
  private readonly written = new Map<string, number>();

  constructor(dir: string, options: { now?: () => Date } = {}) {
    this.dir = path.resolve(dir);
    this.now = options.now ?? (() => new Date());
  }

  pathOf(ref: string): string {
    const hash = hashOf(ref);
    return path.join(this.dir, hash.slice(0, 2), `${hash}.json`);
  }

  async put(value: unknown): Promise<StoredRef> {
    const { ref, bytes, text } = contentAddress(value);
    const file = this.pathOf(ref);
    const at = this.now();
    if (at.getTime() - (this.written.get(ref) ?? -Infinity) < REFRESH_INTERVAL_MS) return { ref, bytes };
    try {
      await fs.utimes(file, at, at); // a value stored before (often: a step's result): one call refreshes it
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await writeFileAtomic(file, text);
      await fs.utimes(file, at, at);
    }
    if (this.written.size >= REFRESHES_REMEMBERED) this.written.clear();
    this.written.set(ref, at.getTime());
    return { ref, bytes };
  }

  /** Removes the values last written before `cutoff`, except those under `kept` refs; returns how many. */
  async removeOlderThan(cutoff: Date, kept: ReadonlySet<string>): Promise<number> {
    return await removeFilesOlderThan(
      this.dir,
      cutoff,
      (name) => /^[0-9a-f]{2}$/.test(name),
      (file) => kept.has(`sha256:${path.basename(file, '.json')}`),
    );
  }

  async get(ref: string): Promise<unknown> {
    const file = this.pathOf(ref);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw missingValue(ref, this.dir);
      throw err;
    }
    if (`sha256:${sha256Hex(text)}` !== ref)
      throw new Error(`content store file ${file} is corrupt: its content does not hash to ${ref}`);
    return JSON.parse(text) as unknown;
  }
}

/** An in-process store for tests and single-process tools. */
export class MemoryContentStore implements ContentStore {
  private readonly values = new Map<string, string>();

  get size(): number {
    return this.values.size;
  }

  async put(value: unknown): Promise<StoredRef> {
    const { ref, bytes, text } = contentAddress(value);
    this.values.set(ref, text);
    return { ref, bytes };
  }

  async get(ref: string): Promise<unknown> {
    hashOf(ref);
    const text = this.values.get(ref);
    if (text === undefined) throw missingValue(ref, 'memory');
    return JSON.parse(text) as unknown;
  }
}

/** Deletes the `*.json` files under `dir`'s sub-folders that `folder` accepts whose mtime is before `cutoff`, unless `keep`. */
export async function removeFilesOlderThan(
  dir: string,
  cutoff: Date,
  folder: (name: string) => boolean,
  keep: (file: string) => boolean | Promise<boolean>,
): Promise<number> {
  let removed = 0;
  for (const sub of await fs.readdir(dir).catch(() => [] as string[])) {
    if (!folder(sub)) continue;
    for (const name of await fs.readdir(path.join(dir, sub)).catch(() => [] as string[])) {
      const file = path.join(dir, sub, name);
      if (!name.endsWith('.json')) continue;
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && stat.mtime < cutoff && !(await keep(file))) {
        await fs.rm(file, { force: true });
        removed++;
      }
    }
  }
  return removed;
}

/** Writes `text` to `file` so readers see either nothing or all of it (temp file in the same folder, then rename). */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.writeFile(tmp, text, { encoding: 'utf8', flush: true });
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
