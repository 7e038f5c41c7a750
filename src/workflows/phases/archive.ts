/**
 * Bounded state: after each new plan version, versions beyond the latest KEEP_VERSIONS go to the content store
 * through the `archive` activity (the state keeps `{version, reason, ref, created_at, summary}`), and once
 * ARCHIVE_PAGE * 2 such entries pile up, the oldest ARCHIVE_PAGE of them go to the store as one page. Every
 * version stays readable by reference (`versionOf`, src/api/versions.ts) and the state's size stays bounded however
 * many versions a run makes.
 */
import type { PlanVersionRecord } from '../../api/state';
import { flattenSteps } from '../../domain/plan';
import { planningActivities } from '../activities';
import type { PlanningRun } from '../run';

export const KEEP_VERSIONS = 3;
export const ARCHIVE_PAGE = 100;

export function versionSummary(v: PlanVersionRecord): string {
  return `${v.plan.status}, ${flattenSteps(v.plan).length} step(s)`;
}

export async function archiveOldVersions(run: PlanningRun): Promise<void> {
  const { state } = run;
  while (state.versions.length > KEEP_VERSIONS) {
    const old = state.versions[0]!;
    const { ref } = await planningActivities(`archive plan v${old.version}`, true).archive({ value: old });
    run.archive({
      version: old.version,
      reason: old.reason,
      ref,
      created_at: old.created_at,
      summary: versionSummary(old),
    });
  }
  const archived = state.archived_versions ?? [];
  if (archived.length >= ARCHIVE_PAGE * 2) {
    const page = archived.slice(0, ARCHIVE_PAGE);
    const { ref } = await planningActivities(
      `archive versions v${page[0]!.version}–v${page.at(-1)!.version}`,
      true,
    ).archive({ value: page });
    run.archive({ first_version: page[0]!.version, last_version: page.at(-1)!.version, ref });
  }
}
