/**
 * Real-path checks on the worker (Node fs; never in workflow code): which workspace roots a run may use, where a
 * path param really leads, and the one way the planner opens a file or folder inside a root (`openInsideRoot`,
 * `readDirInsideRoot`). src/domain/paths.ts holds the lexical checks that run first, in plan validation; these
 * follow symlinks, so a link inside the workspace that points at /etc, or "link/.." climbing out through one, is
 * caught before a tool touches the file.
 *
 * A check of a path followed by a read of the same path can be raced (the file swapped for a symlink in between),
 * so openInsideRoot checks what it opened, not the path: the descriptor's own path (Linux: /proc/self/fd/N), or
 * elsewhere the descriptor's device and inode against the entry the path resolves to inside the root.
 */
import { constants, promises as fs, type Dirent } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { isInsideWorkspace } from '../../domain/paths';
import { OpenedOutsideRootError, WorkspaceRootNotAllowedError } from '../errors';

/** Symlinks followed in one path before it counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Where `value` (absolute, or relative to `base`, which must be a real path) really leads: each component is taken
 * in order as the OS would, symlinks followed (so "link/.." is the parent of the link's target, not `base`).
 * Components that do not exist yet are appended as written; a symlink to a missing target is followed all the
 * same, so a tool that creates the file cannot write through it. Throws when links loop.
 */
export async function realPathOf(value: string, base: string): Promise<string> {
  const pending = value.split('/').reverse();
  let current = value.startsWith('/') ? '/' : base;
  let links = 0;
  let missing = 0; // components of `current` that do not exist (the rest of the path is resolved lexically)
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = nodePath.posix.dirname(current);
      if (missing > 0) missing--;
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    if (missing > 0) {
      current = next;
      missing++;
      continue;
    }
    let isLink: boolean;
    try {
      isLink = (await fs.lstat(next)).isSymbolicLink();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      current = next;
      missing = 1;
      continue;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new Error(`too many symlinks resolving ${value}`);
    const target = await fs.readlink(next);
    if (target.startsWith('/')) current = '/';
    pending.push(...target.split('/').reverse());
  }
  return current;
}

/** The real path of `root`, or undefined when it does not exist. */
async function realRoot(root: string): Promise<string | undefined> {
  try {
    return await fs.realpath(root);
  } catch {
    return undefined;
  }
}

/**
 * The real path of the run's workspace root `root`, when it lies inside one of the `allowed` roots (each resolved
 * with realpath too); otherwise a WorkspaceRootNotAllowedError (PLAN-006, never retried) that names
 * PLANNER_WORKSPACE_ROOTS. A root that does not exist is refused the same way (its real path is unknown).
 */
export async function allowedWorkspaceRoot(root: string, allowed: readonly string[]): Promise<string> {
  const real = nodePath.isAbsolute(root) && !root.includes('\0') ? await realRoot(root) : undefined;
  if (real !== undefined) {
    for (const candidate of allowed) {
      const base = await realRoot(candidate);
      if (base !== undefined && isInsideWorkspace(real, base)) return real;
    }
  }
  throw new WorkspaceRootNotAllowedError(root, real, allowed);
}

/** Where the kernel says an open descriptor leads (Linux), or undefined where /proc/self/fd is not there. */
async function openedPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return (await fs.readlink(`/proc/self/fd/${handle.fd}`)).replace(/ \(deleted\)$/, '');
  } catch {
    return undefined;
  }
}

/**
 * Opens `value` and checks what was opened: the descriptor and a path that names it from now on (Linux: its
 * /proc/self/fd entry, which cannot be swapped; elsewhere its real path, checked by device and inode).
 */
async function openChecked(
  value: string,
  base: string,
  roots: readonly string[],
  flags: number,
): Promise<{ handle: FileHandle; at: string }> {
  const inside = (real: string) => roots.some((root) => isInsideWorkspace(real, root));
  const handle = await fs.open(value.startsWith('/') ? value : nodePath.join(base, value), flags);
  try {
    const opened = await openedPath(handle);
    if (opened !== undefined) {
      if (!inside(opened)) throw new OpenedOutsideRootError(value, opened);
      return { handle, at: `/proc/self/fd/${handle.fd}` };
    }
    // No /proc: the descriptor must be the very entry its path resolves to inside a root (same device and inode).
    const real = await realPathOf(value, base);
    const [mine, there] = await Promise.all([handle.stat(), fs.lstat(real).catch(() => undefined)]);
    if (!inside(real) || there === undefined || there.dev !== mine.dev || there.ino !== mine.ino)
      throw new OpenedOutsideRootError(value, real);
    return { handle, at: real };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Opens the file `value` (absolute, or relative to `base`; `base` and `roots` are real paths) for reading, and keeps
 * the descriptor only when what was opened lies inside one of `roots`; otherwise it is closed and
 * OpenedOutsideRootError (PLAN-008, never retried) is thrown, however the path was swapped between an earlier check
 * and this open. Read from the returned handle, never from the path again. Never blocks on a FIFO.
 */
export async function openInsideRoot(value: string, base: string, roots: readonly string[]): Promise<FileHandle> {
  return (await openChecked(value, base, roots, constants.O_RDONLY | constants.O_NONBLOCK)).handle;
}

/** The entries of the folder `value` (as openInsideRoot takes it), listed from the opened descriptor where the OS allows. */
export async function readDirInsideRoot(value: string, base: string, roots: readonly string[]): Promise<Dirent[]> {
  const { handle, at } = await openChecked(value, base, roots, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    return await fs.readdir(at, { withFileTypes: true });
  } finally {
    await handle.close();
  }
}
