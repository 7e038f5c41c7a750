/** Small helpers for walking plain JSON values (plan params, step results). */
import { utf8Length } from './text';

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

/**
 * Bytes of `value` serialized as JSON (UTF-8), the size that counts against a payload limit; 0 for what JSON leaves
 * out (undefined). Throws TypeError for what JSON cannot hold (a BigInt, a cycle).
 */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : utf8Length(text);
}
