/** The project's root directory, and the application's, for files kept beside the code (local state, downloaded binaries). */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The directory holding package.json above this file (works from src/ under tsx and from dist/src/ once built). */
export function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

/** Whether `p` (made absolute) has a `node_modules` folder among its segments: a reinstall may wipe it. */
export function insideNodeModules(p: string): boolean {
  return path.resolve(p).split(path.sep).includes('node_modules');
}

/**
 * The folder of the application that runs the planner, where its local state belongs: for a checkout of this
 * repository the checkout itself; for the package installed as a dependency (`<app>/node_modules/durable-planner`,
 * pnpm's `<app>/node_modules/.pnpm/…/node_modules/durable-planner` too) the folder holding the outermost
 * node_modules, when it has a package.json. Undefined for a global install (`npm install -g`) or anything else:
 * then the caller uses the OS's state folder. Never a folder inside node_modules.
 */
export function applicationRoot(root: string = projectRoot()): string | undefined {
  const absolute = path.resolve(root);
  if (!insideNodeModules(absolute)) return absolute;
  const segments = absolute.split(path.sep);
  const app = segments.slice(0, segments.indexOf('node_modules')).join(path.sep) || path.sep;
  return existsSync(path.join(app, 'package.json')) ? app : undefined;
}
