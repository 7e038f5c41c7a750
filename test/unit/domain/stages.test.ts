import { InvalidTransitionError } from '../../../src/domain/errors';
import { STAGES, canTransition, isTerminal, transition, type Stage } from '../../../src/domain/stages';

describe('stage machine', () => {
  it('walks the happy path', () => {
    const path: Stage[] = [
      'CREATED',
      'ANALYZING',
      'PLANNING',
      'CRITIQUING',
      'AWAITING_APPROVAL',
      'APPROVED',
      'ROUTED',
      'EXECUTING',
      'COMPLETED',
    ];
    for (let i = 1; i < path.length; i++) expect(transition(path[i - 1]!, path[i]!)).toBe(path[i]);
  });

  it.each([
    ['CRITIQUING', 'PLANNING'], // refine
    ['EXECUTING', 'PLANNING'], // re-plan
    ['AWAITING_APPROVAL', 'PLANNING'], // human rejection
    ['ANALYZING', 'AWAITING_CLARIFICATION'],
    ['AWAITING_CLARIFICATION', 'ANALYZING'],
    ['CRITIQUING', 'APPROVED'], // auto-approval
  ] as [Stage, Stage][])('allows the loop %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it.each([
    ['CREATED', 'EXECUTING'],
    ['APPROVED', 'EXECUTING'], // must be routed first
    ['PLANNING', 'APPROVED'], // must be critiqued
    ['AWAITING_CLARIFICATION', 'PLANNING'],
    ['ROUTED', 'BUDGET_EXHAUSTED'],
    ['PLANNING', 'PLANNING'],
  ] as [Stage, Stage][])('rejects %s → %s with a typed error', (from, to) => {
    expect(() => transition(from, to)).toThrow(InvalidTransitionError);
    expect(() => transition(from, to)).toThrow(`invalid stage transition ${from} → ${to}`);
  });

  it('lets any non-terminal stage fail or be cancelled', () => {
    for (const stage of STAGES.filter((s) => !isTerminal(s))) {
      expect(transition(stage, 'FAILED')).toBe('FAILED');
      expect(transition(stage, 'CANCELLED')).toBe('CANCELLED');
    }
  });

  it('never changes a terminal stage', () => {
    for (const terminal of ['COMPLETED', 'FAILED', 'CANCELLED'] as Stage[]) {
      expect(isTerminal(terminal)).toBe(true);
      for (const to of STAGES) expect(canTransition(terminal, to)).toBe(false);
      expect(() => transition(terminal, 'PLANNING')).toThrow(`${terminal} is terminal`);
    }
  });

  it('returns from BUDGET_EXHAUSTED only to the stage it left', () => {
    for (const left of ['PLANNING', 'CRITIQUING', 'EXECUTING'] as Stage[]) {
      expect(transition(left, 'BUDGET_EXHAUSTED')).toBe('BUDGET_EXHAUSTED');
      expect(transition('BUDGET_EXHAUSTED', left, left)).toBe(left);
    }
    expect(() => transition('BUDGET_EXHAUSTED', 'EXECUTING', 'PLANNING')).toThrow(
      /must return to the stage it left \(PLANNING\)/,
    );
    expect(() => transition('BUDGET_EXHAUSTED', 'PLANNING')).toThrow(InvalidTransitionError);
    expect(() => transition('BUDGET_EXHAUSTED', 'COMPLETED', 'EXECUTING')).toThrow(InvalidTransitionError);
    expect(transition('BUDGET_EXHAUSTED', 'CANCELLED')).toBe('CANCELLED');
    expect(isTerminal('BUDGET_EXHAUSTED')).toBe(false);
  });

  it('rejects unknown stage names from untyped callers', () => {
    expect(() => transition('CREATED', 'DONE' as Stage)).toThrow(/unknown stage/);
  });
});
