/**
 * RFC 6902 JSON Patch over any JSON document, and the inverse question (which JSON Pointers differ between two
 * documents). Both are generic over the plan's JSON: they know nothing of tasks or steps, so a change of the plan's
 * shape needs no change here. Bounded: at most JSON_PATCH_LIMITS.operations operations, pointers at most
 * JSON_PATCH_LIMITS.depth tokens deep; a change list stops at a limit and says how many it left out.
 */
import { z } from 'zod';
import { canonicalJson } from './canonical-json';
import { InvalidInputError } from './errors';
import { sharedSchema } from './shared-schema';

export const JSON_PATCH_LIMITS = { operations: 200, depth: 32, pointer_chars: 1_000 } as const;

const Pointer = sharedSchema('domain/json-patch#Pointer', () =>
  z
    .string()
    .max(JSON_PATCH_LIMITS.pointer_chars)
    .regex(/^(\/[^/]*)*$/, 'a JSON Pointer: "" or "/a/0/b"'),
);

export const JsonPatchSchema = sharedSchema('domain/json-patch#JsonPatchSchema', () =>
  z
    .array(
      z.discriminatedUnion('op', [
        z.object({ op: z.literal('add'), path: Pointer, value: z.unknown() }).strict(),
        z.object({ op: z.literal('remove'), path: Pointer }).strict(),
        z.object({ op: z.literal('replace'), path: Pointer, value: z.unknown() }).strict(),
        z.object({ op: z.literal('move'), from: Pointer, path: Pointer }).strict(),
        z.object({ op: z.literal('copy'), from: Pointer, path: Pointer }).strict(),
        z.object({ op: z.literal('test'), path: Pointer, value: z.unknown() }).strict(),
      ]),
    )
    .min(1)
    .max(JSON_PATCH_LIMITS.operations),
);
export type JsonPatch = z.output<typeof JsonPatchSchema>;
type Operation = JsonPatch[number];

const HINT = 'Write an RFC 6902 JSON Patch over the plan as `planner show --json` prints it (plan.tasks[0].steps[1]…).';

function tokensOf(pointer: string): string[] {
  if (pointer === '') return [];
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (tokens.includes('__proto__'))
    throw new InvalidInputError(`JSON Pointer ${pointer} names __proto__, which a plan never has`, HINT);
  if (tokens.length > JSON_PATCH_LIMITS.depth)
    throw new InvalidInputError(`JSON Pointer ${pointer} is deeper than ${JSON_PATCH_LIMITS.depth} levels`, HINT);
  return tokens;
}

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === 'object' && v !== null;

/** The container `tokens` (all but the last) lead to, and the last token; throws naming the operation when absent. */
function parentOf(
  doc: unknown,
  tokens: string[],
  where: string,
): { parent: Record<string, unknown> | unknown[]; key: string } {
  let node = doc;
  for (const t of tokens.slice(0, -1)) {
    const next = isContainer(node) && Object.hasOwn(node, t) ? (node as Record<string, unknown>)[t] : undefined;
    if (!isContainer(next)) throw new InvalidInputError(`${where}: no container at "${t}"`, HINT);
    node = next;
  }
  if (!isContainer(node))
    throw new InvalidInputError(`${where}: the path leads through a value, not a container`, HINT);
  return { parent: node, key: tokens.at(-1)! };
}

function arrayIndex(arr: unknown[], key: string, where: string, forAdd: boolean): number {
  if (forAdd && key === '-') return arr.length;
  const n = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN;
  if (!(n <= arr.length - (forAdd ? 0 : 1)))
    throw new InvalidInputError(`${where}: index "${key}" is out of the array's range (length ${arr.length})`, HINT);
  return n;
}

function get(doc: unknown, pointer: string, where: string): unknown {
  let node = doc;
  for (const t of tokensOf(pointer)) {
    if (!isContainer(node) || !Object.hasOwn(node, t))
      throw new InvalidInputError(`${where}: nothing at ${pointer}`, HINT);
    node = (node as Record<string, unknown>)[t];
  }
  return node;
}

function remove(doc: unknown, pointer: string, where: string): unknown {
  const tokens = tokensOf(pointer);
  if (tokens.length === 0) throw new InvalidInputError(`${where}: cannot remove the whole document`, HINT);
  const { parent, key } = parentOf(doc, tokens, where);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, where, false), 1)[0];
  if (!Object.hasOwn(parent, key)) throw new InvalidInputError(`${where}: nothing at ${pointer}`, HINT);
  const value = parent[key];
  delete parent[key];
  return value;
}

/** Adds (or, for `replace`, replaces) `value` at `pointer`; returns the document (a new one when the pointer is ""). */
function put(doc: unknown, pointer: string, value: unknown, where: string, replace: boolean): unknown {
  const tokens = tokensOf(pointer);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, where);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, where, !replace);
    parent.splice(i, replace ? 1 : 0, value);
  } else {
    if (replace && !Object.hasOwn(parent, key))
      throw new InvalidInputError(`${where}: nothing at ${pointer} to replace`, HINT);
    parent[key] = value;
  }
  return doc;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function apply(doc: unknown, op: Operation, where: string): unknown {
  switch (op.op) {
    case 'add':
      return put(doc, op.path, clone(op.value), where, false);
    case 'replace':
      return put(doc, op.path, clone(op.value), where, true);
    case 'remove':
      remove(doc, op.path, where);
      return doc;
    case 'copy':
      return put(doc, op.path, clone(get(doc, op.from, where)), where, false);
    case 'move':
      if (op.path.startsWith(`${op.from}/`))
        throw new InvalidInputError(`${where}: cannot move a value into itself`, HINT);
      return put(doc, op.path, remove(doc, op.from, where), where, false);
    case 'test':
      if (canonicalJson(get(doc, op.path, where)) !== canonicalJson(op.value))
        throw new InvalidInputError(`${where}: the value at ${op.path} is not the one the patch expects`, HINT);
      return doc;
  }
}

/**
 * `doc` with `patch` applied, all or nothing (the input is not changed). Throws InvalidInputError (PLAN-006) naming
 * the operation that cannot apply, and why.
 */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  const parsed = JsonPatchSchema.safeParse(patch);
  if (!parsed.success)
    throw new InvalidInputError(
      `not a JSON Patch: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(patch)'}: ${i.message}`)
        .join('; ')}`,
      HINT,
    );
  return parsed.data.reduce((d, op, i) => apply(d, op, `patch operation ${i} (${op.op} ${op.path})`), clone(doc));
}

/** The JSON Pointers at which `a` and `b` differ (the deepest that differ), at most `limit`, then "…N more". */
export function jsonChanges(a: unknown, b: unknown, limit = 20): string[] {
  const out: string[] = [];
  let more = 0;
  const escape = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  const walk = (x: unknown, y: unknown, at: string): void => {
    if (canonicalJson(x) === canonicalJson(y)) return;
    if (isContainer(x) && isContainer(y) && Array.isArray(x) === Array.isArray(y)) {
      const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
      for (const k of keys)
        walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${at}/${escape(k)}`);
      return;
    }
    if (out.length < limit) out.push(at || '/');
    else more++;
  };
  walk(a, b, '');
  return more > 0 ? [...out, `…${more} more`] : out;
}
