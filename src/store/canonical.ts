/**
 * Canonical JSON for hashing (content refs, idempotency keys): the domain's canonicalJson (keys sorted at every
 * level) applied to the value's JSON form, so toJSON is honoured (a Date becomes its ISO string, not `{}`) and
 * undefined fields, functions and non-finite numbers follow JSON.stringify's rules. Undefined itself is null.
 */
import { createHash } from 'node:crypto';
import { canonicalJson as canonicalPlainJson } from '../domain/canonical-json';

export function canonicalJson(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? 'null' : canonicalPlainJson(JSON.parse(json));
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
