/** Where the planner keeps local state: `<project>/.planner/` (git-ignored), overridable by environment variables. */
import * as path from 'node:path';
import { projectRoot } from '../project-root';

/** `<project>/.planner`: local state of the demo (content store, idempotency ledger, database caches). */
export function plannerHome(): string {
  return path.join(projectRoot(), '.planner');
}

/** The content store directory: PLANNER_STORE_DIR, or `<project>/.planner/store`. Workers and the CLI must agree on it. */
export function defaultStoreDir(): string {
  return process.env.PLANNER_STORE_DIR || path.join(plannerHome(), 'store');
}
