/**
 * A goal that asks only which files a folder holds ("List the files in the notes folder, including the ones in
 * subfolders", "What's in the reports directory?"), over a catalog with a tool that lists a folder: that tool on that
 * folder, rather than a search for files named like the goal's words. Read from the tools' names, descriptions and
 * schemas, so it holds for any file server:
 *   - a lister: not deprecated, known by a word of listing ("list", "listing", "tree"), one of folders ("directory",
 *     "folder") and one of files, whose one required param is a single path;
 *   - asked for the subfolders too ("including subfolders", "recursively", "the whole tree"), the lister that says it
 *     recurses (a tree); otherwise one that does not, with the fewest params.
 * The folder is the word before "folder" or "directory": the first example of the path param when it is that
 * example's own last name ("the notes folder" of /srv/notes), else a folder of that name inside it.
 */
import type { JsonSchema } from '../domain/json-schema';
import { pathParamSchemas } from '../domain/paths';
import type { ToolSpec } from '../domain/tool-spec';
import { contentTokens, stem, tokenize, type Token } from '../domain/text';
import { toolTerms } from './catalog-match';

const stems = (words: string) => new Set(words.split(' ').map(stem));
const FOLDER_WORDS = stems('folder folders directory directories dir');
const SUBFOLDER_WORDS = stems('subfolder subfolders subdirectory subdirectories recursive recursively nested tree');
const FILE_WORDS = stems('file files');
/** A listing, as a tool's name or description says it ("list" is a stop word: no stem of a tool's vocabulary). */
const LISTING = /\b(list|lists|listing|tree)\b/i;
/** Words that ask for a folder's listing and say nothing of what the files hold. */
const LISTING_REQUEST_WORDS = new Set([
  ...FOLDER_WORDS,
  ...SUBFOLDER_WORDS,
  ...FILE_WORDS,
  ...stems('list show see display everything inside within including included include ones one too well level levels'),
  ...stems('whole entire content contents'),
]);

export interface FolderListing {
  lister: ToolSpec;
  /** The lister's path param, and the folder inside its first example when the goal names another one. */
  params: Record<string, unknown>;
  notes: string[];
}

/** The path param of a tool whose only required param is a single path. */
function onlyPathParam(tool: ToolSpec): { param: string; path: JsonSchema } | undefined {
  const paths = pathParamSchemas(tool.parameters, tool.path_params).filter(
    (p) => !p.list && tool.required.includes(p.param),
  );
  return paths.length === 1 && tool.required.length === 1 ? paths[0] : undefined;
}

/** Whether `tool` lists a folder: see the module's comment. */
export function isLister(tool: ToolSpec): boolean {
  if (/\bdeprecated\b/i.test(tool.description) || !onlyPathParam(tool)) return false;
  const { vocabulary } = toolTerms(tool);
  const has = (words: ReadonlySet<string>) => [...words].some((w) => vocabulary.has(w));
  return LISTING.test(`${tool.name.replace(/_/g, ' ')} ${tool.description}`) && has(FOLDER_WORDS) && has(FILE_WORDS);
}

const recurses = (tool: ToolSpec) =>
  /\brecursive|\btree\b/i.test(`${tool.name.replace(/_/g, ' ')} ${tool.description}`);

/** Whether every content word of `text` only asks for a folder's listing (`names`: the folders it names). */
export function asksOnlyForListing(text: string, names: ReadonlySet<string> = new Set()): boolean {
  const words = contentTokens(tokenize(text));
  return words.length > 0 && words.every((w) => LISTING_REQUEST_WORDS.has(w.stem) || names.has(w.lower));
}

/** The word naming the folder: the one before "folder"/"directory", if it is a plain lower-case name. */
function folderName(tokens: readonly Token[]): string | undefined {
  const at = tokens.findIndex((t) => FOLDER_WORDS.has(t.stem));
  const before = at > 0 ? tokens[at - 1] : undefined;
  return before && contentTokens([before]).length > 0 && /^[\p{Ll}\p{N}_.-]+$/u.test(before.text)
    ? before.text
    : undefined;
}

/** The listing step for a goal that asks only which files a folder holds, if the catalog can list one. */
export function folderListing(goal: string, catalog: readonly ToolSpec[]): FolderListing | undefined {
  const tokens = tokenize(goal);
  if (!tokens.some((t) => FOLDER_WORDS.has(t.stem) || SUBFOLDER_WORDS.has(t.stem))) return undefined;
  const name = folderName(tokens);
  if (!asksOnlyForListing(goal, new Set(name ? [name] : []))) return undefined;
  const recursive = tokens.some((t) => SUBFOLDER_WORDS.has(t.stem));
  const listers = catalog.filter(isLister).filter((t) => recurses(t) === recursive);
  const fewestParams = (t: ToolSpec) => Object.keys(t.parameters.properties ?? {}).length;
  const lister = listers.sort((a, b) => fewestParams(a) - fewestParams(b) || a.name.localeCompare(b.name))[0];
  if (!lister) return undefined;
  const { param, path } = onlyPathParam(lister)!;
  const example = Array.isArray(path.examples) && typeof path.examples[0] === 'string' ? path.examples[0] : undefined;
  const root = example?.replace(/\/+$/, '');
  const inside =
    name !== undefined && root !== undefined && root.split('/').at(-1)?.toLowerCase() !== name.toLowerCase();
  return {
    lister,
    params: inside ? { [param]: `${root}/${name}` } : {},
    notes: [
      `the goal asks which files a folder holds${recursive ? ', subfolders included' : ''}: ${lister.name} lists ${inside ? `${name} inside ${root}` : 'it'}`,
    ],
  };
}
