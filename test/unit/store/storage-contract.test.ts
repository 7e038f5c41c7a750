/**
 * The contract every planner storage keeps, run against both: the files of one machine (LocalStorage, the default)
 * and PostgreSQL shared by several (PostgresStorage, DATABASE_URL; a throw-away cluster started for this file).
 * A second instance on the same folder or database stands for another worker process or machine.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { InvalidInputError } from '../../../src/domain/errors';
import { canonicalJson } from '../../../src/domain/canonical-json';
import { contentAddress } from '../../../src/store/content-store';
import { PostgresStorage } from '../../../src/store/postgres';
import { LocalStorage, type PlannerStorage } from '../../../src/store/storage';
import { StepOutcomeUnknownError } from '../../../src/domain/errors';
import { intentKey, once } from '../../../src/store/idempotency';
import { usePostgres } from '../../support/postgres';

const postgres = usePostgres();

type Open = (options?: { now?: () => Date }) => PlannerStorage;

/** A fresh location (folder or database) per test; `open` gives instances on it. */
const kinds: [string, () => Promise<{ open: Open; dispose(): Promise<void> }>][] = [
  [
    'local files',
    async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'planner-storage-'));
      return {
        open: (options) => new LocalStorage(dir, options),
        dispose: () => fs.rm(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const url = await postgres().freshDatabase();
      return { open: (options) => new PostgresStorage(url, options), dispose: async () => undefined };
    },
  ],
];

describe.each(kinds)('storage contract: %s', (_kind, location) => {
  let open: Open;
  let dispose: () => Promise<void>;
  const opened: PlannerStorage[] = [];
  const storage = (options?: { now?: () => Date }) => {
    const s = open(options);
    opened.push(s);
    return s;
  };
  beforeEach(async () => {
    ({ open, dispose } = await location());
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await dispose();
  });

  describe('content store', () => {
    test('round-trips a JSON value under sha256:<hex of its canonical JSON>, with its size in bytes', async () => {
      const { store } = storage();
      const value = { rows: [{ id: 'SHP-0001', weight_kg: 1200.5, ok: true }], note: 'Köln ✓' };
      const stored = await store.put(value, { workflowId: 'wf-1' });
      expect(stored).toEqual({
        ref: contentAddress(value).ref,
        bytes: Buffer.byteLength(canonicalJson(value), 'utf8'),
      });
      expect(await store.get(stored.ref)).toEqual(value);
    });

    test('dedupes by content: keys in another order are the same ref; other content is another ref', async () => {
      const { store } = storage();
      const a = await store.put({ x: 1, y: [1, 2] });
      expect(await store.put({ y: [1, 2], x: 1 }, { workflowId: 'wf-2' })).toEqual(a);
      expect((await store.put({ x: 1, y: [2, 1] })).ref).not.toBe(a.ref);
    });

    test('concurrent puts of one large value from two instances leave it whole and readable', async () => {
      const [one, two] = [storage(), storage()];
      const value = { big: 'x'.repeat(200_000), rows: Array.from({ length: 500 }, (_, i) => ({ i })) };
      const refs = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).store.put(value, { workflowId: `wf-${i}` })),
      );
      expect(new Set(refs.map((r) => r.ref)).size).toBe(1);
      expect(await one.store.get(refs[0]!.ref)).toEqual(value);
    });

    test('a value stored by one instance is read by another (another worker, another machine)', async () => {
      const { ref } = await storage().store.put([{ id: 'SHP-0291' }], { workflowId: 'wf-1' });
      expect(await storage().store.get(ref)).toEqual([{ id: 'SHP-0291' }]);
    });

    test('a missing ref is an InvalidInputError (PLAN-006) naming it, with a hint about sharing the store', async () => {
      const ref = contentAddress({ never: 'stored' }).ref;
      const err = await storage()
        .store.get(ref)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidInputError);
      expect(err).toMatchObject({ code: 'PLAN-006' });
      expect((err as InvalidInputError).message).toContain(ref);
      expect((err as InvalidInputError).hint).toMatch(/DATABASE_URL/);
    });

    test('a malformed ref is refused before any lookup', async () => {
      const { store } = storage();
      await expect(store.get('sha256:../../etc/passwd')).rejects.toBeInstanceOf(InvalidInputError);
      await expect(store.get("md5:abc' OR 1=1")).rejects.toThrow(/invalid content ref/);
    });
  });

  describe('idempotency ledger', () => {
    test('an unknown key reads as undefined; the first record wins; remove forgets it', async () => {
      const { ledger } = storage();
      expect(await ledger.get('wf-1/1.1:abc')).toBeUndefined();
      await ledger.record('wf-1/1.1:abc', { n: 1 }, { workflowId: 'wf-1' });
      await ledger.record('wf-1/1.1:abc', { n: 2 }, { workflowId: 'wf-1' });
      expect(await ledger.get('wf-1/1.1:abc')).toEqual({ n: 1 });
      await ledger.remove('wf-1/1.1:abc');
      expect(await ledger.get('wf-1/1.1:abc')).toBeUndefined();
    });

    test('a null outcome is recorded (a tool that returned nothing still acted)', async () => {
      const { ledger } = storage();
      await ledger.record('k', null);
      expect(await ledger.get('k')).toBeNull();
    });

    test('an outcome recorded by one instance is replayed by another: the effect runs once', async () => {
      let effects = 0;
      const effect = async () => ({ n: ++effects });
      expect(await once(storage().ledger, 'wf-1/1.1:abc', effect)).toEqual({ value: { n: 1 }, replayed: false });
      expect(await once(storage().ledger, 'wf-1/1.1:abc', effect)).toEqual({ value: { n: 1 }, replayed: true });
      expect(effects).toBe(1);
    });

    test('an intent without an outcome, left by a worker that died, stops the retry on another instance (PLAN-014)', async () => {
      await storage().ledger.record(
        intentKey('wf-1/1.1:abc'),
        { at: '2026-11-23T10:00:00.000Z' },
        { workflowId: 'wf-1' },
      );
      let effects = 0;
      const err = await once(storage().ledger, 'wf-1/1.1:abc', async () => ++effects).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StepOutcomeUnknownError);
      expect(effects).toBe(0);
    });
  });

  describe('retention', () => {
    const day = 86_400_000;
    const t0 = new Date('2026-09-01T00:00:00Z');
    const at = (days: number) => new Date(t0.getTime() + days * day);

    test('removes values and ledger entries last written before the cutoff; keeps later ones and values re-written since', async () => {
      let now = at(0);
      const s = storage({ now: () => now });
      const old = await s.store.put({ old: true }, { workflowId: 'wf-old' });
      const rewritten = await s.store.put({ rewritten: true }, { workflowId: 'wf-old' });
      await s.ledger.record('wf-old/1.1:x', { done: 1 }, { workflowId: 'wf-old' });
      now = at(40);
      const fresh = await s.store.put({ fresh: true }, { workflowId: 'wf-new' });
      await s.store.put({ rewritten: true }, { workflowId: 'wf-new' });
      await s.ledger.record('wf-new/1.1:x', { done: 2 }, { workflowId: 'wf-new' });

      expect(await s.collectGarbage(at(10))).toEqual({ values: 1, ledgerEntries: 1 });

      await expect(s.store.get(old.ref)).rejects.toBeInstanceOf(InvalidInputError);
      expect(await s.store.get(rewritten.ref)).toEqual({ rewritten: true });
      expect(await s.store.get(fresh.ref)).toEqual({ fresh: true });
      expect(await s.ledger.get('wf-old/1.1:x')).toBeUndefined();
      expect(await s.ledger.get('wf-new/1.1:x')).toEqual({ done: 2 });
      expect(await s.collectGarbage(at(10))).toEqual({ values: 0, ledgerEntries: 0 });
    });

    test('keeps, however old, the ledger entries of open runs and the values they reference', async () => {
      let now = at(0);
      const s = storage({ now: () => now });
      const result = await s.store.put({ rows: 'step 1.1 of the waiting run' }, { workflowId: 'wf-waiting' });
      const orphan = await s.store.put({ rows: 'of a closed run' }, { workflowId: 'wf-closed' });
      await s.ledger.record('wf-waiting/1.1:x', { done: 1 }, { workflowId: 'wf-waiting' });
      await s.ledger.record('wf-closed/1.1:x', { done: 2 }, { workflowId: 'wf-closed' });
      now = at(40);

      const open = { workflowIds: new Set(['wf-waiting']), refs: new Set([result.ref]) };
      expect(await s.collectGarbage(at(10), open)).toEqual({ values: 1, ledgerEntries: 1 });

      expect(await s.store.get(result.ref)).toEqual({ rows: 'step 1.1 of the waiting run' });
      expect(await s.ledger.get('wf-waiting/1.1:x')).toEqual({ done: 1 });
      await expect(s.store.get(orphan.ref)).rejects.toBeInstanceOf(InvalidInputError);
      expect(await s.ledger.get('wf-closed/1.1:x')).toBeUndefined();
    });
  });
});

describe('PostgreSQL storage', () => {
  const day = 86_400_000;
  const t0 = new Date('2026-09-01T00:00:00Z');
  const at = (days: number) => new Date(t0.getTime() + days * day);

  test('keeps everything a run wrote while that run still writes within the retention', async () => {
    const url = await postgres().freshDatabase();
    let now = at(0);
    const s = new PostgresStorage(url, { now: () => now });
    try {
      const archived = await s.store.put({ plan: 'v1' }, { workflowId: 'wf-long' });
      await s.ledger.record('llm-call:wf-long:1', { tokens: 10 }, { workflowId: 'wf-long' });
      const other = await s.store.put({ plan: 'of a finished run' }, { workflowId: 'wf-done' });
      now = at(45);
      await s.store.put({ plan: 'v9' }, { workflowId: 'wf-long' }); // the long run is still active

      expect(await s.collectGarbage(at(15))).toEqual({ values: 1, ledgerEntries: 0 });
      expect(await s.store.get(archived.ref)).toEqual({ plan: 'v1' });
      expect(await s.ledger.get('llm-call:wf-long:1')).toEqual({ tokens: 10 });
      await expect(s.store.get(other.ref)).rejects.toThrow(/no value stored/);
    } finally {
      await s.close();
    }
  });

  test('workers starting at once against an empty database create the schema once, each migration recorded once', async () => {
    const url = await postgres().freshDatabase();
    const workers = Array.from({ length: 4 }, () => new PostgresStorage(url));
    try {
      const refs = await Promise.all(workers.map((w, i) => w.store.put({ worker: i })));
      expect(refs).toHaveLength(4);
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ version: number }>(
          'SELECT version FROM planner.migrations ORDER BY version',
        );
        expect(rows.map((r) => r.version)).toEqual([1]);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });
});
