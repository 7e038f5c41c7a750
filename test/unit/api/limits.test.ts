/**
 * The contract's size limits (src/api/limits.ts), checked where clients and workers check them: the client-side
 * check of a start (the workflow's own parse), the byte cap on every message payload, the bound on plan params and
 * the bound on an LLM reply. Each refusal is a typed error whose message names the limit.
 */
import fc from 'fast-check';
import {
  MESSAGE_LIMITS,
  MESSAGE_NAMES,
  PLAN_LIMITS,
  REQUEST_LIMITS,
  checkWorkflowInput,
  parseMessagePayload,
  type MessageWithPayload,
} from '../../../src/api';
import { InvalidInputError, PlanParseError } from '../../../src/domain/errors';
import { parsePlanJson } from '../../../src/domain/plan';
import { validatePlan, type ValidationContext } from '../../../src/domain/validation';
import { utf8Length } from '../../../src/domain/text';
import { jsonByteLength, jsonNestingExceeds } from '../../../src/domain/walk';
import { catalog, validPlanInput } from '../../support/plans';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('jsonByteLength', () => {
  it('is the UTF-8 size of the JSON text, for any JSON value (astral characters and lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        expect(jsonByteLength(value)).toBe(Buffer.byteLength(JSON.stringify(value)));
      }),
      { seed: 13, numRuns: 100 },
    );
    expect(utf8Length('a\u00e9\u20ac\u{1F600}')).toBe(1 + 2 + 3 + 4);
  });
});

describe('checkWorkflowInput (what PlannerClient.start and the CLI check before sending)', () => {
  it('accepts a normal request and fills the defaults as the workflow would', () => {
    const { request, options } = checkWorkflowInput({ request: { goal: '  Get shipments  ' } });
    expect(request).toMatchObject({ goal: 'Get shipments', tool_catalog: 'waste', planner: 'auto' });
    expect(options.max_rejections).toBe(20);
  });

  it('refuses a 600 KB context with PLAN-006 naming the limit', () => {
    const err = thrown(() =>
      checkWorkflowInput({ request: { goal: 'g', context: [{ role: 'user', content: 'x'.repeat(600_000) }] } }),
    );
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err).toMatchObject({
      code: 'PLAN-006',
      message: expect.stringContaining(`limit of ${REQUEST_LIMITS.context_chars} characters`),
    });
    expect((err as InvalidInputError).hint).toContain(`goal ${REQUEST_LIMITS.goal_chars} characters`);
  });

  it('refuses a goal over its limit, bad options, missing input and a client-made resume', () => {
    expect(
      thrown(() => checkWorkflowInput({ request: { goal: 'g'.repeat(REQUEST_LIMITS.goal_chars + 1) } })),
    ).toMatchObject({
      code: 'PLAN-006',
      message: expect.stringContaining(`goal is longer than the limit of ${REQUEST_LIMITS.goal_chars}`),
    });
    expect(thrown(() => checkWorkflowInput({ request: { goal: 'g' }, options: { max_rejections: 0 } }))).toMatchObject({
      message: expect.stringMatching(/invalid planning options: max_rejections/),
    });
    expect(thrown(() => checkWorkflowInput(null))).toMatchObject({
      code: 'PLAN-006',
      message: expect.stringMatching(/^invalid workflow input/),
    });
    expect(thrown(() => checkWorkflowInput({ request: { goal: 'g' }, resume: { stage: 'EXECUTING' } }))).toMatchObject({
      code: 'PLAN-006',
      message: expect.stringContaining('`resume` is set only by the workflow'),
    });
  });
});

describe('message payloads: a byte cap before the schema', () => {
  const messages = Object.values(MESSAGE_NAMES).filter((m): m is MessageWithPayload => m !== 'getState');

  it.each(messages)(
    '%s refuses a payload over the cap (even in an unknown key) with PLAN-006 naming the limit',
    (message) => {
      const err = thrown(() =>
        parseMessagePayload(message, { [`k${'y'.repeat(10)}`]: 'z'.repeat(MESSAGE_LIMITS.payload_bytes) }),
      );
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).message).toMatch(
        new RegExp(
          `^invalid ${message} payload: \\d+ bytes as JSON, over the limit of ${MESSAGE_LIMITS.payload_bytes} bytes$`,
        ),
      );
      expect((err as InvalidInputError).hint).toContain(`at most ${MESSAGE_LIMITS.payload_bytes} bytes`);
    },
  );

  it('refuses what JSON cannot hold instead of throwing something untyped', () => {
    expect(thrown(() => parseMessagePayload('raiseBudget', { calls: 10n }))).toMatchObject({
      code: 'PLAN-006',
      message: expect.stringContaining('not plain JSON'),
    });
  });

  it('never refuses a payload its schema accepts: the largest answer, escaped character by character, fits', () => {
    const worst = { text: '\u0001'.repeat(10_000) };
    expect(jsonByteLength(worst)).toBeLessThan(MESSAGE_LIMITS.payload_bytes);
    expect(parseMessagePayload('answerClarification', worst)).toEqual(worst);
  });

  it('passes schema-valid payloads through parsed', () => {
    expect(parseMessagePayload('approve', { plan_version: 2 })).toEqual({ plan_version: 2 });
    expect(parseMessagePayload('raiseBudget', { calls: 5 })).toEqual({ cost_usd: 0, tokens: 0, calls: 5 });
    expect(parseMessagePayload('reject', { reason: ' too broad ' })).toEqual({ reason: 'too broad' });
  });
});

describe('plan params and LLM replies are bounded', () => {
  const ctx: ValidationContext = { catalog, constraints: { max_steps: 20 } };

  it('validatePlan reports PARAMS_TOO_LARGE for a step whose params exceed the per-step limit', () => {
    const plan = validPlanInput();
    plan.tasks[1]!.steps[0]!.params = { path: 'reports/a.md', content: 'x'.repeat(PLAN_LIMITS.step_params_bytes) };
    const issues = validatePlan(plan, ctx);
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'PARAMS_TOO_LARGE',
        step_index: 2,
        message: expect.stringContaining(`over the limit of ${PLAN_LIMITS.step_params_bytes} bytes per step`),
      }),
    ]);
  });

  it('validatePlan reports PARAMS_TOO_LARGE for a plan whose steps together exceed the per-plan limit', () => {
    const plan = validPlanInput();
    const share = Math.ceil(PLAN_LIMITS.plan_params_bytes / 5);
    plan.tasks[1]!.steps = Array.from({ length: 6 }, (_, i) => ({
      id: `2.${i + 1}`,
      title: 'Write',
      tool: 'write-report',
      params: { path: `r${i}.md`, content: 'x'.repeat(share - 40) },
    }));
    const codes = validatePlan(plan, ctx).map(
      (i) => `${i.code}${i.step_index === undefined ? '' : `@${i.step_index}`}`,
    );
    expect(codes).toEqual(['PARAMS_TOO_LARGE']);
    expect(validatePlan(validPlanInput(), ctx)).toEqual([]);
  });

  it('an LLM reply over the limit is refused (PLAN-001, so the planner re-prompts) before it is parsed', () => {
    const reply = JSON.stringify({ ...validPlanInput(), assumptions: ['a'.repeat(PLAN_LIMITS.reply_chars)] });
    const err = thrown(() => parsePlanJson(reply));
    expect(err).toBeInstanceOf(PlanParseError);
    expect((err as PlanParseError).message).toBe(
      `plan is ${reply.length} characters, longer than the limit of ${PLAN_LIMITS.reply_chars}`,
    );
    expect(parsePlanJson(JSON.stringify(validPlanInput())).version).toBe(1);
  });

  it('an LLM reply nesting deeper than the limit (40,000 levels in 80 KB) is refused (PLAN-001) before it is parsed', () => {
    const deep = '['.repeat(40_000) + ']'.repeat(40_000);
    const inAPlan = JSON.stringify({ ...validPlanInput(), assumptions: [] }).replace(
      '"assumptions":[]',
      `"assumptions":[${deep}]`,
    );
    for (const reply of [deep, inAPlan]) {
      const err = thrown(() => parsePlanJson(reply));
      expect(err).toBeInstanceOf(PlanParseError);
      expect((err as PlanParseError).message).toBe(
        `plan nests objects and arrays deeper than the limit of ${PLAN_LIMITS.reply_depth} levels`,
      );
    }
  });

  it('the nesting is counted on brackets outside strings only: a string full of brackets, escaped quotes included, is no nesting', () => {
    const depth = PLAN_LIMITS.reply_depth;
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(jsonNestingExceeds(nested(depth), depth)).toBe(false);
    expect(jsonNestingExceeds(nested(depth + 1), depth)).toBe(true);
    // the value is: a backslash, a quote, then brackets; all of it inside one string
    expect(jsonNestingExceeds(JSON.stringify({ text: `\\"${nested(depth + 1)}` }), depth)).toBe(false);
  });
});
