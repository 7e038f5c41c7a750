/** `human`: the step waits (WAITING) for a person's `completeStep` answer, which becomes its result. */
import { z } from 'zod';
import { defineStepKind } from '../kind';

export const humanStep = defineStepKind({
  name: 'human',
  params: z.looseObject({ question: z.string().min(1).max(2_000).optional() }),
  callsLlm: false,
  draft: {
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['question'],
      properties: { question: { type: 'string', minLength: 1, maxLength: 2000 } },
    },
    rule: `{"action": "human", "params": {"question": "..."}} waits for a person's answer`,
  },
  async run(step, ctx) {
    const question =
      typeof step.params.question === 'string'
        ? step.params.question
        : [step.title, step.description].filter(Boolean).join(': ');
    const reply = await ctx.askPerson(question);
    if (reply) ctx.complete(await ctx.storedText(reply.answer), 'answered by a person');
  },
});
