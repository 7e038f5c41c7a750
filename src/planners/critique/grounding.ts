/**
 * Grounding for the pre-mortem's critiques. A small model invents failures (it calls the resolved dates wrong, or
 * a param the step does not pass missing) and copies the prompt's example. The gatekeeper refines on every error
 * and rejects the plan once the rounds are spent (PLAN-011), so one invented error can sink a sound plan. An
 * "error" therefore stands only when it points at this plan: a step the plan has, and a value or template that the
 * step really passes, quoted in the message or the suggestion. Any other error stays as a warning: audited, never
 * blocking. A copy of the prompt's example says nothing about the plan and is dropped.
 */
import type { Critique } from '../../domain/critique';
import { flattenSteps, type Plan } from '../../domain/plan';
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

/** Whether the critique quotes a value its step really passes (does not change the critique). */
export function isGrounded(critique: Pick<Critique, 'step_id' | 'message' | 'suggestion'>, plan: Plan): boolean {
  const step = critique.step_id === undefined ? undefined : flattenSteps(plan).find((s) => s.id === critique.step_id);
  if (!step) return false;
  const text = normalized(`${critique.message} ${critique.suggestion}`);
  return quotableValues(step.params).some((value) => text.includes(value));
}

/** The critiques the gatekeeper may weigh: copies of `exampleMessage` dropped, ungrounded errors made warnings. */
export function groundCritiques(critiques: readonly Critique[], plan: Plan, exampleMessage: string): Critique[] {
  const example = normalized(exampleMessage);
  return critiques
    .filter((c) => normalized(c.message) !== example)
    .map((c) =>
      c.severity !== 'error' || isGrounded(c, plan)
        ? c
        : { ...c, severity: 'warning' as const, message: `${c.message} (not grounded in a value the step passes: kept as a warning)` },
    );
}
