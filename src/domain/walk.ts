/** Small helpers for walking plain JSON values (plan params, step results). */

export type PathSegment = string | number;

/** `["a", 0, "b"]` → `a[0].b`; the form every error message uses for a location inside a value. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/**
 * Calls `visit` for every string inside `value` (object values and array items, depth first, in key order).
 * `path` is the live walk stack: copy it if you keep it beyond the call.
 */
export function forEachString(value: unknown, visit: (text: string, path: readonly PathSegment[]) => void): void {
  const path: PathSegment[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') visit(v, path);
    else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        path.push(i);
        walk(item);
        path.pop();
      });
    } else if (isRecord(v)) {
      for (const key of Object.keys(v)) {
        path.push(key);
        walk(v[key]);
        path.pop();
      }
    }
  };
  walk(value);
}

/** The last object key on a path (`files[2]` → "files"); names of array items come from their parent key. */
export function lastKey(path: readonly PathSegment[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const seg = path[i];
    if (typeof seg === 'string') return seg;
  }
  return undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `value` nests objects/arrays deeper than `max`; bounded, so it is safe on hostile input. */
export function depthExceeds(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max <= 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => depthExceeds(child, max - 1));
}

/**
 * True when JSON `text` nests objects and arrays deeper than `max`, told by one pass over its brackets outside
 * strings, without parsing: what keeps a hostile text (40,000 levels in 80 KB) from every recursive walk.
 */
export function jsonNestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\')
        i++; // the escaped character cannot end the string
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth > max) return true;
    } else if (c === '}' || c === ']') depth--;
  }
  return false;
}

/** Freezes a plain JSON value all the way down, so records shared across workflow code cannot drift. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Lower-case words of a param name: `apiKey`, `api_key` and `x-api-key` all end in ["api", "key"]. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** UTF-8 bytes of `text`, counted without Buffer or TextEncoder (workflow code uses it). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one code point of 4 bytes
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Bytes of `value` serialized as JSON (UTF-8), the size that counts against a payload limit; 0 for what JSON leaves
 * out (undefined). Throws TypeError for what JSON cannot hold (a BigInt, a cycle).
 */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : utf8Length(text);
}
