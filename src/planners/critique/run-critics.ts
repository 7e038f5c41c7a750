/**
 * Runs critics side by side (rule critics and the LLM pre-mortem alike) and merges what they found and spent. A critic
 * that `weighsFindings` runs after the others and sees their critiques, so it can decide whether it is needed.
 */
import type { Plan } from '../../domain/plan';
import type { Critic, CriticResult, CritiqueContext } from '../types';

/** Runs every critic; critiques come back in critic order, so the result is deterministic. */
export async function runCritics(
  critics: readonly Critic[],
  plan: Plan,
  context: CritiqueContext,
): Promise<CriticResult> {
  const results = new Map<Critic, CriticResult>();
  const first = critics.filter((c) => !c.weighsFindings);
  for (const [i, result] of (await Promise.all(first.map((c) => c.review(plan, context)))).entries())
    results.set(first[i]!, result);
  const findings = [...results.values()].flatMap((r) => r.critiques);
  const second = critics.filter((c) => c.weighsFindings);
  for (const [i, result] of (await Promise.all(second.map((c) => c.review(plan, { ...context, findings })))).entries())
    results.set(second[i]!, result);
  const ordered = critics.map((c) => results.get(c)!);
  const transcript = ordered.flatMap((r) => r.transcript ?? []);
  return {
    critiques: ordered.flatMap((r) => r.critiques),
    llm_calls: ordered.flatMap((r) => r.llm_calls),
    ...(transcript.length ? { transcript } : {}),
  };
}
