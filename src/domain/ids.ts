/**
 * UUID version 7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Ids sort by creation time. The clock and
 * the random bytes are arguments so workflow code can pass its deterministic ones.
 */
import { InvalidInputError } from './errors';

const MAX_UNIX_MS = 2 ** 48 - 1;

function hex(byte: number): string {
  return byte.toString(16).padStart(2, '0');
}

/** `random` needs at least 10 bytes (74 random bits are used; the extra bits of bytes 0 and 2 are overwritten). */
export function uuidv7(unixMs: number, random: Uint8Array): string {
  if (!Number.isInteger(unixMs) || unixMs < 0 || unixMs > MAX_UNIX_MS) {
    throw new InvalidInputError(
      `uuidv7: unixMs must be an integer in [0, 2^48), got ${unixMs}`,
      'Pass a Unix time in milliseconds.',
    );
  }
  if (random.length < 10) {
    throw new InvalidInputError(`uuidv7: need 10 random bytes, got ${random.length}`, 'Pass at least 10 random bytes.');
  }
  const bytes = new Uint8Array(16);
  // 48-bit timestamp, big-endian; split because bitwise operators are 32-bit.
  const high = Math.floor(unixMs / 2 ** 16);
  bytes[0] = (high >>> 24) & 0xff;
  bytes[1] = (high >>> 16) & 0xff;
  bytes[2] = (high >>> 8) & 0xff;
  bytes[3] = high & 0xff;
  bytes[4] = (unixMs >>> 8) & 0xff;
  bytes[5] = unixMs & 0xff;
  bytes[6] = 0x70 | (random[0]! & 0x0f); // version 7 + rand_a
  bytes[7] = random[1]!;
  bytes[8] = 0x80 | (random[2]! & 0x3f); // variant 10 + rand_b
  for (let i = 9; i < 16; i++) bytes[i] = random[i - 6]!;
  const h = Array.from(bytes, hex).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
