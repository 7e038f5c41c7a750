/** The date ranges a goal names, for prompts and results: the domain's resolver decides; a model's are not trusted over it. */
import { resolveTemporalReferences, type TemporalReference } from './dates';

/**
 * The resolver's ranges for the phrases of `goal`, then those of `extra` (e.g. from a model) whose phrase the
 * resolver does not know but that do occur in the goal ("over the summer"); invented phrases are dropped, and so are
 * phrases around or inside one the resolver knows ("in Q3 2026" when it resolved "q3 2026").
 */
export function temporalReferencesFor(
  goal: string,
  now: string,
  extra: readonly TemporalReference[] = [],
): TemporalReference[] {
  const resolved = resolveTemporalReferences(goal, now);
  const known = new Set(resolved.map((r) => r.phrase));
  const text = goal.toLowerCase();
  const kept = extra.filter((r) => {
    const phrase = r.phrase.trim().toLowerCase();
    if (phrase === '' || !text.includes(phrase)) return false;
    if ([...known].some((k) => phrase.includes(k) || k.includes(phrase))) return false;
    known.add(phrase);
    return true;
  });
  return [...resolved, ...kept];
}
