/**
 * The run options that put people in control (issue 37): `approval` (always | side-effects | never) with the old
 * `require_approval` mapped onto it, `four_eyes` (which needs the starter's identity), the identity a decision
 * carries, and the gate that decides whether a plan waits for a person.
 */
import { DEFAULT_PLANNING_OPTIONS, checkWorkflowInput, parseMessagePayload, approvalMode } from '../../../src/api';
import { approvalGate, sideEffectingSteps } from '../../../src/domain/approval-gate';
import { InvalidInputError } from '../../../src/domain/errors';
import { PlanSchema } from '../../../src/domain/plan';
import type { ToolRoute } from '../../../src/domain/routing';
import { validPlanInput } from '../../support/plans';

const start = (options: Record<string, unknown>, started_by?: string) =>
  checkWorkflowInput({ request: { goal: 'Check the reports' }, options, ...(started_by ? { started_by } : {}) });

function refusal(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return err as InvalidInputError;
  }
  throw new Error('expected a refusal');
}

describe('the approval option', () => {
  test('defaults to never, as require_approval defaulted to false', () => {
    expect(DEFAULT_PLANNING_OPTIONS.approval).toBe('never');
    expect(start({}).options).toMatchObject({ approval: 'never', require_approval: false });
  });

  test('the old require_approval keeps working: true is always, false is never', () => {
    expect(start({ require_approval: true }).options).toMatchObject({ approval: 'always', require_approval: true });
    expect(start({ require_approval: false }).options).toMatchObject({ approval: 'never', require_approval: false });
  });

  test('approval is taken as given, and require_approval kept in step with it (true only for always)', () => {
    expect(start({ approval: 'side-effects' }).options).toMatchObject({
      approval: 'side-effects',
      require_approval: false,
    });
    expect(start({ approval: 'always' }).options).toMatchObject({ approval: 'always', require_approval: true });
    // The parsed options parse again to themselves (continue-as-new and clients that echo them).
    const parsed = start({ approval: 'side-effects' }).options;
    expect(start(parsed).options).toEqual(parsed);
  });

  test('require_approval contradicting approval is refused with PLAN-006 naming both', () => {
    const err = refusal(() => start({ approval: 'side-effects', require_approval: true }));
    expect(err.code).toBe('PLAN-006');
    expect(err.message).toBe('invalid planning options: require_approval: true contradicts approval: side-effects');
    expect(refusal(() => start({ approval: 'always', require_approval: false })).message).toMatch(
      /contradicts approval: always/,
    );
  });

  test('an unknown mode is refused naming the modes', () => {
    expect(refusal(() => start({ approval: 'sometimes' })).message).toMatch(
      /approval: .*"always".*"side-effects".*"never"/,
    );
  });

  test('options carried from an older worker (no approval) read as their require_approval said', () => {
    expect(approvalMode({ require_approval: true })).toBe('always');
    expect(approvalMode({})).toBe('never');
  });
});

describe('four_eyes and identities', () => {
  test('four_eyes needs to know who started the run', () => {
    expect(refusal(() => start({ four_eyes: true })).message).toMatch(
      /^invalid workflow input: four_eyes needs started_by/,
    );
    expect(start({ four_eyes: true }, 'alice@finance')).toMatchObject({
      started_by: 'alice@finance',
      options: { four_eyes: true },
    });
  });

  test('an identity is bounded, one line, and redacted', () => {
    expect(refusal(() => start({}, 'x'.repeat(201))).message).toMatch(/started_by/);
    expect(refusal(() => parseMessagePayload('approve', { identity: 'alice\nadmin' })).message).toMatch(
      /identity: no control characters/,
    );
    expect(parseMessagePayload('approve', { identity: 'svc password=hunter2' }).identity).toBe(
      'svc password=[redacted]',
    );
  });

  test('every decision may carry an identity, and keeps it', () => {
    expect(parseMessagePayload('reject', { reason: 'no', identity: 'bob' }).identity).toBe('bob');
    expect(parseMessagePayload('answerClarification', { option: 1, identity: 'bob' })).toEqual({
      option: 1,
      identity: 'bob',
    });
    expect(parseMessagePayload('raiseBudget', { calls: 1, identity: 'bob' }).identity).toBe('bob');
    expect(parseMessagePayload('completeStep', { step: '1.1', answer: 'ok', identity: 'bob' }).identity).toBe('bob');
    expect(parseMessagePayload('resolveStep', { step: '1.1', decision: 'retry', identity: 'bob' }).identity).toBe(
      'bob',
    );
  });
});

describe('the approval gate', () => {
  const plan = PlanSchema.parse(validPlanInput()); // shipments, contaminants-detected (read-only) and write-report
  const route = (idempotent: boolean): ToolRoute => ({
    queues: ['q'],
    cost_per_call_usd: 0,
    tokens_per_call: 0,
    idempotent,
  });
  const readOnly = { shipments: route(true), 'contaminants-detected': route(true), 'write-report': route(true) };

  test('side-effects: a plan of read-only steps does not wait', () => {
    expect(approvalGate('side-effects', plan, readOnly)).toEqual({
      wait: false,
      why: 'approved by the gatekeeper: every step is read-only (approval: side-effects)',
    });
  });

  test('side-effects: a side-effecting step, or a tool with no route, makes the plan wait, named', () => {
    expect(approvalGate('side-effects', plan, { ...readOnly, 'write-report': route(false) })).toEqual({
      wait: true,
      why: 'a person must approve the plan: step 2.1 (write-report) has side effects (approval: side-effects)',
    });
    expect(sideEffectingSteps(plan, { shipments: route(true) })).toEqual([
      '1.2 (contaminants-detected)',
      '2.1 (write-report)',
    ]);
  });

  test('per-step: the plan never waits as a whole; the audit names the steps that will wait when reached', () => {
    expect(approvalGate('per-step', plan, readOnly)).toEqual({
      wait: false,
      why: 'approved by the gatekeeper: every step is read-only (approval: per-step)',
    });
    expect(approvalGate('per-step', plan, { ...readOnly, 'write-report': route(false) })).toEqual({
      wait: false,
      why: 'approved by the gatekeeper: step 2.1 (write-report) will wait for a person when reached (approval: per-step)',
    });
    expect(checkWorkflowInput({ request: { goal: 'g' }, options: { approval: 'per-step' } }).options.approval).toBe(
      'per-step',
    );
  });

  test('always and never do not look at the steps', () => {
    expect(approvalGate('always', plan, readOnly).wait).toBe(true);
    expect(approvalGate('never', plan, {}).wait).toBe(false);
  });
});
