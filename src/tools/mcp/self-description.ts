/**
 * What an MCP server says about itself, gathered once when its pack connects and put where the planners read it,
 * the catalog's tool specs. Without it the LLM planner guesses where a filesystem server's files are
 * (`{"path": "notes"}`, ENOENT) and the ranking planner has no path to give at all.
 *
 * Gathered: the `instructions` of the server's initialize result; the names of its resources, if it offers any; and
 * the directories it may use, read from its own tool that lists them (server-filesystem's `list_allowed_directories`),
 * found by what the tool is, not by one server's name: it takes no arguments, is read-only (so calling it unasked is
 * safe), and its name says it lists roots or allowed directories. Every part is best-effort: a server that does not
 * answer one is described without it, and its pack starts all the same.
 *
 * Shown: each tool's description gains one note of at most NOTE_MAX_CHARS (the directories, for a tool that takes
 * params; then the instructions; then the resources), and each path param (paths.ts pathParamSchemas) gains the
 * directories as JSON Schema `examples`, unless the server gave examples of its own.
 */
import { fileURLToPath } from 'node:url';
import { pathParamSchemas } from '../../domain/paths';
import type { ToolSpec } from '../../domain/tool-spec';
import { identifierWords } from '../../domain/text';
import { forEachString, isRecord } from '../../domain/walk';
import type { McpConnection, McpToolInfo } from './connection';

/** The longest note a tool's description gains, and the most characters a path param's examples take. */
export const NOTE_MAX_CHARS = 500;
const MAX_DIRECTORIES = 8;
const MAX_PATH_CHARS = NOTE_MAX_CHARS;
const MAX_RESOURCES = 20;
const MAX_RESOURCE_NAME_CHARS = 80;
const MAX_EXAMPLES = 3;
/** How long the directory-listing tool may take: a server that hangs on it still starts its pack. */
const LISTING_TIMEOUT_MS = 10_000;

export interface ServerSelfDescription {
  instructions?: string;
  /** Names of the server's resources (at most MAX_RESOURCES). */
  resources: string[];
  /** Absolute directories the server says it may use (at most MAX_DIRECTORIES). */
  directories: string[];
}

const ALLOWED_WORDS = ['allowed', 'accessible', 'permitted'];
const DIRECTORY_WORDS = ['directories', 'dirs', 'folders', 'paths', 'roots'];

/** A tool that lists the directories the server may use: no arguments, read-only, named for roots or allowed directories. */
export function isDirectoryListingTool(tool: McpToolInfo): boolean {
  const properties = isRecord(tool.inputSchema?.properties) ? tool.inputSchema.properties : {};
  if (Object.keys(properties).length > 0 || tool.annotations?.readOnlyHint !== true) return false;
  const words = new Set(identifierWords(`${tool.name} ${tool.title ?? ''}`));
  return words.has('roots') || (ALLOWED_WORDS.some((w) => words.has(w)) && DIRECTORY_WORDS.some((w) => words.has(w)));
}

function pathOf(entry: string): string | undefined {
  if (!entry.startsWith('file://')) return entry;
  try {
    return fileURLToPath(entry);
  } catch {
    return undefined;
  }
}

/** The absolute directories a listing tool's result names: lines (or list items) that are a POSIX path or a file:// URI. */
export function directoriesIn(data: unknown): string[] {
  const found = new Set<string>();
  forEachString(data, (text) => {
    for (const line of text.split('\n')) {
      const dir = pathOf(line.trim().replace(/^[-*]\s+/, ''));
      if (dir?.startsWith('/') && dir.length <= MAX_PATH_CHARS && !/[\u0000-\u001f\u007f]/.test(dir)) found.add(dir);
    }
  });
  return [...found].slice(0, MAX_DIRECTORIES);
}

/** One line of plain text: whitespace and control characters collapsed to single spaces. */
function oneLine(text: string): string {
  return text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** Asks `connection`'s server about itself; `tools` is its tools/list answer. Never throws. */
export async function describeServer(
  connection: McpConnection,
  tools: readonly McpToolInfo[],
): Promise<ServerSelfDescription> {
  const lister = tools.find(isDirectoryListingTool);
  const [instructions, resources, directories] = await Promise.all([
    connection.instructions().catch(() => undefined),
    connection.resourceNames(MAX_RESOURCES).catch(() => []),
    lister
      ? connection
          .callTool(lister.name, {}, { idempotent: true, signal: AbortSignal.timeout(LISTING_TIMEOUT_MS) })
          .then(directoriesIn, () => [])
      : [],
  ]);
  const text = instructions === undefined ? '' : oneLine(instructions);
  return {
    ...(text ? { instructions: text } : {}),
    resources: resources.map((name) => bounded(oneLine(name), MAX_RESOURCE_NAME_CHARS)).filter(Boolean),
    directories,
  };
}

/** The note a tool's description gains ("" when the server said nothing about itself). */
function noteFor(spec: ToolSpec, about: ServerSelfDescription): string {
  const takesParams = Object.keys(spec.parameters.properties ?? {}).length > 0;
  const parts = [
    ...(takesParams && about.directories.length > 0
      ? [`Allowed directories (give absolute paths inside one): ${about.directories.join(', ')}.`]
      : []),
    ...(about.instructions ? [`Server instructions: ${about.instructions}`] : []),
    ...(about.resources.length > 0 ? [`Server resources: ${about.resources.join(', ')}.`] : []),
  ];
  return bounded(parts.join(' '), NOTE_MAX_CHARS);
}

/** The first directories, at most MAX_EXAMPLES of them and NOTE_MAX_CHARS together (the first always fits). */
function examplesOf(directories: readonly string[]): string[] {
  const examples: string[] = [];
  let chars = 0;
  for (const dir of directories.slice(0, MAX_EXAMPLES)) {
    chars += dir.length;
    if (chars > NOTE_MAX_CHARS) break;
    examples.push(dir);
  }
  return examples;
}

/** `spec` as the planners should see it, given what its server says about itself; `spec` itself when it said nothing. */
export function describedSpec(spec: ToolSpec, about: ServerSelfDescription): ToolSpec {
  const note = noteFor(spec, about);
  const parameters = structuredClone(spec.parameters);
  const paths =
    about.directories.length > 0
      ? pathParamSchemas(parameters, spec.path_params).filter(({ path }) => path.examples === undefined)
      : [];
  for (const { path } of paths) path.examples = examplesOf(about.directories);
  if (!note && paths.length === 0) return spec;
  return { ...spec, ...(note ? { description: `${spec.description} ${note}` } : {}), parameters };
}
