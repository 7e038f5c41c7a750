/** The failure table of docs/messages-and-failures.md is the failure vocabulary (src/domain/errors.ts), hints included. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE_TYPES, readFailure } from '../../../src/api/failures';
import { PLANNER_ERROR_CODES } from '../../../src/domain/errors';
import * as errors from '../../../src/domain/errors';

const DOC = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'messages-and-failures.md'), 'utf8');
const rows = new Map(
  DOC.split('\n')
    .filter((line) => /^\| `\w+Error` \| `PLAN-\d{3}` \|/.test(line))
    .map((line) => {
      const [type, code, , hint] = line.split(' | ').map((cell) => cell.replace(/^\|? ?`?|`$/g, ''));
      return [type!, { code: code!, hint: hint!.replace(/ \|$/, '') }];
    }),
);

/** Each failure type with its default hint (InvalidInputError's hint is always the caller's). */
const SAMPLES: Record<keyof typeof FAILURE_TYPES, errors.PlannerError | null> = {
  PlanParseError: new errors.PlanParseError(''),
  PlanSchemaError: new errors.PlanSchemaError('', []),
  PlanValidationError: new errors.PlanValidationError([]),
  BudgetExceededError: new errors.BudgetExceededError([]),
  LlmCallError: new errors.LlmCallError('', { retryable: false }),
  InvalidInputError: null,
  InvalidTransitionError: new errors.InvalidTransitionError('A', 'B', ''),
  CatalogUnavailableError: null,
  PlanningTimeoutError: new errors.PlanningTimeoutError(''),
  StepFailedError: new errors.StepFailedError('', { retryable: false }),
  TemplateResolutionError: new errors.TemplateResolutionError('missing_result', '', {}),
  PlanningExhaustedError: new errors.PlanningExhaustedError(1, new errors.PlanParseError('')),
  PlanImpossibleError: new errors.PlanImpossibleError([]),
  PlanRejectedError: new errors.PlanRejectedError(''),
  GoalUnclearError: new errors.GoalUnclearError(''),
  WorkerFailureError: new errors.WorkerFailureError(''),
  StoreUnavailableError: new errors.StoreUnavailableError(''),
  StepOutcomeUnknownError: new errors.StepOutcomeUnknownError(''),
};

test.each(Object.entries(FAILURE_TYPES))('docs/messages-and-failures.md lists %s as %s with its hint', (type, code) => {
  expect(rows.get(type)?.code).toBe(code);
  const sample = SAMPLES[type as keyof typeof FAILURE_TYPES];
  if (sample) {
    expect(sample.name).toBe(type);
    expect(sample.code).toBe(code);
    expect(rows.get(type)!.hint.startsWith(sample.hint)).toBe(true);
  }
});

test('docs/messages-and-failures.md lists no failure type the code does not raise', () => {
  expect([...rows.keys()].sort()).toEqual(Object.keys(FAILURE_TYPES).sort());
});

test('the failure codes are the distinct codes of the table, each one a failure carries and readFailure reads back', () => {
  const codes = [...new Set(Object.values(FAILURE_TYPES))];
  expect(PLANNER_ERROR_CODES).toEqual(codes);
  expect(codes).toEqual(Array.from({ length: 14 }, (_, i) => `PLAN-${String(i + 1).padStart(3, '0')}`));
  for (const code of codes) {
    const details = { code, message: 'm', hint: 'h', details: {} };
    const failure = ApplicationFailure.create({ type: 'SomeError', message: 'm', details: [details] });
    expect(readFailure(failure)).toEqual({ type: 'SomeError', ...details });
  }
});
