import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvalidInputError } from '../../../src/domain/errors';
import { canonicalJson } from '../../../src/domain/canonical-json';
import {
  LocalContentStore,
  MemoryContentStore,
  REFRESH_INTERVAL_MS,
  contentAddress,
} from '../../../src/store/content-store';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'planner-store-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function filesUnder(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('LocalContentStore', () => {
  test('round-trips a JSON value under sha256:<hex of its canonical JSON>, stored at <dir>/<aa>/<hash>.json', async () => {
    const store = new LocalContentStore(dir);
    const value = { rows: [{ id: 'SHP-0001', weight_kg: 1200.5, ok: true }], note: 'Köln ✓' };
    const { ref, bytes } = await store.put(value);
    expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(bytes).toBe(Buffer.byteLength(canonicalJson(value), 'utf8'));
    expect(await store.get(ref)).toEqual(value);
    const hash = ref.slice('sha256:'.length);
    expect(await fs.readFile(path.join(dir, hash.slice(0, 2), `${hash}.json`), 'utf8')).toBe(canonicalJson(value));
  });

  test('dedupes by content: the same value with keys in another order is one ref and one file; different content is another', async () => {
    const store = new LocalContentStore(dir);
    const a = await store.put({ x: 1, y: [1, 2] });
    const b = await store.put({ y: [1, 2], x: 1 });
    const c = await store.put({ x: 1, y: [2, 1] });
    expect(b).toEqual(a);
    expect(c.ref).not.toBe(a.ref);
    expect(await filesUnder(dir)).toHaveLength(2);
  });

  test('concurrent puts of the same value leave exactly one complete file and no temp files', async () => {
    const store = new LocalContentStore(dir);
    const value = { big: 'x'.repeat(100_000) };
    const refs = await Promise.all(Array.from({ length: 8 }, () => store.put(value)));
    expect(new Set(refs.map((r) => r.ref)).size).toBe(1);
    const files = await filesUnder(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.json$/);
    expect(await new LocalContentStore(dir).get(refs[0]!.ref)).toEqual(value);
  });

  test('a value put again refreshes its write time (retention goes by it), at most once per refresh interval', async () => {
    const t0 = new Date('2026-09-01T00:00:00Z').getTime();
    let now = t0;
    const store = new LocalContentStore(dir, { now: () => new Date(now) });
    const { ref } = await store.put({ rows: [1] });
    const mtime = async () => (await fs.stat(store.pathOf(ref))).mtimeMs;
    expect(await mtime()).toBe(t0);

    now = t0 + REFRESH_INTERVAL_MS - 1;
    await store.put({ rows: [1] });
    expect(await mtime()).toBe(t0);

    now = t0 + REFRESH_INTERVAL_MS;
    await store.put({ rows: [1] });
    expect(await mtime()).toBe(t0 + REFRESH_INTERVAL_MS);
    expect(await store.get(ref)).toEqual({ rows: [1] });
  });

  test('a missing ref is an InvalidInputError (PLAN-006) with a hint about the shared store', async () => {
    const store = new LocalContentStore(dir);
    const ref = contentAddress({ never: 'stored' }).ref;
    const err = await store.get(ref).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).message).toContain(ref);
    expect((err as InvalidInputError).hint).toMatch(/PLANNER_STORE_DIR/);
  });

  test('a malformed ref is rejected before touching the disk', async () => {
    const store = new LocalContentStore(dir);
    await expect(store.get('sha256:../../etc/passwd')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.get('md5:abc')).rejects.toThrow(/invalid content ref/);
  });

  test('a file whose content does not hash to its ref is reported as corrupt', async () => {
    const store = new LocalContentStore(dir);
    const { ref } = await store.put({ a: 1 });
    await fs.writeFile(store.pathOf(ref), '{"a":2}');
    await expect(store.get(ref)).rejects.toThrow(/corrupt/);
  });
});

describe('MemoryContentStore', () => {
  test('gives the same refs as the local store and the same missing-ref error', async () => {
    const memory = new MemoryContentStore();
    const local = new LocalContentStore(dir);
    const value = [{ b: 2, a: 1 }];
    expect(await memory.put(value)).toEqual(await local.put(value));
    expect(await memory.get((await memory.put(value)).ref)).toEqual(value);
    expect(memory.size).toBe(1);
    await expect(memory.get(contentAddress(1).ref)).rejects.toBeInstanceOf(InvalidInputError);
  });
});
