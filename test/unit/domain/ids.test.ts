import { InvalidInputError } from '../../../src/domain/errors';
import { uuidv7 } from '../../../src/domain/ids';

const bytes = (fill: number) => new Uint8Array(10).fill(fill);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('has the v7 format, version nibble and RFC variant bits, whatever the random bytes', () => {
    for (const fill of [0x00, 0xff, 0x5a]) expect(uuidv7(1_700_000_000_000, bytes(fill))).toMatch(UUID);
  });

  it('encodes the milliseconds big-endian in the first 48 bits', () => {
    const ms = Date.UTC(2026, 10, 23, 10);
    const id = uuidv7(ms, bytes(0));
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(ms);
    expect(uuidv7(0, bytes(0))).toBe('00000000-0000-7000-8000-000000000000');
    expect(uuidv7(2 ** 48 - 1, bytes(0xff))).toBe('ffffffff-ffff-7fff-bfff-ffffffffffff');
  });

  it('sorts by time as text', () => {
    const ids = [5, 1_000, 70_000, 2 ** 32 + 1, 2 ** 40].map((ms) => uuidv7(ms, bytes(0xff)));
    expect([...ids].sort()).toEqual(ids);
    expect(uuidv7(1001, bytes(0)) > uuidv7(1000, bytes(0xff))).toBe(true);
  });

  it('uses the random bytes', () => {
    expect(uuidv7(1, bytes(1))).not.toBe(uuidv7(1, bytes(2)));
  });

  it('rejects bad clocks and short randomness', () => {
    expect(() => uuidv7(-1, bytes(0))).toThrow(InvalidInputError);
    expect(() => uuidv7(1.5, bytes(0))).toThrow(InvalidInputError);
    expect(() => uuidv7(2 ** 48, bytes(0))).toThrow(InvalidInputError);
    expect(() => uuidv7(1, new Uint8Array(9))).toThrow(InvalidInputError);
  });
});
