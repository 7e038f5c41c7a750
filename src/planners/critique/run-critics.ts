/** Runs critics side by side (rule critics and the LLM pre-mortem alike) and merges what they found and spent. */
import type { Plan } from '../../domain/plan';
import type { Critic, CriticResult, CritiqueContext } from '../types';

/** Runs every critic; critiques come back in critic order, so the result is deterministic. */
export async function runCritics(
  critics: readonly Critic[],
  plan: Plan,
  context: CritiqueContext,
): Promise<CriticResult> {
  const results = await Promise.all(critics.map((c) => c.review(plan, context)));
  const transcript = results.flatMap((r) => r.transcript ?? []);
  return {
    critiques: results.flatMap((r) => r.critiques),
    llm_calls: results.flatMap((r) => r.llm_calls),
    ...(transcript.length ? { transcript } : {}),
  };
}
