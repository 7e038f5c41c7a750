/** The DAG scheduler's decisions, without Temporal: which steps start, and why nothing more does. */
import { stepsToStart, type StepStatus } from '../../../src/domain/step-scheduler';

const step = (depends_on: number[] = [], parallel = true) => ({ depends_on, parallel });
const all = () => true;

describe('stepsToStart', () => {
  test('starts every step whose dependencies are done, at once', () => {
    const steps = [step(), step(), step([0, 1])];
    expect(stepsToStart(steps, ['PENDING', 'PENDING', 'PENDING'], all)).toEqual({ start: [0, 1], stop: null });
    expect(stepsToStart(steps, ['COMPLETED', 'RUNNING', 'PENDING'], all)).toEqual({ start: [], stop: null });
    expect(stepsToStart(steps, ['COMPLETED', 'COMPLETED', 'PENDING'], all)).toEqual({ start: [2], stop: null });
  });

  test('a step that must run alone waits for the others and starts nothing beside it', () => {
    const steps = [step(), step([], false), step()];
    expect(stepsToStart(steps, ['PENDING', 'PENDING', 'PENDING'], all)).toEqual({ start: [0, 2], stop: null });
    expect(stepsToStart(steps, ['COMPLETED', 'PENDING', 'RUNNING'], all)).toEqual({ start: [], stop: null });
    expect(stepsToStart(steps, ['COMPLETED', 'PENDING', 'COMPLETED'], all)).toEqual({ start: [1], stop: null });
  });

  test('a failed step stops new starts, so the run can re-plan', () => {
    const statuses: StepStatus[] = ['FAILED', 'PENDING', 'PENDING'];
    expect(stepsToStart([step(), step(), step()], statuses, all)).toEqual({ start: [], stop: 'failed' });
  });

  test('the first ready step the budget cannot afford stops the rest, keeping the order', () => {
    const steps = [step(), step(), step()];
    expect(stepsToStart(steps, ['PENDING', 'PENDING', 'PENDING'], (i) => i < 1)).toEqual({
      start: [0],
      stop: 'budget',
    });
  });

  test('a cancelled step is never restarted', () => {
    expect(stepsToStart([step(), step([0])], ['CANCELLED', 'PENDING'], all)).toEqual({ start: [], stop: null });
  });
});
