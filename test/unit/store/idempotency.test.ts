import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StepOutcomeUnknownError } from '../../../src/domain/errors';
import { FileIdempotencyLedger, MemoryIdempotencyLedger, intentKey, once } from '../../../src/store/idempotency';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'planner-ledger-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe.each([
  ['file', () => new FileIdempotencyLedger(dir)],
  ['memory', () => new MemoryIdempotencyLedger()],
])('once() with the %s ledger', (_name, makeLedger) => {
  test('the same key twice runs the effect once; the second call replays the first result', async () => {
    const ledger = makeLedger();
    let effects = 0;
    const effect = async () => ({ n: ++effects });
    expect(await once(ledger, 'wf-1/step-a:abc', effect)).toEqual({ value: { n: 1 }, replayed: false });
    expect(await once(ledger, 'wf-1/step-a:abc', effect)).toEqual({ value: { n: 1 }, replayed: true });
    expect(effects).toBe(1);
  });

  test('different keys run separately', async () => {
    const ledger = makeLedger();
    let effects = 0;
    await once(ledger, 'k1', async () => ++effects);
    const second = await once(ledger, 'k2', async () => ++effects);
    expect(second).toEqual({ value: 2, replayed: false });
  });

  test('the intent is written before the effect runs', async () => {
    const ledger = makeLedger();
    let seen: unknown;
    await once(ledger, 'k', async () => {
      seen = await ledger.get(intentKey('k'));
      return 'ok';
    });
    expect(seen).toEqual({ at: expect.any(String) });
  });

  test('an attempt that failed with an unknown outcome is not run again: StepOutcomeUnknownError (at-most-once)', async () => {
    const ledger = makeLedger();
    let effects = 0;
    await expect(
      once(ledger, 'k', async () => Promise.reject(new Error(`lost after effect ${++effects}`))),
    ).rejects.toThrow('lost');
    const err = await once(ledger, 'k', async () => ++effects).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepOutcomeUnknownError);
    expect(err).toMatchObject({ code: 'PLAN-014', retryable: false, details: { idempotency_key: 'k' } });
    expect(effects).toBe(1);
  });

  test('a keyed tool (it dedupes on the key) runs again after an unknown outcome (exactly-once)', async () => {
    const ledger = makeLedger();
    await expect(once(ledger, 'k', async () => Promise.reject(new Error('lost')), { keyed: true })).rejects.toThrow(
      'lost',
    );
    expect(await once(ledger, 'k', async () => 'ok', { keyed: true })).toEqual({ value: 'ok', replayed: false });
  });

  test('a failure that says the tool did not act (noEffect) withdraws the intent, so the retry runs it', async () => {
    const ledger = makeLedger();
    const notSent = Object.assign(new Error('cannot start'), { noEffect: true });
    await expect(once(ledger, 'k', async () => Promise.reject(notSent))).rejects.toThrow('cannot start');
    expect(await ledger.get(intentKey('k'))).toBeUndefined();
    expect(await once(ledger, 'k', async () => 'ok')).toEqual({ value: 'ok', replayed: false });
  });
});

test('the file ledger survives a restart (a new instance on the same folder) and leaves no temp files', async () => {
  let effects = 0;
  await once(new FileIdempotencyLedger(dir), 'key', async () => ({ at: ++effects }));
  expect(await once(new FileIdempotencyLedger(dir), 'key', async () => ({ at: ++effects }))).toEqual({
    value: { at: 1 },
    replayed: true,
  });
  expect(effects).toBe(1);
  const files = (await fs.readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  // the intent and the outcome, one file each
  expect(files.map((f) => f.name)).toEqual([
    expect.stringMatching(/^[0-9a-f]{64}\.json$/),
    expect.stringMatching(/^[0-9a-f]{64}\.json$/),
  ]);
});
