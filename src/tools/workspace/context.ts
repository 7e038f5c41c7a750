/**
 * Workspace context for coding goals: walks the workspace (include/exclude globs), ranks files by how well the goal's
 * words match their path and content, and packs the prompt text — a tree of the included paths, then whole files
 * in rank order while they fit, one trimmed file, and the rest omitted — so that the text never exceeds
 * `max_context_tokens` as counted by a real tokenizer (o200k_base). Every file gets a record saying why it is in or
 * out. Everything is deterministic: same files and goal, same text.
 *
 * Safety: the root must be an absolute, existing directory; include/exclude patterns that leave it ("../etc/**", an
 * absolute path elsewhere, "~/...") are rejected with InvalidInputError (PLAN-006); symlinks whose target lies
 * outside the (real) root are skipped, and symlinked directories are not followed at all (no cycles). Every folder
 * and file is opened once, checked where the opened descriptor leads, and read from it (roots.ts openInsideRoot),
 * so an entry swapped for a symlink between the walk and the read is skipped, never read through.
 */
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { InvalidInputError } from '../../domain/errors';
import { isInsideWorkspace, normalizePosixPath } from '../../domain/paths';
import { OpenedOutsideRootError } from '../errors';
import { compileGlob, type CompiledGlob } from './glob';
import { openInsideRoot, readDirInsideRoot } from './roots';
import { CODE_GOAL_STOP_WORDS, identifierWords, stem } from '../../domain/text';
import { countTokens, decodeTokens, encodeTokens, TOKENIZER, type TokenizerName } from './tokens';

export const DEFAULT_INCLUDE: readonly string[] = ['**/*'];

const LOCKFILES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'Gemfile.lock',
  'composer.lock',
  'go.sum',
];
const BINARY_EXTENSIONS = [
  'png',
  'jpg',
  'jpeg',
  'gif',
  'bmp',
  'ico',
  'webp',
  'pdf',
  'zip',
  'gz',
  'tgz',
  'bz2',
  'xz',
  '7z',
  'tar',
  'jar',
  'class',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  'mp3',
  'mp4',
  'mov',
  'avi',
  'wav',
  'ogg',
  'webm',
  'wasm',
  'exe',
  'dll',
  'so',
  'dylib',
  'o',
  'a',
  'bin',
  'pyc',
  'sqlite',
  'db',
  'node',
];

/** Dependency, VCS, build and planner folders, lockfiles and binaries. */
export const DEFAULT_EXCLUDE: readonly string[] = [
  ...['node_modules', '.git', 'dist', '.temporal', '.planner'].map((d) => `**/${d}/**`),
  ...LOCKFILES.map((f) => `**/${f}`),
  ...BINARY_EXTENSIONS.map((e) => `**/*.${e}`),
];

export const DEFAULT_MAX_FILE_BYTES = 256 * 1024;
export const DEFAULT_MAX_FILES = 5000;
const OUTSIDE = 'symlink points outside the workspace (skipped)';
/** A trimmed excerpt shorter than this is not worth its header: the file is omitted instead. */
const MIN_TRIM_TOKENS = 16;

export interface GatherWorkspaceContextOptions {
  /** Absolute path of the workspace. */
  root: string;
  goal: string;
  /** Workspace-relative globs (`**`, `*`, `?`); default everything. */
  include?: readonly string[];
  /** Workspace-relative globs; default DEFAULT_EXCLUDE. A matching directory is not descended into. */
  exclude?: readonly string[];
  max_context_tokens: number;
  /** Larger files are listed in the structure but never read (default 256 KiB). */
  max_file_bytes?: number;
  /** The walk stops after this many matching files (default 5000). */
  max_files?: number;
  signal?: AbortSignal;
  /** Called now and then during the walk (activity heartbeats). */
  heartbeat?: () => void;
}

export type FileInclusion = 'full' | 'trimmed' | 'omitted';

export interface ContextFile {
  /** Workspace-relative POSIX path. */
  path: string;
  /** Tokens of the whole file content (0 when it was not read). */
  tokens: number;
  included: FileInclusion;
  reason: string;
  /** Relevance to the goal (higher first). */
  score: number;
  /** Tokens this file's section (header + content) adds to `text`. */
  included_tokens: number;
}

export interface WorkspaceContext {
  /** Indented tree of the included paths (as it appears in `text`; may end with a "… N more paths" line). */
  structure: string;
  /** One record per matching file, in rank order (unreadable/skipped files last). */
  files: ContextFile[];
  /** The prompt text: structure, then file sections with headers. */
  text: string;
  /** Exact token count of `text`; never more than `budget`. */
  total_tokens: number;
  budget: number;
  tokenizer: TokenizerName;
  /** True when the walk stopped at `max_files`. */
  walk_truncated: boolean;
}

interface Candidate {
  path: string;
  /** Why it cannot be read (binary, too large, symlink outside...), or undefined when `content` is set. */
  skip?: string;
  /** False for symlinks that leave the workspace: they are not shown in the structure either. */
  inStructure: boolean;
  content?: string;
  tokens: number;
  score: number;
}

export async function gatherWorkspaceContext(options: GatherWorkspaceContextOptions): Promise<WorkspaceContext> {
  const budget = options.max_context_tokens;
  if (!Number.isInteger(budget) || budget < 1) {
    throw new InvalidInputError(
      `max_context_tokens must be a positive integer, got ${budget}`,
      'Pass the token budget for the context, e.g. 8000.',
    );
  }
  const maxFileBytes = options.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES;
  const maxFiles = options.max_files ?? DEFAULT_MAX_FILES;
  const root = await resolveRoot(options.root);
  const include = (options.include ?? DEFAULT_INCLUDE).map((p) => compileGlob(workspacePattern(p, root, 'include')));
  const exclude = (options.exclude ?? DEFAULT_EXCLUDE).map((p) => compileGlob(workspacePattern(p, root, 'exclude')));
  // "dir/**" also excludes "dir" itself, so the walk does not descend into it.
  const excludeDirs = exclude.flatMap((g) => (g.pattern.endsWith('/**') ? [compileGlob(g.pattern.slice(0, -3))] : [g]));

  const { candidates, truncated } = await walk(root, include, exclude, excludeDirs, maxFiles, options);
  const goalStems = goalWords(options.goal);
  for (const [i, c] of candidates.entries()) {
    if (i % 50 === 0) {
      options.signal?.throwIfAborted();
      options.heartbeat?.();
    }
    if (c.skip !== undefined) continue;
    let size: number;
    let bytes: Buffer | undefined;
    // Opened once and checked where it leads, then read from that descriptor: a file swapped for a symlink after the
    // walk saw it is skipped, never read through.
    const handle = await openInsideRoot(c.path, root.real, [root.real]).catch((err: Error) => {
      c.skip =
        err instanceof OpenedOutsideRootError
          ? OUTSIDE
          : `unreadable (${(err as NodeJS.ErrnoException).code ?? err.message})`;
      if (err instanceof OpenedOutsideRootError) c.inStructure = false;
    });
    if (!handle) continue;
    try {
      const stat = await handle.stat();
      size = stat.size;
      if (!stat.isFile()) throw new Error('not a regular file');
      if (size <= maxFileBytes) {
        const read = await handle.read(Buffer.alloc(size), 0, size, 0);
        bytes = read.buffer.subarray(0, read.bytesRead);
      }
    } catch (err) {
      c.skip = `unreadable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      continue;
    } finally {
      await handle.close();
    }
    if (bytes === undefined) {
      c.skip = `larger than max_file_bytes (${size} > ${maxFileBytes} bytes)`;
      c.score = pathScore(c.path, goalStems);
      continue;
    }
    if (bytes.subarray(0, 8000).includes(0)) {
      c.skip = 'binary file';
      c.score = pathScore(c.path, goalStems);
      continue;
    }
    c.content = bytes.toString('utf8');
    c.tokens = countTokens(c.content);
    c.score = round(pathScore(c.path, goalStems) + contentScore(c.content, goalStems));
  }

  // Structure first: at most half of the budget, so files always get the other half.
  const structurePaths = candidates.filter((c) => c.inStructure).map((c) => c.path);
  const structure = fitStructure(structurePaths, truncated, Math.floor(budget / 2));
  const sections: string[] = [];
  let used = 0;
  if (structure.section !== '') {
    sections.push(structure.section);
    used += structure.tokens;
  }

  const readable = candidates.filter((c) => c.content !== undefined).sort(byRank);
  const skipped = candidates.filter((c) => c.content === undefined).sort(byRank);
  const files: ContextFile[] = [];
  let trimmedOne = false;
  readable.forEach((c, index) => {
    const rank = `rank ${index + 1}, score ${c.score}`;
    const left = budget - used;
    const full = fileSection(c.path, c.content!);
    const fullTokens = countTokens(full) + 1; // + the "\n" that joins sections
    if (fullTokens <= left) {
      sections.push(full);
      used += fullTokens;
      files.push(record(c, 'full', `fits whole (${rank})`, fullTokens));
      return;
    }
    if (!trimmedOne) {
      const trimmed = trimSection(c.path, c.content!, c.tokens, left);
      if (trimmed !== undefined) {
        trimmedOne = true;
        sections.push(trimmed.section);
        used += trimmed.tokens;
        files.push(
          record(
            c,
            'trimmed',
            `did not fit whole (${fullTokens} tokens, ${left} left); kept the first ${trimmed.kept} of ${c.tokens} content tokens (${rank})`,
            trimmed.tokens,
          ),
        );
        return;
      }
    }
    files.push(record(c, 'omitted', `budget exhausted (needs ${fullTokens} tokens, ${left} left; ${rank})`, 0));
  });
  for (const c of skipped) files.push(record(c, 'omitted', c.skip ?? 'not read', 0));

  // Sections were counted one by one (+1 for each joining newline); BPE counts of a concatenation can differ
  // slightly from the sum, so check the exact count and drop the last file sections should it ever overshoot.
  let text = sections.join('\n');
  let total = countTokens(text);
  while (total > budget && sections.length > 0) {
    const dropped = sections.pop()!;
    const rec = [...files].reverse().find((f) => f.included !== 'omitted');
    if (rec !== undefined && dropped !== structure.section) {
      rec.included = 'omitted';
      rec.reason = `dropped: the exact token count of the joined text exceeded the budget`;
      rec.included_tokens = 0;
    }
    text = sections.join('\n');
    total = countTokens(text);
  }

  return {
    structure: sections[0] === structure.section ? structure.tree : '',
    files,
    text,
    total_tokens: total,
    budget,
    tokenizer: TOKENIZER,
    walk_truncated: truncated,
  };
}

function record(c: Candidate, included: FileInclusion, reason: string, includedTokens: number): ContextFile {
  return { path: c.path, tokens: c.tokens, included, reason, score: c.score, included_tokens: includedTokens };
}

function byRank(a: Candidate, b: Candidate): number {
  return b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

// ---------------------------------------------------------------------------------------------------------------
// Paths

interface Root {
  /** As given (normalized). */
  given: string;
  /** With symlinks resolved: what the walk reads and what symlink targets are checked against. */
  real: string;
}

async function resolveRoot(root: string): Promise<Root> {
  if (typeof root !== 'string' || !nodePath.isAbsolute(root)) {
    throw new InvalidInputError(
      `workspace root must be an absolute path, got "${String(root)}"`,
      'Set constraints.workspace_root (or the pack root) to an absolute folder path.',
      { root },
    );
  }
  let real: string;
  try {
    real = await fs.realpath(root);
    if (!(await fs.stat(real)).isDirectory()) throw new Error('not a directory');
  } catch (err) {
    throw new InvalidInputError(
      `workspace root "${root}" is not an existing directory`,
      'Point the workspace root at an existing folder.',
      {
        root,
        error: (err as Error).message,
      },
    );
  }
  return { given: normalizePosixPath(root), real };
}

/** A glob made workspace-relative; patterns that point outside the workspace are rejected (PLAN-006). */
function workspacePattern(pattern: string, root: Root, kind: 'include' | 'exclude'): string {
  const hint = `${kind} globs are relative to the workspace root (e.g. "src/**/*.ts"); they cannot use ".." or absolute paths outside it.`;
  const reject = (why: string) => {
    throw new InvalidInputError(`${kind} pattern "${pattern}" ${why}`, hint, { pattern, root: root.given });
  };
  if (typeof pattern !== 'string' || pattern.trim() === '') reject('is empty');
  if (pattern.includes('\0') || pattern.startsWith('~')) reject('points outside the workspace');
  if (pattern.startsWith('/')) {
    const base = [root.given, root.real].find((r) => isInsideWorkspace(pattern, r));
    if (base === undefined) reject('is an absolute path outside the workspace');
    const rel = normalizePosixPath(pattern).slice(normalizePosixPath(base!).length).replace(/^\/+/, '');
    return rel === '' ? '**' : rel;
  }
  const rel = normalizePosixPath(pattern);
  if (rel === '..' || rel.startsWith('../')) reject('points outside the workspace');
  return rel === '.' ? '**' : rel;
}

async function walk(
  root: Root,
  include: readonly CompiledGlob[],
  exclude: readonly CompiledGlob[],
  excludeDirs: readonly CompiledGlob[],
  maxFiles: number,
  options: Pick<GatherWorkspaceContextOptions, 'signal' | 'heartbeat'>,
): Promise<{ candidates: Candidate[]; truncated: boolean }> {
  const candidates: Candidate[] = [];
  let truncated = false;
  const wanted = (rel: string) => include.some((g) => g.matches(rel)) && !exclude.some((g) => g.matches(rel));
  const add = (c: Omit<Candidate, 'tokens' | 'score'>) => {
    if (candidates.length >= maxFiles) truncated = true;
    else candidates.push({ ...c, tokens: 0, score: 0 });
  };

  const visit = async (relDir: string): Promise<void> => {
    options.signal?.throwIfAborted();
    options.heartbeat?.();
    // A folder swapped for a symlink that leads out of the root since its parent was listed is left out.
    const entries = await readDirInsideRoot(relDir === '' ? '.' : relDir, root.real, [root.real]).catch(
      (err: Error) => {
        if (err instanceof OpenedOutsideRootError) return [];
        throw err;
      },
    );
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (truncated) return;
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      if (entry.isDirectory()) {
        // A directory that an exclude glob matches (itself, or as "dir/**") is not descended into.
        if (!excludeDirs.some((g) => g.matches(rel))) await visit(rel);
      } else if (entry.isFile()) {
        if (wanted(rel)) add({ path: rel, inStructure: true });
      } else if (entry.isSymbolicLink()) {
        if (!wanted(rel)) continue;
        let target: string;
        try {
          target = await fs.realpath(nodePath.join(root.real, rel));
        } catch {
          add({ path: rel, inStructure: false, skip: 'broken symlink' });
          continue;
        }
        if (!isInsideWorkspace(target, root.real)) {
          add({ path: rel, inStructure: false, skip: OUTSIDE });
          continue;
        }
        const stat = await fs.stat(target);
        // Symlinked directories are not followed (they could loop); their real path is walked if included.
        if (stat.isFile()) add({ path: rel, inStructure: true });
      }
    }
  };
  await visit('');
  return { candidates, truncated };
}

// ---------------------------------------------------------------------------------------------------------------
// Relevance

function goalWords(goal: string): string[] {
  return [
    ...new Set(
      identifierWords(goal)
        .filter((w) => !CODE_GOAL_STOP_WORDS.has(w) && w.length > 1)
        .map(stem),
    ),
  ];
}

/** Same stem, or (for stems of 5+ letters) one a prefix of the other. */
function stemsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  return a.length >= 5 && b.length >= 5 && (a.startsWith(b) || b.startsWith(a));
}

/** Goal words in the file name weigh 6, in a folder name 3 (each goal word counted once). */
function pathScore(path: string, goal: readonly string[]): number {
  const segments = path.split('/');
  const base = segments.pop()!.replace(/\.[^.]+$/, '');
  const baseStems = identifierWords(base).map(stem);
  const dirStems = segments.flatMap(identifierWords).map(stem);
  let score = 0;
  for (const g of goal) {
    if (baseStems.some((s) => stemsMatch(g, s))) score += 6;
    else if (dirStems.some((s) => stemsMatch(g, s))) score += 3;
  }
  return score;
}

/** Each goal word present in the content: 1, plus up to 1 more with its frequency (saturating at 20). */
function contentScore(content: string, goal: readonly string[]): number {
  if (goal.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const w of identifierWords(content)) {
    const s = stem(w);
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  let score = 0;
  for (const g of goal) {
    let n = 0;
    for (const [s, count] of counts) if (stemsMatch(g, s)) n += count;
    if (n > 0) score += 1 + Math.min(n, 20) / 20;
  }
  return score;
}

// ---------------------------------------------------------------------------------------------------------------
// Packing

function fileHeader(path: string, note = ''): string {
  return `=== ${path}${note} ===\n`;
}

function withNewline(s: string): string {
  return s === '' || s.endsWith('\n') ? s : `${s}\n`;
}

function fileSection(path: string, content: string): string {
  return fileHeader(path) + withNewline(content);
}

/**
 * The head of a file that, with its header and a "… trimmed N tokens" marker, fits in `left` tokens (including
 * the joining newline); undefined when less than MIN_TRIM_TOKENS of content would fit.
 */
function trimSection(
  path: string,
  content: string,
  contentTokens: number,
  left: number,
): { section: string; tokens: number; kept: number } | undefined {
  const header = fileHeader(path, ' (trimmed)');
  const overhead = countTokens(header) + countTokens(`… trimmed ${contentTokens} tokens\n`) + 2;
  let keep = left - overhead;
  const encoded = encodeTokens(content);
  for (let attempt = 0; attempt < 8 && keep >= MIN_TRIM_TOKENS; attempt++) {
    let head = decodeTokens(encoded.slice(0, keep)).replace(/\uFFFD+$/, '');
    const cut = head.lastIndexOf('\n');
    if (cut >= head.length / 2) head = head.slice(0, cut + 1);
    head = withNewline(head);
    const kept = countTokens(head);
    const section = `${header}${head}… trimmed ${Math.max(0, contentTokens - kept)} tokens\n`;
    const tokens = countTokens(section) + 1;
    if (tokens <= left) return { section, tokens, kept };
    keep -= tokens - left + 1;
  }
  return undefined;
}

interface TreeNode {
  dirs: Map<string, TreeNode>;
  files: string[];
}

/** An indented tree: folders (with a trailing "/") before files, each sorted, two spaces per level. */
export function renderTree(paths: readonly string[]): string[] {
  const rootNode: TreeNode = { dirs: new Map(), files: [] };
  for (const p of paths) {
    const parts = p.split('/');
    const file = parts.pop()!;
    let node = rootNode;
    for (const part of parts) {
      let next = node.dirs.get(part);
      if (next === undefined) node.dirs.set(part, (next = { dirs: new Map(), files: [] }));
      node = next;
    }
    node.files.push(file);
  }
  const lines: string[] = [];
  const render = (node: TreeNode, depth: number) => {
    const indent = '  '.repeat(depth);
    for (const name of [...node.dirs.keys()].sort()) {
      lines.push(`${indent}${name}/`);
      render(node.dirs.get(name)!, depth + 1);
    }
    for (const name of [...node.files].sort()) lines.push(`${indent}${name}`);
  };
  render(rootNode, 0);
  return lines;
}

/** The structure section within `limit` tokens: the whole tree, or its first lines and "… N more paths". */
function fitStructure(
  paths: readonly string[],
  walkTruncated: boolean,
  limit: number,
): { tree: string; section: string; tokens: number } {
  const lines = renderTree(paths);
  const header = `=== workspace structure (${paths.length}${walkTruncated ? '+' : ''} files) ===\n`;
  const build = (n: number) => {
    const shown = lines.slice(0, n);
    if (n < lines.length) shown.push(`… ${lines.length - n} more lines`);
    else if (walkTruncated) shown.push('… (walk stopped at max_files)');
    const tree = shown.join('\n');
    const section = `${header}${withNewline(tree)}`;
    return { tree, section, tokens: countTokens(section) + 1 };
  };
  const whole = build(lines.length);
  if (whole.tokens <= limit) return whole;
  // Largest n whose section fits (binary search; the count grows with n).
  let lo = 0;
  let hi = lines.length - 1;
  let best: { tree: string; section: string; tokens: number } | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = build(mid);
    if (candidate.tokens <= limit) {
      best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best ?? { tree: '', section: '', tokens: 0 };
}
