/**
 * The planning workflow's public message interface. Names and payloads are plain JSON so any Temporal client (our
 * CLI, the stock `temporal` CLI, another language's SDK) can drive a run:
 *   query  getState
 *   update answerClarification {"option": 1} | {"text": "…"}   (also a signal, for fire-and-forget clients)
 *   update approve {"plan_version": 2}            update reject {"plan_version": 2, "reason": "…"}
 *     (`plan_version` is optional for old clients; when given it must be the version awaiting approval)
 *   update raiseBudget {"cost_usd": 1, "tokens": 10000, "calls": 10}   (amounts added to the limits, each and the
 *     resulting limits at most BUDGET_MAXIMA)
 *   update completeStep {"step": "2.1", "answer": "…"}   (a `human` step in status WAITING: the answer is its result)
 *   update resolveStep {"step": "1.1", "decision": "retry" | "done" | "fail", "text": "…"}   (a side-effecting step
 *     whose outcome is unknown, PLAN-014: run it again under a fresh idempotency scope, mark it completed with
 *     optional result text, or fail it into the re-plan path)
 *   update editPlan {"plan_version": 2, "patch": [{"op": "replace", "path": "/tasks/0/steps/1/params/x", "value": 1}]}
 *     or {"plan_version": 2, "plan": {…}}   (the version awaiting approval, changed by a person: validated as a
 *     generated plan, recorded as the next version with reason `human_edit`, critiqued and awaiting approval again)
 *   update rerunFrom {"step": "1.2", "patch": […]}   (see docs/messages-and-failures.md for the stages that take it)
 *   Each of these but waitForProgress may carry "identity": "…" (who decides; PlannerClient sends its client
 *     identity), which the audit records as `by`.
 *   update waitForProgress {"after_seq": 0}   query getProgress {"after_seq": 0}   (the run's progress events:
 *     src/api/progress.ts)
 * Every payload is at most MESSAGE_LIMITS.payload_bytes as JSON; PlannerClient checks payloads before sending them.
 * Cancellation is Temporal's own cancel.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { sharedSchema } from '../domain/shared-schema';
import { BUDGET_MAXIMA, type ToolBudget } from '../domain/budget';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import { redactSecrets } from '../domain/secrets';
import { JsonPatchSchema } from '../domain/json-patch';
import { jsonByteLength } from '../domain/walk';
import { IdentitySchema } from './input';
import { WaitForProgressSchema } from './progress';
import type { PlanningState } from './state';

export const MESSAGE_NAMES = {
  getState: 'getState',
  answerClarification: 'answerClarification',
  approve: 'approve',
  reject: 'reject',
  raiseBudget: 'raiseBudget',
  completeStep: 'completeStep',
  resolveStep: 'resolveStep',
  editPlan: 'editPlan',
  rerunFrom: 'rerunFrom',
  waitForProgress: 'waitForProgress',
  getProgress: 'getProgress',
} as const;

/**
 * Who sends a decision (every payload below but waitForProgress may carry it): PlannerClient fills it from its client
 * identity, and the run records it in the audit (`by`). Temporal does not give workflow code an update's identity.
 */
const IdentityField = sharedSchema('api/messages#IdentityField', () => IdentitySchema.optional());

export const ClarificationAnswerSchema = sharedSchema('api/messages#ClarificationAnswerSchema', () =>
  z.union([
    z.object({ option: z.number().int().min(1), identity: IdentityField }).strict(),
    z.object({ text: z.string().trim().min(1).max(10_000), identity: IdentityField }).strict(),
  ]),
);
export type ClarificationAnswer = z.output<typeof ClarificationAnswerSchema>;

/** The plan version a decision is about: the one the person was shown. */
const PlanVersionField = sharedSchema('api/messages#PlanVersionField', () =>
  z.number().int().min(1).max(1_000_000).optional(),
);

/** A step of the current plan, by its id as `getState` shows it (`steps[].id`). */
const StepIdField = sharedSchema('api/messages#StepIdField', () => z.string().trim().min(1).max(64));

/** A person's comment or reason, secrets redacted (redactSecrets) as it is parsed: the run keeps and repeats only that. */
export const ApproveSchema = sharedSchema('api/messages#ApproveSchema', () =>
  z
    .object({
      comment: z.string().max(2_000).transform(redactSecrets).optional(),
      plan_version: PlanVersionField,
      /** Under `approval: per-step`: the side-effecting step waiting for a person (status WAITING for an approval). */
      step: StepIdField.optional(),
      identity: IdentityField,
    })
    .strict(),
);
export type ApproveInput = z.output<typeof ApproveSchema>;

export const RejectSchema = sharedSchema('api/messages#RejectSchema', () =>
  z
    .object({
      reason: z.string().trim().min(1).max(2_000).transform(redactSecrets),
      plan_version: PlanVersionField,
      /** Under `approval: per-step`: the step rejected; it fails and the run re-plans with the reason. */
      step: StepIdField.optional(),
      identity: IdentityField,
    })
    .strict(),
);
export type RejectInput = z.output<typeof RejectSchema>;

/** The largest limits a run's budget may reach (and so the largest single raise). */
export { BUDGET_MAXIMA };

export const RaiseBudgetSchema = sharedSchema('api/messages#RaiseBudgetSchema', () =>
  z
    .object({
      cost_usd: z.number().nonnegative().finite().max(BUDGET_MAXIMA.cost_usd).default(0),
      tokens: z.number().int().nonnegative().max(BUDGET_MAXIMA.tokens).default(0),
      calls: z.number().int().nonnegative().max(BUDGET_MAXIMA.calls).default(0),
      identity: IdentityField,
    })
    .strict()
    .refine((r) => r.cost_usd > 0 || r.tokens > 0 || r.calls > 0, {
      message: 'raise at least one of cost_usd, tokens, calls',
    }),
);
export type RaiseBudgetInput = z.output<typeof RaiseBudgetSchema>;

/** The answer of a `human` step; it becomes the step's result. */
export const CompleteStepSchema = sharedSchema('api/messages#CompleteStepSchema', () =>
  z.object({ step: StepIdField, answer: z.string().trim().min(1).max(10_000), identity: IdentityField }).strict(),
);
export type CompleteStepInput = z.output<typeof CompleteStepSchema>;

/** A person's decision on a step whose outcome is unknown (PLAN-014). */
export const ResolveStepSchema = sharedSchema('api/messages#ResolveStepSchema', () =>
  z.discriminatedUnion('decision', [
    /** Run the tool again under a fresh idempotency scope: the person has checked that the effect did not happen. */
    z.object({ step: StepIdField, decision: z.literal('retry'), identity: IdentityField }).strict(),
    /** The effect happened: the step is completed, with `text` (what the person saw) as its result. */
    z
      .object({
        step: StepIdField,
        decision: z.literal('done'),
        text: z.string().trim().min(1).max(10_000).optional(),
        identity: IdentityField,
      })
      .strict(),
    /** The step failed: the run re-plans (or fails when no re-plans are left). */
    z
      .object({
        step: StepIdField,
        decision: z.literal('fail'),
        text: z.string().trim().min(1).max(2_000).optional(),
        identity: IdentityField,
      })
      .strict(),
  ]),
);
export type ResolveStepInput = z.output<typeof ResolveStepSchema>;
/** The decision as the run keeps it, without the step it names and who sent it (the audit keeps that). */
export type StepDecision = ResolveStepInput extends infer D
  ? D extends unknown
    ? Omit<D, 'step' | 'identity'>
    : never
  : never;

/**
 * A person's edit of the plan awaiting approval (version `plan_version`, which must be the one awaiting): the whole
 * changed plan, or an RFC 6902 JSON Patch over it. The run validates the result as it validates a generated plan and
 * records it as the next version (reason `human_edit`), which is critiqued and awaits approval again.
 */
export const EditPlanSchema = sharedSchema('api/messages#EditPlanSchema', () =>
  z
    .object({
      plan_version: z.number().int().min(1).max(1_000_000),
      plan: z.record(z.string(), z.unknown()).optional(),
      patch: JsonPatchSchema.optional(),
      comment: z.string().max(2_000).transform(redactSecrets).optional(),
      identity: IdentityField,
    })
    .strict()
    .refine((e) => (e.plan === undefined) !== (e.patch === undefined), {
      message: 'send exactly one of plan (the whole changed plan) and patch (a JSON Patch over it)',
    }),
);
export type EditPlanInput = z.output<typeof EditPlanSchema>;

/**
 * Re-run the current plan from step `step`: a new version keeps every completed step upstream of it (results by
 * reference) and runs `step` and the steps downstream of it again, optionally with `patch` (a JSON Patch over the
 * plan) applied first.
 */
export const RerunFromSchema = sharedSchema('api/messages#RerunFromSchema', () =>
  z.object({ step: StepIdField, patch: JsonPatchSchema.optional(), identity: IdentityField }).strict(),
);
export type RerunFromInput = z.output<typeof RerunFromSchema>;

/**
 * Limits on every message payload, checked before its schema (by the update validators, the signal handler and
 * PlannerClient). No payload a schema accepts comes near the cap (a 10,000-character answer is at most 60 KB even
 * with every character escaped); it bounds what a hostile payload costs before the schema sees it, extra keys included.
 */
export const MESSAGE_LIMITS = {
  /** A message payload as JSON, in UTF-8 bytes. */
  payload_bytes: 64 * 1024,
} as const;

/** JSON bytes of a payload; what JSON cannot hold (a BigInt, a cycle) counts as too large to send. */
function payloadBytes(payload: unknown): number {
  try {
    return jsonByteLength(payload);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Parses a message payload; throws InvalidInputError (PLAN-006) naming the message and every problem. */
export function parseMessage<S extends z.ZodType>(
  schema: S,
  payload: unknown,
  message: string,
  example: string,
): z.output<S> {
  const bytes = payloadBytes(payload);
  if (bytes > MESSAGE_LIMITS.payload_bytes) {
    throw new InvalidInputError(
      `invalid ${message} payload: ${Number.isFinite(bytes) ? `${bytes} bytes as JSON, over` : 'not plain JSON, so over'} the limit of ${MESSAGE_LIMITS.payload_bytes} bytes`,
      `Send JSON like ${example}; every message payload is at most ${MESSAGE_LIMITS.payload_bytes} bytes.`,
      { limits: MESSAGE_LIMITS },
    );
  }
  const parsed = schema.safeParse(payload ?? {});
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    `invalid ${message} payload: ${formatZodIssues(parsed.error).join('; ')}`,
    `Send JSON like ${example}.`,
  );
}

/** Each update's payload schema and an example for refusals; the workflow's validators and PlannerClient share it. */
export const MESSAGE_PAYLOADS = {
  answerClarification: { schema: ClarificationAnswerSchema, example: '{"option": 1} or {"text": "…"}' },
  approve: { schema: ApproveSchema, example: '{"plan_version": 1}' },
  reject: { schema: RejectSchema, example: '{"plan_version": 1, "reason": "…"}' },
  raiseBudget: { schema: RaiseBudgetSchema, example: '{"calls": 10}' },
  completeStep: { schema: CompleteStepSchema, example: '{"step": "2.1", "answer": "…"}' },
  resolveStep: { schema: ResolveStepSchema, example: '{"step": "1.1", "decision": "retry" | "done" | "fail"}' },
  editPlan: {
    schema: EditPlanSchema,
    example: '{"plan_version": 1, "patch": [{"op": "replace", "path": "/tasks/0/steps/0/params/limit", "value": 5}]}',
  },
  rerunFrom: { schema: RerunFromSchema, example: '{"step": "1.2"}' },
  waitForProgress: { schema: WaitForProgressSchema, example: '{"after_seq": 0}' },
  getProgress: { schema: WaitForProgressSchema, example: '{"after_seq": 0}' },
} as const;
export type MessageWithPayload = keyof typeof MESSAGE_PAYLOADS;
export type MessagePayload<M extends MessageWithPayload> = z.output<(typeof MESSAGE_PAYLOADS)[M]['schema']>;

/** `payload` checked as the named message's (byte cap, then schema); throws InvalidInputError (PLAN-006). */
export function parseMessagePayload<M extends MessageWithPayload>(message: M, payload: unknown): MessagePayload<M> {
  const { schema, example } = MESSAGE_PAYLOADS[message];
  return parseMessage(schema as z.ZodType, payload, message, example) as MessagePayload<M>;
}

export const getStateQuery = defineQuery<PlanningState>(MESSAGE_NAMES.getState);
export const answerClarificationUpdate = defineUpdate<string, [z.input<typeof ClarificationAnswerSchema>]>(
  MESSAGE_NAMES.answerClarification,
);
export const answerClarificationSignal = defineSignal<[z.input<typeof ClarificationAnswerSchema>]>(
  MESSAGE_NAMES.answerClarification,
);
export const approveUpdate = defineUpdate<string, [z.input<typeof ApproveSchema>]>(MESSAGE_NAMES.approve);
export const rejectUpdate = defineUpdate<string, [z.input<typeof RejectSchema>]>(MESSAGE_NAMES.reject);
export const completeStepUpdate = defineUpdate<string, [z.input<typeof CompleteStepSchema>]>(
  MESSAGE_NAMES.completeStep,
);
export const resolveStepUpdate = defineUpdate<string, [z.input<typeof ResolveStepSchema>]>(MESSAGE_NAMES.resolveStep);
export const editPlanUpdate = defineUpdate<string, [z.input<typeof EditPlanSchema>]>(MESSAGE_NAMES.editPlan);
export const rerunFromUpdate = defineUpdate<string, [z.input<typeof RerunFromSchema>]>(MESSAGE_NAMES.rerunFrom);
export const raiseBudgetUpdate = defineUpdate<ToolBudget, [z.input<typeof RaiseBudgetSchema>]>(
  MESSAGE_NAMES.raiseBudget,
);
export { getProgressQuery, waitForProgressUpdate } from './progress';
