import {
  BudgetExceededError,
  InvalidInputError,
  InvalidTransitionError,
  LlmCallError,
  PlanParseError,
  PlanSchemaError,
  PlannerError,
  PlanningExhaustedError,
  PlanningTimeoutError,
  PlanValidationError,
  StepFailedError,
  TemplateResolutionError,
} from '../../../src/domain/errors';

describe('PlannerError hierarchy', () => {
  const cases: [PlannerError, string, string, boolean][] = [
    [new PlanParseError('bad'), 'PlanParseError', 'PLAN-001', false],
    [new PlanSchemaError('plan', ['a: b']), 'PlanSchemaError', 'PLAN-002', false],
    [new PlanValidationError([]), 'PlanValidationError', 'PLAN-003', false],
    [
      new BudgetExceededError([{ dimension: 'calls', required: 3, available: 1 }]),
      'BudgetExceededError',
      'PLAN-004',
      false,
    ],
    [new LlmCallError('503', { retryable: true }), 'LlmCallError', 'PLAN-005', true],
    [new InvalidInputError('x', 'Fix the x field.'), 'InvalidInputError', 'PLAN-006', false],
    [new InvalidTransitionError('CREATED', 'EXECUTING', 'no'), 'InvalidTransitionError', 'PLAN-006', false],
    [new PlanningTimeoutError('slow'), 'PlanningTimeoutError', 'PLAN-007', true],
    [new StepFailedError('boom', { retryable: true }), 'StepFailedError', 'PLAN-008', true],
    [
      new TemplateResolutionError('missing_result', 'no result', { step_index: 0 }),
      'TemplateResolutionError',
      'PLAN-008',
      false,
    ],
    [new PlanningExhaustedError(3, new PlanSchemaError('plan', ['x: y'])), 'PlanningExhaustedError', 'PLAN-009', false],
  ];

  it.each(cases)('%#: %p has name, code and retryable', (err, name, code, retryable) => {
    expect(err).toBeInstanceOf(PlannerError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe(name);
    expect(err.code).toBe(code);
    expect(err.retryable).toBe(retryable);
    expect(err.hint.length).toBeGreaterThan(10);
  });

  it('toFailureDetails is plain JSON that survives a round trip', () => {
    const err = new BudgetExceededError([{ dimension: 'cost_usd', required: 2, available: 0.5 }]);
    const details = err.toFailureDetails();
    expect(JSON.parse(JSON.stringify(details))).toEqual(details);
    expect(details).toEqual({
      code: 'PLAN-004',
      message: 'budget exceeded: cost_usd required 2, available 0.5',
      hint: err.hint,
      details: { shortfalls: [{ dimension: 'cost_usd', required: 2, available: 0.5 }] },
    });
  });

  it('subclasses can be caught as their parents', () => {
    expect(new InvalidTransitionError('A', 'B', 'r')).toBeInstanceOf(InvalidInputError);
    expect(new TemplateResolutionError('unresolved_path', 'm', {})).toBeInstanceOf(StepFailedError);
  });

  it('PlanningExhaustedError keeps the last error as cause and in details', () => {
    const last = new PlanSchemaError('plan', ['tasks: required']);
    const err = new PlanningExhaustedError(3, last);
    expect(err.cause).toBe(last);
    expect(err.details).toMatchObject({ attempts: 3, last_error: { code: 'PLAN-002' } });
  });

  it('StepFailedError keeps the default hint when none is given', () => {
    expect(new StepFailedError('x', { retryable: false, hint: undefined }).hint).toMatch(/re-plan/);
  });
});
