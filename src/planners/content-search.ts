/**
 * A question about what stored documents say, over a catalog that names none of the goal's subjects but can find and
 * read files ("What is the travel budget for Q3 2026?" over a filesystem server): search for the files (by a query of
 * the goal's key words; by a glob, which matches names only, every file: EVERY_FILE_GLOB), then read what the search
 * found. Read from the tools' names,
 * schemas and results only, so it holds for any such server:
 *   - the searcher: a tool named for searching or finding, with a required text param that is no path (its query;
 *     a glob when the tool or the param says so), whose result lists paths (LISTED_PATHS);
 *   - the reader: a tool named for reading, not deprecated, whose one required param is a path (a list of paths
 *     preferred: one call reads every match) and whose result is text.
 * A question about today ("today's exchange rate") asks for live values, which files written earlier do not hold: it
 * is left to the tools that name it.
 */
import { resolveTemporalReferences } from '../domain/dates';
import type { JsonSchema } from '../domain/json-schema';
import { LISTED_PATHS, pathParamSchemas } from '../domain/paths';
import type { ToolSpec } from '../domain/tool-spec';
import { identifierWords, isContentToken, tokenize, type Token } from '../domain/text';
import { paramSchemas, toolTerms } from './catalog-match';

const SEARCH_VERBS = new Set(['search', 'find']);
const READ_VERBS = new Set(['read']);
/** The most key words a query carries: the goal's first ones. */
const MAX_KEY_WORDS = 12;

export interface ContentSearch {
  searcher: ToolSpec;
  /** The searcher's params: its query and the paths the goal gives none of (filled later from their examples). */
  searchParams: Record<string, unknown>;
  reader: ToolSpec;
  /** The reader's path param and the template path (after `data`) that gives it the searcher's paths. */
  readerParam: string;
  readerPath: string;
  notes: string[];
}

const verbOf = (tool: ToolSpec) => identifierWords(tool.name)[0] ?? '';
const resultFields = (tool: ToolSpec): Record<string, unknown> =>
  tool.result?.type === 'object' ? (tool.result.properties ?? {}) : {};
const isText = (s: unknown) => typeof s === 'object' && s !== null && (s as JsonSchema).type === 'string';
const describes = (schema: JsonSchema | undefined, word: RegExp) =>
  typeof schema?.description === 'string' && word.test(schema.description);

/** The searcher's query param: required, text, not a path. */
function queryParam(tool: ToolSpec): [string, JsonSchema] | undefined {
  const paths = new Set(pathParamSchemas(tool.parameters, tool.path_params).map((p) => p.param));
  return paramSchemas(tool).find(
    ([p, s]) => tool.required.includes(p) && !paths.has(p) && s.type === 'string' && s.enum === undefined,
  ) as [string, JsonSchema] | undefined;
}

function searcherOf(catalog: readonly ToolSpec[]): ToolSpec | undefined {
  return catalog.find(
    (t) => SEARCH_VERBS.has(verbOf(t)) && queryParam(t) !== undefined && LISTED_PATHS in resultFields(t),
  );
}

function readerOf(catalog: readonly ToolSpec[]): { tool: ToolSpec; param: string; list: boolean } | undefined {
  const readers = catalog.flatMap((tool) => {
    if (
      !READ_VERBS.has(verbOf(tool)) ||
      /\bdeprecated\b/i.test(tool.description) ||
      !Object.values(resultFields(tool)).some(isText)
    )
      return [];
    const paths = pathParamSchemas(tool.parameters, tool.path_params).filter((p) => tool.required.includes(p.param));
    return paths.length === 1 && tool.required.length === 1
      ? [{ tool, param: paths[0]!.param, list: paths[0]!.list }]
      : [];
  });
  return readers.find((r) => r.list) ?? readers[0];
}

/** The goal's key words for a file name: content words, lower case, no number, none that names the tools themselves. */
function keyWords(tokens: readonly Token[], toolWords: ReadonlySet<string>): Token[] {
  const words = tokens.filter(
    (t) => isContentToken(t) && /^[\p{Ll}\p{N}-]+$/u.test(t.lower) && /\p{L}/u.test(t.lower) && !toolWords.has(t.stem),
  );
  const seen = new Set<string>();
  return words.filter((t) => !seen.has(t.lower) && Boolean(seen.add(t.lower))).slice(0, MAX_KEY_WORDS);
}

/** A word joined by a dash of which one part is a stop word is one word ("to-dos": todos), as a file would name it. */
function withCompounds(goal: string, tokens: readonly Token[]): Token[] {
  const out = [...tokens];
  for (const m of goal.matchAll(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu)) {
    const parts = tokenize(m[0]);
    if (parts.every(isContentToken)) continue;
    const at = tokenize(goal.slice(0, m.index)).length;
    const [joined] = tokenize(parts.map((t) => t.text).join(''));
    const i = out.findIndex((t) => t.pos === at);
    if (i >= 0 && joined) out.splice(i, parts.length, { ...joined, pos: at });
  }
  return out;
}

/**
 * The glob of a search by name for a question about content: every file with an extension (folders have none), in
 * any folder. A search by name finds what the question is about only where a file is named for it ("the travel
 * budget": budget-2026.md), not where the question asks for a fact a file holds ("Tobias Kern's phone number" is in
 * contacts.csv, "the shredder contract's due date" in todo.md): reading what every file says is the one search a
 * server that matches names only can do over contents.
 */
export const EVERY_FILE_GLOB = '**/*.*';

/** The search-then-read plan for a question about files' content, if the catalog can do it and the goal has key words. */
export function contentSearch(
  goal: string,
  tokens: readonly Token[],
  catalog: readonly ToolSpec[],
  now: string,
): ContentSearch | undefined {
  const today = now.slice(0, 10);
  if (resolveTemporalReferences(goal, now).some((r) => r.start === today && r.end === today)) return undefined;
  const searcher = searcherOf(catalog);
  const reader = readerOf(catalog);
  if (!searcher || !reader) return undefined;
  const toolWords = new Set([...toolTerms(searcher).names, ...toolTerms(reader.tool).names]);
  const keys = keyWords(withCompounds(goal, tokens), toolWords);
  if (keys.length === 0) return undefined;
  const words = keys.map((t) => t.lower);
  const [query, schema] = queryParam(searcher)!;
  const glob = describes(schema, /\bglob/i) || /\bglob/i.test(searcher.description);
  const value = glob ? EVERY_FILE_GLOB : words.join(' ');
  return {
    searcher,
    searchParams: { [query]: value },
    reader: reader.tool,
    readerParam: reader.param,
    readerPath: reader.list ? `data.${LISTED_PATHS}` : `data.${LISTED_PATHS}.*`,
    notes: [
      glob
        ? `no tool is named by the goal: ${searcher.name} lists every file (it matches names only, and the answer to "${words.join(' ')}" may be in a file named otherwise), and ${reader.tool.name} reads them`
        : `no tool is named by the goal: ${searcher.name} looks for files by its key words (${words.join(', ')}), and ${reader.tool.name} reads what it finds`,
    ],
  };
}
