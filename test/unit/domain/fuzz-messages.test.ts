/**
 * Fuzz of every input a client or an LLM can hand the planner: message payloads (answerClarification, approve,
 * reject, raiseBudget through parseMessage), plan JSON and requirements JSON. Whatever comes in, the result is a
 * value the schema accepts or a typed error — InvalidInputError (PLAN-006) for messages, PlanParseError (PLAN-001)
 * or PlanSchemaError (PLAN-002) for LLM output — never a TypeError, never a value the schema would refuse.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { InvalidInputError, PlanParseError, PlanSchemaError } from '../../../src/domain/errors';
import {
  ApproveSchema,
  ClarificationAnswerSchema,
  CompleteStepSchema,
  MESSAGE_NAMES,
  EditPlanSchema,
  RerunFromSchema,
  RaiseBudgetSchema,
  RejectSchema,
  ResolveStepSchema,
  parseMessage,
} from '../../../src/api/messages';
import { PlanSchema, parsePlanJson } from '../../../src/domain/plan';
import { RequirementsSchema, parseRequirementsJson } from '../../../src/domain/requirements';
import { validPlanInput } from '../../support/plans';

const RUNS = 200;

const MESSAGES: { name: string; schema: z.ZodType }[] = [
  { name: MESSAGE_NAMES.answerClarification, schema: ClarificationAnswerSchema },
  { name: MESSAGE_NAMES.approve, schema: ApproveSchema },
  { name: MESSAGE_NAMES.reject, schema: RejectSchema },
  { name: MESSAGE_NAMES.raiseBudget, schema: RaiseBudgetSchema },
  { name: MESSAGE_NAMES.completeStep, schema: CompleteStepSchema },
  { name: MESSAGE_NAMES.resolveStep, schema: ResolveStepSchema },
  { name: MESSAGE_NAMES.editPlan, schema: EditPlanSchema },
  { name: MESSAGE_NAMES.rerunFrom, schema: RerunFromSchema },
];

/** Payloads near the real ones: the right keys with wrong values, extra keys, and anything at all. */
const payload = fc.oneof(
  fc.anything(),
  fc.jsonValue(),
  fc.record(
    {
      option: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
      text: fc.oneof(fc.string(), fc.constant('   '), fc.integer()),
      reason: fc.oneof(fc.string(), fc.string({ minLength: 2001, maxLength: 2100 })),
      comment: fc.oneof(fc.string(), fc.integer()),
      cost_usd: fc.oneof(fc.double(), fc.constant(Number.POSITIVE_INFINITY), fc.string()),
      tokens: fc.oneof(fc.integer(), fc.double()),
      calls: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double()),
      step: fc.oneof(fc.string(), fc.string({ minLength: 65, maxLength: 80 }), fc.integer()),
      answer: fc.oneof(fc.string(), fc.string({ minLength: 10_001, maxLength: 10_010 }), fc.constant('  ')),
      decision: fc.oneof(fc.constantFrom('retry', 'done', 'fail'), fc.string()),
      plan_version: fc.oneof(fc.integer(), fc.double(), fc.string()),
      plan: fc.oneof(fc.jsonValue(), fc.object()),
      patch: fc.oneof(
        fc.anything(),
        fc.array(
          fc.record({ op: fc.constantFrom('add', 'remove', 'move', 'x'), path: fc.string(), value: fc.jsonValue() }),
        ),
      ),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  ),
);

/** Calls `fn`; returns 'ok' or the error, and fails the property on anything but the expected error classes. */
function outcome(fn: () => unknown, allowed: readonly (new (...args: never[]) => Error)[]): 'ok' | Error {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (!allowed.some((cls) => err instanceof cls))
      throw new Error(`unexpected ${(err as Error)?.constructor?.name}: ${String(err)}`);
    return err as Error;
  }
}

describe('message payloads', () => {
  test.each(MESSAGES)(
    '$name: accepted values satisfy the schema, everything else is InvalidInputError PLAN-006',
    ({ name, schema }) => {
      fc.assert(
        fc.property(payload, (p) => {
          let parsed: unknown;
          const result = outcome(() => (parsed = parseMessage(schema, p, name, '{}')), [InvalidInputError]);
          if (result === 'ok') {
            expect(schema.safeParse(parsed).success).toBe(true);
            expect(schema.safeParse(p ?? {}).success).toBe(true);
          } else {
            expect((result as InvalidInputError).code).toBe('PLAN-006');
            expect(result.message).toContain(`invalid ${name} payload`);
            expect(schema.safeParse(p ?? {}).success).toBe(false);
          }
        }),
        { numRuns: RUNS },
      );
    },
  );

  test('an unknown key is refused by every message (strict objects)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MESSAGES),
        fc
          .string({ minLength: 1 })
          .filter((k) => !['option', 'text', 'comment', 'reason', 'cost_usd', 'tokens', 'calls'].includes(k)),
        fc.jsonValue(),
        ({ name, schema }, key, value) => {
          const valids: Record<string, Record<string, unknown>> = {
            answerClarification: { option: 1 },
            approve: {},
            reject: { reason: 'no' },
            raiseBudget: { calls: 1 },
          };
          const valid = valids[name]!;
          expect(() => parseMessage(schema, { ...valid, [key]: value }, name, '{}')).toThrow(InvalidInputError);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('valid payloads are accepted unchanged in meaning', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim().length > 0),
        fc.record({
          cost_usd: fc.double({ min: 0, max: 100, noNaN: true }),
          tokens: fc.nat(10 ** 6),
          calls: fc.integer({ min: 1, max: 1000 }),
        }),
        (option, text, raise) => {
          expect(parseMessage(ClarificationAnswerSchema, { option }, 'a', '')).toEqual({ option });
          expect(parseMessage(ClarificationAnswerSchema, { text }, 'a', '')).toEqual({ text: text.trim() });
          expect(parseMessage(RejectSchema, { reason: text }, 'r', '')).toEqual({ reason: text.trim() });
          expect(parseMessage(RaiseBudgetSchema, raise, 'b', '')).toEqual(raise);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('raiseBudget refuses zero, negative, fractional and non-finite raises', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constant({}),
          fc.constant({ cost_usd: 0, tokens: 0, calls: 0 }),
          fc.integer({ max: -1 }).map((calls) => ({ calls })),
          fc.double({ min: 0.01, max: 0.99, noNaN: true }).map((f) => ({ tokens: 10 + f })),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1).map((cost_usd) => ({ cost_usd })),
        ),
        (raise) => {
          expect(() => parseMessage(RaiseBudgetSchema, raise, MESSAGE_NAMES.raiseBudget, '{"calls": 10}')).toThrow(
            InvalidInputError,
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('LLM output parsers', () => {
  const LLM_ERRORS = [PlanParseError, PlanSchemaError] as const;

  /** Text an LLM might send: junk, JSON of any shape, fenced JSON, truncated or mutated valid plans. */
  const validPlan = JSON.stringify(validPlanInput());
  const llmText = fc.oneof(
    fc.string(),
    fc.json(),
    fc.jsonValue().map((v) => `\`\`\`json\n${JSON.stringify(v)}\n\`\`\``),
    fc.nat(validPlan.length).map((n) => validPlan.slice(0, n)),
    fc
      .tuple(fc.nat(validPlan.length - 1), fc.string({ minLength: 1, maxLength: 3 }))
      .map(([i, s]) => validPlan.slice(0, i) + s + validPlan.slice(i + 1)),
    fc
      .record(
        {
          status: fc.string(),
          tasks: fc.anything(),
          complexity: fc.anything(),
          is_clear: fc.anything(),
          steps: fc.anything(),
        },
        { requiredKeys: [] },
      )
      .map((o) => JSON.stringify(o)),
  );

  test('parsePlanJson returns a Plan the schema accepts or throws PLAN-001 / PLAN-002 only', () => {
    fc.assert(
      fc.property(llmText, (text) => {
        let plan: unknown;
        const result = outcome(() => (plan = parsePlanJson(text)), LLM_ERRORS);
        if (result === 'ok') expect(PlanSchema.safeParse(plan).success).toBe(true);
        else expect(['PLAN-001', 'PLAN-002']).toContain((result as PlanParseError).code);
      }),
      { numRuns: RUNS },
    );
  });

  test('parseRequirementsJson returns Requirements the schema accepts or throws PLAN-001 / PLAN-002 only', () => {
    fc.assert(
      fc.property(llmText, (text) => {
        let requirements: unknown;
        const result = outcome(() => (requirements = parseRequirementsJson(text)), LLM_ERRORS);
        if (result === 'ok') expect(RequirementsSchema.safeParse(requirements).success).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  test('non-text LLM output is a PlanParseError, not a crash', () => {
    fc.assert(
      fc.property(
        fc.anything().filter((v) => typeof v !== 'string'),
        (value) => {
          expect(() => parsePlanJson(value as string)).toThrow(PlanParseError);
          expect(() => parseRequirementsJson(value as string)).toThrow(PlanParseError);
        },
      ),
      { numRuns: 100 },
    );
  });
});
