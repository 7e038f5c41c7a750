/**
 * Plan versions and what changed between them. Steps are matched by id. Dependencies and `${step[N]...}` templates
 * are compared by the ids they point to, not by index, so inserting a step does not mark every later step changed.
 */
import { canonicalJson } from './canonical-json';
import { InvalidInputError } from './errors';
import { flattenSteps, type Plan, type Step } from './plan';
import { deepFreeze } from './walk';

export const PLAN_VERSION_REASONS = [
  'initial',
  'refinement',
  'human_rejection',
  'replan_after_failure',
  'clarification',
  /** A person changed the plan awaiting approval (editPlan). */
  'human_edit',
  /** A person asked to run a step and its downstream cone again (rerunFrom). */
  'rerun',
] as const;
export type PlanVersionReason = (typeof PLAN_VERSION_REASONS)[number];

export interface StepChange {
  id: string;
  /** Step fields that differ; "task" when the step moved to another task. */
  fields: string[];
}

export interface PlanDiff {
  added: string[];
  removed: string[];
  changed: StepChange[];
  summary: string;
}

export interface PlanVersion {
  readonly version: number;
  readonly plan: Plan;
  readonly parent_version: number | null;
  readonly reason: PlanVersionReason;
  readonly diff: PlanDiff | null;
}

const COMPARED_FIELDS = [
  'title',
  'description',
  'action',
  'tool',
  'params',
  'depends_on',
  'parallel',
  'expected_output',
  'verification',
] as const;

interface Located {
  step: Step;
  task: string;
  canonical: Record<(typeof COMPARED_FIELDS)[number], string>;
}

function locate(plan: Plan): Map<string, Located> {
  const ids = flattenSteps(plan).map((s) => s.id);
  const idOf = (n: number) => ids[n] ?? `#${n}`;
  const out = new Map<string, Located>();
  for (const task of plan.tasks) {
    for (const step of task.steps) {
      const canonical = {} as Located['canonical'];
      for (const field of COMPARED_FIELDS) canonical[field] = canonicalJson(step[field]);
      canonical.depends_on = canonicalJson(step.depends_on.map(idOf).sort());
      canonical.params = canonical.params.replace(
        /\$\{step\[(\d+)\]/g,
        (_m, n: string) => `\${step[id:${idOf(Number(n))}]`,
      );
      out.set(step.id, { step, task: task.id, canonical });
    }
  }
  return out;
}

function list(ids: readonly string[]): string {
  return ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')}, …`;
}

export function diffPlans(a: Plan, b: Plan): PlanDiff {
  const before = locate(a);
  const after = locate(b);
  const added = [...after.keys()].filter((id) => !before.has(id));
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const changed: StepChange[] = [];
  for (const [id, now] of after) {
    const was = before.get(id);
    if (!was) continue;
    const fields: string[] = COMPARED_FIELDS.filter((f) => was.canonical[f] !== now.canonical[f]);
    if (was.task !== now.task) fields.push('task');
    if (fields.length > 0) changed.push({ id, fields });
  }
  const parts = [
    added.length ? `${added.length} added (${list(added)})` : '',
    removed.length ? `${removed.length} removed (${list(removed)})` : '',
    changed.length
      ? `${changed.length} changed (${changed
          .slice(0, 5)
          .map((c) => `${c.id}: ${c.fields.join('+')}`)
          .join('; ')}${changed.length > 5 ? '; …' : ''})`
      : '',
  ].filter(Boolean);
  const summary = `v${a.version} → v${b.version}: ${parts.length ? parts.join(', ') : 'no step changes'}`;
  return { added, removed, changed, summary };
}

/**
 * An immutable version record (a frozen copy of `plan`). The first version has no parent and reason "initial";
 * every later one has version = parent version + 1 and carries its diff against the parent.
 */
export function createPlanVersion(plan: Plan, parent: PlanVersion | null, reason: PlanVersionReason): PlanVersion {
  const expected = parent === null ? 1 : parent.version + 1;
  if (plan.version !== expected || (parent === null) !== (reason === 'initial')) {
    throw new InvalidInputError(
      `plan version ${plan.version} with reason "${reason}" cannot follow ${parent === null ? 'no parent' : `version ${parent.version}`}`,
      'Number versions 1, 2, 3...; only version 1 is "initial" and has no parent.',
      { version: plan.version, parent_version: parent?.version ?? null, reason },
    );
  }
  return deepFreeze({
    version: plan.version,
    plan: JSON.parse(JSON.stringify(plan)) as Plan,
    parent_version: parent?.version ?? null,
    reason,
    diff: parent === null ? null : diffPlans(parent.plan, plan),
  });
}
