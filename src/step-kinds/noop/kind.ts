/** `noop`: completes at once, without an activity (a placeholder a plan may keep, e.g. a step already done). */
import { z } from 'zod';
import { defineStepKind } from '../kind';

export const noopStep = defineStepKind({
  name: 'noop',
  params: z.looseObject({}),
  callsLlm: false,
  draft: {
    params: { type: 'object', additionalProperties: false, properties: {} },
    rule: '{"action": "noop", "params": {}} does nothing',
  },
  run(_step, ctx) {
    ctx.completeEmpty('nothing to do');
  },
});
