/**
 * Grounding for the pre-mortem's critiques. A small model invents failures (it calls the resolved dates wrong, or
 * a param the step does not pass missing) and copies the prompt's example. The gatekeeper refines on every error
 * and rejects the plan once the rounds are spent (PLAN-011), so one invented error can sink a sound plan. An
 * "error" therefore stands only when it points at this plan: a step the plan has, and a value or template that the
 * step really passes, quoted in the message or the suggestion. Any other error stays as a warning: audited, never
 * blocking. A value the user gave (words of the goal) or the system resolved (the goal's periods) is right by
 * definition and grounds nothing. The plan was validated against the tools' schemas before any critic saw it, so
 * an error claiming that a tool does not support a param or value the step passes ("inspections does not support
 * the 'status' parameter with the value 'pending'", an enum member) is refuted whatever it quotes. A copy of the
 * prompt's example says nothing about the plan and is dropped.
 */
import type { Critique } from '../../domain/critique';
import { resolveTemporalReferences } from '../../domain/dates';
import { flattenSteps, type Plan } from '../../domain/plan';
import { effectiveGoal, type PlanningRequest } from '../../domain/request';
import { forEachString } from '../../domain/walk';

/** Shorter strings ("a", "id", "10") turn up in any sentence, so quoting one proves nothing. */
const MIN_QUOTED_LENGTH = 3;

/** The string values a step passes (its params, templates included), each one a thing an error may quote. */
function quotableValues(params: unknown): string[] {
  const values: string[] = [];
  forEachString(params, (text) => {
    if (text.trim().length >= MIN_QUOTED_LENGTH) values.push(text.trim().toLowerCase());
  });
  return values;
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Values that are right by definition: words of the goal, and the bounds of the periods resolved from it. */
function vouchedFor(request: Pick<PlanningRequest, 'goal' | 'context' | 'now'>): (value: string) => boolean {
  const goal = effectiveGoal(request);
  const dates = new Set(resolveTemporalReferences(goal, request.now).flatMap((r) => [r.start, r.end]));
  const words = normalized(goal);
  return (value) => dates.has(value) || words.includes(value);
}

/** `value` stands in `text` on its own, not inside a longer word or stamp ("2026-11-23" in "2026-11-23T16:09Z" does not). */
function quotes(text: string, value: string): boolean {
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const before = text[at - 1];
    const after = text[at + value.length];
    if (!(before && /[a-z0-9]/.test(before)) && !(after && /[a-z0-9]/.test(after))) return true;
  }
  return false;
}

/** A claim that the tool refuses what the step passes: validation against the tool's schema has settled it. */
const SCHEMA_CLAIM =
  /\b(?:does not|doesn't|do not|don't|cannot|can't) (?:support|accept|allow)|\bnot (?:supported|accepted|allowed|a valid)\b|\binvalid\b|\bdo(?:es)? not match the (?:tool's )?schema/i;

/** Whether the critique quotes a value its step really passes, other than one `vouched` for, and is no schema claim. */
function isGrounded(
  critique: Pick<Critique, 'step_id' | 'message' | 'suggestion'>,
  plan: Plan,
  vouched: (value: string) => boolean,
): boolean {
  const step = critique.step_id === undefined ? undefined : flattenSteps(plan).find((s) => s.id === critique.step_id);
  if (!step || SCHEMA_CLAIM.test(critique.message)) return false;
  const text = normalized(`${critique.message} ${critique.suggestion}`);
  return quotableValues(step.params).some((value) => !vouched(value) && quotes(text, value));
}

/** The critiques the gatekeeper may weigh: copies of `exampleMessage` dropped, ungrounded errors made warnings. */
export function groundCritiques(
  critiques: readonly Critique[],
  plan: Plan,
  request: Pick<PlanningRequest, 'goal' | 'context' | 'now'>,
  exampleMessage: string,
): Critique[] {
  const example = normalized(exampleMessage);
  const vouched = vouchedFor(request);
  return critiques
    .filter((c) => normalized(c.message) !== example)
    .map((c) =>
      c.severity !== 'error' || isGrounded(c, plan, vouched)
        ? c
        : {
            ...c,
            severity: 'warning' as const,
            message: `${c.message} (not grounded in a value the step passes: kept as a warning)`,
          },
    );
}
