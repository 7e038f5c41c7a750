/**
 * Reading any plan version of a run, archived or not. A bounded run keeps only its latest few versions in its state
 * (`versions`); older ones are in the content store, by `ref` in `archived_versions`, and the oldest entries of that
 * list in pages (`archived_version_pages`, each a stored array of ArchivedVersion). Pure over a `get`, so the CLI,
 * a client or a test can read them from the store the workers share (DATABASE_URL, or PLANNER_STORE_DIR on one machine).
 */
import type { ArchivedVersion, PlanningState, PlanVersionRecord } from './state';

export interface ContentReader {
  get(ref: string): Promise<unknown>;
}

/** Plan version `n` of the run, in full; undefined when the run has no such version. */
export async function versionOf(
  state: PlanningState,
  n: number,
  store: ContentReader,
): Promise<PlanVersionRecord | undefined> {
  const inline = state.versions.find((v) => v.version === n);
  if (inline) return inline;
  let entry = state.archived_versions?.find((v) => v.version === n);
  const page = entry
    ? undefined
    : state.archived_version_pages?.find((p) => p.first_version <= n && n <= p.last_version);
  if (page) entry = ((await store.get(page.ref)) as ArchivedVersion[]).find((v) => v.version === n);
  return entry ? ((await store.get(entry.ref)) as PlanVersionRecord) : undefined;
}
