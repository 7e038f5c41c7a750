/**
 * Real-path checks on the worker (Node fs; never in workflow code): which workspace roots a run may use, and where a
 * path param really leads. src/domain/paths.ts holds the lexical checks that run first, in plan validation; these
 * follow symlinks, so a link inside the workspace that points at /etc, or "link/.." climbing out through one, is
 * caught before a tool touches the file.
 */
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { isInsideWorkspace } from '../../domain/paths';
import { WorkspaceRootNotAllowedError } from '../errors';

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
