/**
 * PremortemCritic: "imagine this plan was run and failed; why?" An LLM answers with critiques (critic id
 * 'llm-premortem') that the gatekeeper weighs with the other critics'. A critique naming a step the plan does not
 * have is sent back like any other unusable reply; an error that quotes nothing the plan passes is kept as a
 * warning (./grounding).
 */
import { z } from 'zod';
import { CritiqueSchema, type Critique } from '../../domain/critique';
import { PlanSchemaError } from '../../domain/errors';
import { flattenSteps, parseJsonWith, type Plan } from '../../domain/plan';
import type { Critic, CriticResult, CritiqueContext } from '../types';
import type { ChatModel } from '../../llm/chat';
import { askForJson } from '../../llm/json-conversation';
import { critiquesReplySchema } from '../../llm/reply-schemas';
import { PREMORTEM_EXAMPLE, premortemSystemPrompt, premortemUserPrompt } from '../../llm/prompts';
import { groundCritiques } from './grounding';

export const PREMORTEM_CRITIC_ID = 'llm-premortem';
export const PREMORTEM_TEMPERATURE = 0.2;
/** Five critiques take a few hundred tokens; more is a model repeating itself. */
export const PREMORTEM_REPLY_MAX_TOKENS = 512;

/** Models often write "step_id": null for a plan-wide critique; it means the same as leaving it out. */
const ReplySchema = z.object({
  critiques: z.array(CritiqueSchema.omit({ critic: true, step_id: true }).extend({ step_id: z.string().nullish() })),
});

export class PremortemCritic implements Critic {
  readonly id = PREMORTEM_CRITIC_ID;

  constructor(private readonly client: ChatModel) {}

  async review(plan: Plan, { request, catalog, llm }: CritiqueContext): Promise<CriticResult> {
    const stepIds = flattenSteps(plan).map((s) => s.id);
    const {
      value: critiques,
      llm_calls,
      transcript,
    } = await askForJson(this.client, {
      messages: [
        { role: 'system', content: premortemSystemPrompt(catalog) },
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
