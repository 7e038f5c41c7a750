import { findCycle, readySteps, topologicalLayers } from '../../../src/domain/dag';
import { PlanValidationError } from '../../../src/domain/errors';

const graph = (...deps: number[][]) => deps.map((depends_on) => ({ depends_on, parallel: true }));

describe('findCycle', () => {
  it('returns null for a DAG (including diamonds and forward edges)', () => {
    expect(findCycle(graph([], [0], [0], [1, 2]))).toBeNull();
    expect(findCycle(graph([1], []))).toBeNull();
    expect(findCycle([])).toBeNull();
  });

  it('names the cycle in dependency order, starting at its smallest index', () => {
    expect(findCycle(graph([1], [0]))).toEqual([0, 1, 0]);
    expect(findCycle(graph([], [2], [3], [1]))).toEqual([1, 2, 3, 1]);
    expect(findCycle(graph([], [], [2]))).toEqual([2, 2]);
    expect(findCycle(graph([], [3], [1], [2]))).toEqual([1, 3, 2, 1]);
  });

  it('ignores out-of-range dependencies', () => {
    expect(findCycle(graph([5, -1]))).toBeNull();
  });

  it('handles long chains without recursion limits', () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => ({ depends_on: i === 0 ? [19_999] : [i - 1] }));
    expect(findCycle(chain)).toHaveLength(20_001);
  });
});

describe('readySteps', () => {
  const g = graph([], [], [0, 1], [2]);

  it('returns steps whose dependencies are all done and that are not done or running', () => {
    expect(readySteps(g, new Set(), new Set())).toEqual([0, 1]);
    expect(readySteps(g, new Set([0]), new Set([1]))).toEqual([]);
    expect(readySteps(g, new Set([0, 1]), new Set())).toEqual([2]);
    expect(readySteps(g, new Set([0, 1, 2, 3]), new Set())).toEqual([]);
  });

  it('runs a non-parallel step alone', () => {
    const mixed = [
      { depends_on: [], parallel: false },
      { depends_on: [], parallel: true },
      { depends_on: [], parallel: true },
    ];
    expect(readySteps(mixed, new Set(), new Set())).toEqual([0]);
    expect(readySteps(mixed, new Set(), new Set([0]))).toEqual([]);
    expect(readySteps(mixed, new Set([0]), new Set())).toEqual([1, 2]);
    const exclusiveLater = [mixed[1]!, mixed[0]!];
    expect(readySteps(exclusiveLater, new Set(), new Set())).toEqual([0]);
    expect(readySteps(exclusiveLater, new Set(), new Set([0]))).toEqual([]);
    expect(readySteps(exclusiveLater, new Set([0]), new Set())).toEqual([1]);
  });
});

describe('topologicalLayers', () => {
  it('groups steps by dependency depth', () => {
    expect(topologicalLayers(graph([], [], [0, 1], [2], [0]))).toEqual([[0, 1], [2, 4], [3]]);
    expect(topologicalLayers(graph([1], []))).toEqual([[1], [0]]);
  });

  it('uses the longest path for depth', () => {
    expect(topologicalLayers(graph([], [0], [1], [0, 2]))).toEqual([[0], [1], [2], [3]]);
  });

  it('throws PlanValidationError naming the cycle', () => {
    expect(() => topologicalLayers(graph([], [2], [1]))).toThrow(PlanValidationError);
    expect(() => topologicalLayers(graph([], [2], [1]))).toThrow('cycle 1 → 2 → 1');
  });
});
