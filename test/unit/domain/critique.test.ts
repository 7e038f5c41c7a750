import { CritiqueSchema, decide, type Critique, type GatekeeperPolicy } from '../../../src/domain/critique';

const c = (severity: Critique['severity'], critic = 'atomicity'): Critique =>
  CritiqueSchema.parse({ critic, severity, message: `${severity} found` });
const lenient: GatekeeperPolicy = { strict: false, max_refinements: 2, refinements_done: 0 };

describe('gatekeeper decide', () => {
  it('approves with no critiques, or only info and warnings under a lenient policy', () => {
    expect(decide([], lenient)).toMatchObject({ decision: 'approve', blocking: [] });
    expect(decide([c('info'), c('warning')], lenient)).toMatchObject({
      decision: 'approve',
      blocking: [],
      reason: 'no blocking critique (1 warning(s) noted)',
    });
  });

  it('asks for refinement while rounds remain, with the blocking critiques', () => {
    const error = c('error', 'budget');
    const d = decide([c('info'), error, c('warning')], { ...lenient, refinements_done: 1 });
    expect(d).toEqual({
      decision: 'refine',
      blocking: [error],
      reason: '1 blocking critique(s); refinement round 2 of 2',
    });
  });

  it('rejects when the refinement rounds are spent', () => {
    expect(decide([c('error')], { ...lenient, refinements_done: 2 })).toMatchObject({
      decision: 'reject',
      reason: '1 blocking critique(s) remain after 2 refinement round(s)',
    });
  });

  it('lets warnings block under a strict policy', () => {
    const warning = c('warning');
    expect(decide([warning, c('info')], { ...lenient, strict: true })).toMatchObject({
      decision: 'refine',
      blocking: [warning],
    });
  });
});
