/** The one SHA-256 helper (content refs, idempotency keys, ledger file names). Node-only: not for workflow code. */
import { createHash } from 'node:crypto';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
