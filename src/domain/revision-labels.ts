/**
 * The parts of the goal a revision serves, carried over from the plan it revises (the ranking planner's draft, or the
 * previous version in a refinement). A model that rewrites a plan of several tasks (./plan-draft) tends to leave out
 * the steps' `task` labels, and asking for them would cost output tokens on every step; without them the revision
 * would be one task. The system labels each step instead, from the revised plan's steps (`draftOf` writes a label per
 * step when a plan has several tasks):
 *
 * 1. its counterpart: the draft step calling the same tool (or of the same kind) whose params agree most — equal
 *    values first, then shared names, then a draft step no earlier step took — if they share a param name or both
 *    have none. The step takes its counterpart's label.
 * 2. else the label of a step it reads (depends_on or a template); of several, the one whose task comes last in the
 *    draft, so that the tasks it reads from stay before it.
 * 3. else the label of a step that reads it (a lookup the model added for one part belongs to that part); of several,
 *    the one whose task comes first.
 * 4. else the draft's first task.
 *
 * A revision that labels any step is the model's own grouping and is left as written; so is a revision of a draft of
 * one task.
 */
import { canonicalJson } from './canonical-json';
import type { PlanDraft } from './plan-draft';
import { referencedSteps } from './templates';

type DraftStep = PlanDraft['steps'][number];

const kindOf = (step: DraftStep) => step.tool ?? step.action;

/** How far two calls of one tool agree: [params with equal values, param names both set]; undefined: no overlap. */
function agreement(step: DraftStep, other: DraftStep): [number, number] | undefined {
  if (kindOf(step) !== kindOf(other)) return undefined;
  const names = Object.keys(step.params).filter((p) => p in other.params);
  const bothEmpty = Object.keys(step.params).length === 0 && Object.keys(other.params).length === 0;
  if (names.length === 0 && !bothEmpty) return undefined;
  const equal = names.filter((p) => canonicalJson(step.params[p]) === canonicalJson(other.params[p])).length;
  return [equal, names.length];
}

/** Whether score `a` beats score `b`: compared number by number, the first that differs decides, higher wins. */
const outranks = (a: readonly number[], b: readonly number[]) => {
  const k = a.findIndex((v, j) => v !== b[j]);
  return k >= 0 && a[k]! > b[k]!;
};

/** The index of `step`'s counterpart among the draft's steps, or undefined (rule 1). */
function counterpart(step: DraftStep, draft: readonly DraftStep[], taken: ReadonlySet<number>): number | undefined {
  let best: { at: number; score: number[] } | undefined;
  draft.forEach((candidate, at) => {
    const agreed = agreement(step, candidate);
    const score = agreed && [...agreed, taken.has(at) ? 0 : 1];
    if (score && (!best || outranks(score, best.score))) best = { at, score };
  });
  return best?.at;
}

/** `revision` with each step labelled by the part of `reviewed` it continues, when the model wrote no label. */
export function withLabelsOfDraft(revision: PlanDraft, reviewed: PlanDraft): PlanDraft {
  const labels = [...new Set(reviewed.steps.flatMap((s) => (s.task === undefined ? [] : [s.task])))];
  if (labels.length < 2 || revision.steps.some((s) => s.task !== undefined)) return revision;
  const rank = (label: string) => labels.indexOf(label);

  const taken = new Set<number>();
  const assigned: (string | undefined)[] = revision.steps.map((step) => {
    const at = counterpart(step, reviewed.steps, taken);
    if (at === undefined) return undefined;
    taken.add(at);
    return reviewed.steps[at]!.task;
  });
  const reads = revision.steps.map((s, i) =>
    [...new Set([...s.depends_on, ...referencedSteps(s.params)])].filter((d) => d !== i && d < revision.steps.length),
  );
  const readers = revision.steps.map((_, i) => reads.flatMap((r, j) => (r.includes(i) ? [j] : [])));
  /** The label among those of `steps` that comes first by `order` of the draft's tasks. */
  const pick = (steps: readonly number[], order: (a: number, b: number) => number) =>
    steps.flatMap((j) => (assigned[j] === undefined ? [] : [assigned[j]])).sort((a, b) => order(rank(a), rank(b)))[0];
  const fromReads = (i: number) => pick(reads[i]!, (a, b) => b - a); // rule 2
  const fromReaders = (i: number) => pick(readers[i]!, (a, b) => a - b); // rule 3
  /** Labels the steps still without one that `rule` labels; whether it labelled any. */
  const fill = (rule: (i: number) => string | undefined) => {
    let any = false;
    assigned.forEach((label, i) => {
      const found = label === undefined ? rule(i) : undefined;
      if (found === undefined) return;
      assigned[i] = found;
      any = true;
    });
    return any;
  };
  // A label reached through what a step reads goes before one through its readers; each may open the way to more.
  while (fill(fromReads) || fill(fromReaders));
  return { ...revision, steps: revision.steps.map((s, i) => ({ ...s, task: assigned[i] ?? labels[0] })) };
}
