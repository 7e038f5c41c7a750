/**
 * PremortemCritic: "imagine this plan was run and failed; why?" An LLM answers with critiques (critic id
 * 'llm-premortem') that the gatekeeper weighs with the other critics'. A critique naming a step the plan does not
 * have is sent back like any other unusable reply; an error that quotes nothing the plan passes is kept as a
 * warning (./grounding).
 *
 * It weighs in only where there is something to weigh: a step that can change something, or a finding of the rule
 * critics. A read-only plan the rules found nothing in is not sent (a call costs 15-50 s on a small local model, and
 * on such plans the eval's answers were no better for it); an `info` critique says it was skipped and why.
 */
import { z } from 'zod';
import { CritiqueSchema, type Critique } from '../../domain/critique';
import { PlanSchemaError } from '../../domain/errors';
import { sideEffectingSteps } from '../../domain/approval-gate';
import { flattenSteps, parseJsonWith, type Plan } from '../../domain/plan';
import type { ToolSpec } from '../../domain/tool-spec';
import type { Critic, CriticResult, CritiqueContext } from '../types';
import type { ChatModel } from '../../llm/chat';
import type { LlmCallMode } from '../../config';
import { askForJson } from '../../llm/json-conversation';
import { critiquesReplySchema } from '../../llm/reply-schemas';
import { PREMORTEM_EXAMPLE, systemPrompt, premortemUserPrompt } from '../../llm/prompts';
import { groundCritiques } from './grounding';

export const PREMORTEM_CRITIC_ID = 'llm-premortem';
export const PREMORTEM_TEMPERATURE = 0.2;
/** Five critiques take a few hundred tokens; more is a model repeating itself. */
export const PREMORTEM_REPLY_MAX_TOKENS = 512;

/** Models often write "step_id": null for a plan-wide critique; it means the same as leaving it out. */
const ReplySchema = z.object({
  critiques: z.array(CritiqueSchema.omit({ critic: true, step_id: true }).extend({ step_id: z.string().nullish() })),
});

/** Why the pre-mortem is worth a call for `plan`, or undefined when it is read-only and the rule critics found nothing. */
export function premortemReason(
  plan: Plan,
  catalog: readonly ToolSpec[],
  findings: readonly Critique[] = [],
): string | undefined {
  const effects = sideEffectingSteps(plan, Object.fromEntries(catalog.map((t) => [t.name, t])));
  if (effects.length > 0) return `side effects in ${effects.join(', ')}`;
  const found = findings.filter((f) => f.severity !== 'info');
  return found.length > 0 ? `the rule critics found ${found.length} issue(s)` : undefined;
}

export class PremortemCritic implements Critic {
  readonly id = PREMORTEM_CRITIC_ID;
  readonly weighsFindings = true;

  /** `calls`: `always` reviews every plan (PLANNER_LLM_PREMORTEM), `auto` (default) only those with something to weigh. */
  constructor(
    private readonly client: ChatModel,
    private readonly options: { calls?: LlmCallMode } = {},
  ) {}

  async review(plan: Plan, { request, catalog, llm, findings }: CritiqueContext): Promise<CriticResult> {
    if (this.options.calls !== 'always' && premortemReason(plan, catalog, findings) === undefined) {
      const message = 'not run: every step is read-only and the rule critics found nothing to weigh';
      return { critiques: [{ critic: PREMORTEM_CRITIC_ID, severity: 'info', message, suggestion: '' }], llm_calls: [] };
    }
    const stepIds = flattenSteps(plan).map((s) => s.id);
    const {
      value: critiques,
      llm_calls,
      transcript,
    } = await askForJson(this.client, {
      messages: [
        { role: 'system', content: systemPrompt(catalog) },
        { role: 'user', content: premortemUserPrompt(request, plan) },
      ],
      temperature: PREMORTEM_TEMPERATURE,
      maxTokens: PREMORTEM_REPLY_MAX_TOKENS,
      schema: critiquesReplySchema(stepIds),
      ...(llm ? { settings: llm } : {}),
      parse: (text): Critique[] => {
        const reply = parseJsonWith(ReplySchema, text, 'critiques');
        const unknown = reply.critiques.flatMap((c, i) =>
          c.step_id == null || stepIds.includes(c.step_id)
            ? []
            : [
                `critiques[${i}].step_id: the plan has no step "${c.step_id}" (its steps: ${stepIds.join(', ') || 'none'})`,
              ],
        );
        if (unknown.length > 0) throw new PlanSchemaError('critiques', unknown);
        return reply.critiques.map(({ step_id, ...c }) => ({
          critic: PREMORTEM_CRITIC_ID,
          ...c,
          ...(step_id == null ? {} : { step_id }),
        }));
      },
    });
    return { critiques: groundCritiques(critiques, plan, request, PREMORTEM_EXAMPLE.message), llm_calls, transcript };
  }
}
