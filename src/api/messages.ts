/**
 * The planning workflow's public message interface. Names and payloads are plain JSON so any Temporal client (our
 * CLI, the stock `temporal` CLI, another language's SDK) can drive a run:
 *   query  getState
 *   update answerClarification {"option": 1} | {"text": "…"}   (also a signal, for fire-and-forget clients)
 *   update approve {}            update reject {"reason": "…"}
 *   update raiseBudget {"cost_usd": 1, "tokens": 10000, "calls": 10}   (amounts added to the limits)
 * Cancellation is Temporal's own cancel.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { ToolBudget } from '../domain/budget';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import type { PlanningState } from './state';

export const MESSAGE_NAMES = {
  getState: 'getState',
  answerClarification: 'answerClarification',
  approve: 'approve',
  reject: 'reject',
  raiseBudget: 'raiseBudget',
} as const;

export const ClarificationAnswerSchema = z.union([
  z.object({ option: z.number().int().min(1) }).strict(),
  z.object({ text: z.string().trim().min(1).max(10_000) }).strict(),
]);
export type ClarificationAnswer = z.output<typeof ClarificationAnswerSchema>;

export const ApproveSchema = z.object({ comment: z.string().max(2_000).optional() }).strict();
export type ApproveInput = z.output<typeof ApproveSchema>;

export const RejectSchema = z.object({ reason: z.string().trim().min(1).max(2_000) }).strict();
export type RejectInput = z.output<typeof RejectSchema>;

export const RaiseBudgetSchema = z
  .object({
    cost_usd: z.number().nonnegative().finite().default(0),
    tokens: z.number().int().nonnegative().default(0),
    calls: z.number().int().nonnegative().default(0),
  })
  .strict()
  .refine((r) => r.cost_usd > 0 || r.tokens > 0 || r.calls > 0, { message: 'raise at least one of cost_usd, tokens, calls' });
export type RaiseBudgetInput = z.output<typeof RaiseBudgetSchema>;

/** Parses a message payload; throws InvalidInputError (PLAN-006) naming the message and every problem. */
export function parseMessage<S extends z.ZodType>(schema: S, payload: unknown, message: string, example: string): z.output<S> {
  const parsed = schema.safeParse(payload ?? {});
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(`invalid ${message} payload: ${formatZodIssues(parsed.error).join('; ')}`, `Send JSON like ${example}.`);
}

export const getStateQuery = defineQuery<PlanningState>(MESSAGE_NAMES.getState);
export const answerClarificationUpdate = defineUpdate<string, [ClarificationAnswer]>(MESSAGE_NAMES.answerClarification);
export const answerClarificationSignal = defineSignal<[ClarificationAnswer]>(MESSAGE_NAMES.answerClarification);
export const approveUpdate = defineUpdate<string, [z.input<typeof ApproveSchema>]>(MESSAGE_NAMES.approve);
export const rejectUpdate = defineUpdate<string, [z.input<typeof RejectSchema>]>(MESSAGE_NAMES.reject);
export const raiseBudgetUpdate = defineUpdate<ToolBudget, [z.input<typeof RaiseBudgetSchema>]>(MESSAGE_NAMES.raiseBudget);
