/**
 * Canonical JSON: JSON.stringify's rules (toJSON honoured, so a Date is its ISO string; undefined, functions and
 * symbols dropped from objects and null in arrays; non-finite numbers null) with object keys sorted at every level,
 * so equal values give equal text (for keys, digests, comparisons). Undefined itself is null. Pure: workflow code
 * uses it, and for plain JSON values its text must never change (replayed histories depend on it).
 */
export function canonicalJson(value: unknown): string {
  return jsonOf(value, '') ?? 'null';
}

/** The canonical text of `value` as the member `key` of its parent; undefined where JSON.stringify leaves it out. */
function jsonOf(value: unknown, key: string): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (Array.isArray(value)) return `[${value.map((v, i) => jsonOf(v, String(i)) ?? 'null').join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members: string[] = [];
    for (const k of Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const text = jsonOf((value as Record<string, unknown>)[k], k);
      if (text !== undefined) members.push(`${JSON.stringify(k)}:${text}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
