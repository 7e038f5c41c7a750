/**
 * Pure POSIX path checks that keep file params inside the workspace root (no Node `path` in workflow code). These are
 * lexical, the first line: plan validation runs them. executeStep then follows symlinks on the worker
 * (src/tools/workspace/roots.ts) before a tool runs.
 *
 * Which params are paths comes from the tool's parameter schema: a string schema with `"x-path": true` (zod tools
 * mark them with `pathParam()` from src/domain/tool-spec.ts). Schemas that come from elsewhere (MCP servers) carry
 * no marks, so for those (`path_params: "by-name"`) the name/value heuristic `isPathParam` is the fallback.
 */
import type { JsonSchema } from './json-schema';
import { identifierWords } from './text';
import { forEachString, formatPath, isRecord, lastKey, type PathSegment } from './walk';

/** The JSON Schema keyword that marks a string param (or the items of an array param) as a file path. */
export const PATH_KEYWORD = 'x-path';

/**
 * The field of a tool result that lists absolute paths (src/tools/mcp/result.ts adds it to an MCP text result whose
 * lines are all paths): what a plan passes from a step that finds files to one that reads them.
 */
export const LISTED_PATHS = 'paths';

/**
 * How a tool's path params are found. "marked": exactly the strings whose schema has `"x-path": true` (tools built
 * from zod, whose schema is the planner's own). "by-name": those, plus any string the name/value heuristic
 * (`isPathParam`) takes for a path — for schemas the planner does not write, such as MCP servers'.
 */
export type PathParamMode = 'marked' | 'by-name';

/** Resolves "." and ".." and repeated slashes. Above the root, ".." stays at "/"; a relative path keeps leading "..". */
export function normalizePosixPath(path: string): string {
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') out.push(part);
    else if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (!absolute) out.push('..');
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/** True when `path` (absolute, or relative to `root`) names `root` or something under it. "~" paths are outside. */
export function isInsideWorkspace(path: string, root: string): boolean {
  if (path.startsWith('~') || path.includes('\0')) return false;
  const base = normalizePosixPath(root);
  const full = normalizePosixPath(path.startsWith('/') ? path : `${base}/${path}`);
  return base === '/' || full === base || full.startsWith(`${base}/`);
}

const PATH_WORDS = new Set([
  'path',
  'paths',
  'file',
  'files',
  'filename',
  'filepath',
  'dir',
  'dirs',
  'directory',
  'directories',
  'folder',
  'folders',
  'cwd',
]);
const URL_WORDS = new Set(['url', 'uri', 'endpoint', 'route', 'href', 'link']);
const PATH_LIKE = /^(?:\/|\.\.?(?:\/|$)|~)/;

/** A param named like a file path: its last word is path, file, dir, folder… (`output_dir`, `files`, `filePath`). */
export function isPathParamName(key: string): boolean {
  return PATH_WORDS.has(identifierWords(key).at(-1) ?? '');
}

/** A param that is a file path: named like one (path, output_dir, files...) or valued like one ("/x", "../x", "~/x"). */
export function isPathParam(key: string | undefined, value: string): boolean {
  const last = key === undefined ? undefined : identifierWords(key).at(-1);
  if (last !== undefined && PATH_WORDS.has(last)) return true;
  if (last !== undefined && URL_WORDS.has(last)) return false;
  return PATH_LIKE.test(value);
}

/**
 * The top-level params of a tool's parameter schema that hold file paths, each with the string schema of one path
 * (the param's own, or its items' for a list of paths): those marked `"x-path": true` and, with mode "by-name",
 * those named like a path. What a schema says before any value exists (pathParamValues finds them in params).
 */
export function pathParamSchemas(
  schema: JsonSchema,
  mode: PathParamMode,
): { param: string; path: JsonSchema; list: boolean }[] {
  const out: { param: string; path: JsonSchema; list: boolean }[] = [];
  for (const [param, sub] of Object.entries(schema.properties ?? {})) {
    if (!isRecord(sub)) continue;
    const list = sub.type === 'array' && isRecord(sub.items);
    const path = (list ? sub.items : sub) as JsonSchema;
    if (path.type !== 'string') continue;
    if (path[PATH_KEYWORD] === true || (mode === 'by-name' && isPathParamName(param))) out.push({ param, path, list });
  }
  return out;
}

export interface PathParamValue {
  /** Where the value is inside the params, e.g. ["files", 2]. */
  at: PathSegment[];
  value: string;
}

const MAX_SCHEMA_DEPTH = 64;

/** Local "$ref" ("#/$defs/x", "#") resolved against the root schema; anything else is undefined. */
function resolveRef(ref: string, root: JsonSchema): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isRecord(node)) return undefined;
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function collectMarked(
  value: unknown,
  schema: unknown,
  root: JsonSchema,
  at: PathSegment[],
  out: Map<string, PathParamValue>,
  depth: number,
): void {
  if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH) return;
  if (typeof schema.$ref === 'string') collectMarked(value, resolveRef(schema.$ref, root), root, at, out, depth + 1);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) for (const branch of branches) collectMarked(value, branch, root, at, out, depth + 1);
  }
  if (typeof value === 'string') {
    if (schema[PATH_KEYWORD] === true) out.set(formatPath(at), { at: [...at], value });
  } else if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    value.forEach((item, i) =>
      collectMarked(item, i < prefix.length ? prefix[i] : schema.items, root, [...at, i], out, depth + 1),
    );
  } else if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    for (const key of Object.keys(value)) {
      const sub = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
      collectMarked(value[key], sub, root, [...at, key], out, depth + 1);
    }
  }
}

/**
 * The string values of `params` that are file paths by `schema` (the tool's parameter JSON Schema): those marked
 * `"x-path": true`, and with mode "by-name" also those `isPathParam` takes for paths by name or value.
 */
export function pathParamValues(params: unknown, schema: JsonSchema, mode: PathParamMode): PathParamValue[] {
  const found = new Map<string, PathParamValue>();
  collectMarked(params, schema, schema, [], found, 0);
  if (mode === 'by-name') {
    forEachString(params, (value, at) => {
      const key = formatPath(at);
      if (!found.has(key) && isPathParam(lastKey(at), value)) found.set(key, { at: [...at], value });
    });
  }
  return [...found.values()];
}
