import { canonicalJson } from '../domain/canonical-json';

/** Identity of a step across plan versions: same id, tool and params means the same work, kept by a re-plan. */
export function stepKey(step: { id: string; tool: string | null; params: Record<string, unknown> }): string {
  return `${step.id}|${step.tool ?? ''}|${canonicalJson(step.params)}`;
}
