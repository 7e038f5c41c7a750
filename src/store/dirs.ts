/** Where the planner keeps local state: `<project>/.planner/` (git-ignored), overridable by environment variables. */
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

/** `<project>/.planner`: local state of the demo (content store, idempotency ledger, database caches). */
export function plannerHome(): string {
  return path.join(projectRoot(), '.planner');
}

/** The content store directory: PLANNER_STORE_DIR, or `<project>/.planner/store`. Workers and the CLI must agree on it. */
export function defaultStoreDir(): string {
  return process.env.PLANNER_STORE_DIR || path.join(plannerHome(), 'store');
}
