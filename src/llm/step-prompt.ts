/**
 * The prompt of an `llm` step (how a plan summarizes or answers): the step's instruction over the data of the steps
 * it depends on, each fitted into a shared token budget. Small inputs keep all they need and leave the rest to the
 * larger ones; an input cut to fit says so in the prompt (how much was shown, and the ref of the full data), so
 * neither the model nor a reader mistakes a part for the whole.
 */
import { countTokens, decodeTokens, encodeTokens } from '../tools/workspace/tokens';
import type { ChatMessage } from './chat';

export interface StepInputText {
  /** e.g. "step 0 (1.1)". */
  label: string;
  ref: string;
  text: string;
}

export interface FittedInput extends StepInputText {
  tokens: number;
  shown_tokens: number;
  truncated: boolean;
}

/** Fits `inputs` into `budget` tokens in all: each gets an equal share of what is left, smallest first. */
export function fitInputs(inputs: readonly StepInputText[], budget: number): FittedInput[] {
  const counts = inputs.map((i) => countTokens(i.text));
  const shares: number[] = new Array<number>(inputs.length).fill(0);
  const smallestFirst = counts.map((_, i) => i).sort((a, b) => counts[a]! - counts[b]!);
  let left = Math.max(0, budget);
  smallestFirst.forEach((i, k) => {
    shares[i] = Math.min(counts[i]!, Math.floor(left / (inputs.length - k)));
    left -= shares[i]!;
  });
  return inputs.map((input, i) => {
    const tokens = counts[i]!;
    const shown = shares[i]!;
    if (shown >= tokens) return { ...input, tokens, shown_tokens: tokens, truncated: false };
    const cut = decodeTokens(encodeTokens(input.text).slice(0, shown));
    return {
      ...input,
      text: `${cut}\n[truncated: ${shown} of ${tokens} tokens shown; the full data is ${input.ref}]`,
      tokens,
      shown_tokens: shown,
      truncated: true,
    };
  });
}

export const LLM_STEP_SYSTEM_PROMPT = [
  'You carry out one step of a plan: answer its instruction from the data of the earlier steps it depends on.',
  'Use only that data. When a part of it is marked truncated, say that your answer covers only what was shown.',
  'Reply with the answer itself as plain text, without a preamble.',
].join('\n');

export function llmStepMessages(
  step: { goal: string; title: string; instruction: string; expected_output: string },
  inputs: readonly FittedInput[],
): ChatMessage[] {
  const data =
    inputs.length === 0 ? '(no earlier steps)' : inputs.map((i) => `### ${i.label} (${i.ref})\n${i.text}`).join('\n\n');
  const lines = [`Goal of the plan: ${step.goal}`, `Step: ${step.title}`, `Instruction: ${step.instruction}`];
  if (step.expected_output) lines.push(`Expected output: ${step.expected_output}`);
  return [
    { role: 'system', content: LLM_STEP_SYSTEM_PROMPT },
    { role: 'user', content: `${lines.join('\n')}\n\nData of the earlier steps:\n${data}` },
  ];
}
