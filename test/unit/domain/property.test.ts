/**
 * Hostile input never escapes the typed errors: parsePlanJson throws only PlannerError subclasses, validatePlan
 * never throws and returns structured issues, whatever text or JSON comes in.
 */
import fc from 'fast-check';
import { createBudget } from '../../../src/domain/budget';
import { topologicalLayers } from '../../../src/domain/dag';
import { diffPlans } from '../../../src/domain/diff';
import { PlanParseError, PlanSchemaError, PlannerError } from '../../../src/domain/errors';
import { flattenSteps, parsePlanJson, type Plan } from '../../../src/domain/plan';
import { validatePlan, type ValidationContext } from '../../../src/domain/validation';
import { catalog, validPlanInput } from '../../support/plans';

const ctx: ValidationContext = {
  catalog,
  constraints: { max_steps: 10, workspace_root: '/work/ws', allowed_tools: catalog.map((t) => t.name) },
  budget: createBudget({ cost_usd: 0.5, tokens: 5000, calls: 10 }),
};
const RUNS = 300;

type Segment = string | number;

function pathsOf(value: unknown, prefix: Segment[] = []): Segment[][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: [Segment, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([k, v]) => [[...prefix, k], ...pathsOf(v, [...prefix, k])]);
}

type Mutation =
  | { kind: 'set'; path: Segment[]; value: unknown }
  | { kind: 'delete'; path: Segment[] }
  | { kind: 'copy-step'; from: number };

function mutate(base: unknown, mutations: Mutation[]): unknown {
  const doc = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  for (const m of mutations) {
    if (m.kind === 'copy-step') {
      const steps = (doc.tasks as { steps: unknown[] }[] | undefined)?.[0]?.steps;
      const source = Array.isArray(steps) ? steps[m.from % Math.max(1, steps.length)] : undefined;
      if (source !== undefined) steps!.push(JSON.parse(JSON.stringify(source)));
      continue;
    }
    let parent: unknown = doc;
    for (const seg of m.path.slice(0, -1))
      parent = typeof parent === 'object' && parent !== null ? (parent as Record<Segment, unknown>)[seg] : undefined;
    if (typeof parent !== 'object' || parent === null) continue;
    const last = m.path[m.path.length - 1]!;
    if (m.kind === 'delete') {
      if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
      else delete (parent as Record<Segment, unknown>)[last];
    } else (parent as Record<Segment, unknown>)[last] = m.value;
  }
  return doc;
}

const base = validPlanInput();
const allPaths = pathsOf(base);
const paramPaths = allPaths.filter((p) => p.includes('params') && p[p.length - 1] !== 'params');
const interesting = fc.constantFrom<unknown>(
  '${step[0].data.*.id}',
  '${step[2].data[0].id}',
  '${step[9].data}',
  '${step[0].data[*].id}',
  'shipments',
  'facilities',
  'nope',
  '1.1',
  'llm',
  'sk-abcdefghijklmnopqrstuv',
  '../../etc/passwd',
  '/etc/passwd',
  '2026-13-45',
  [0],
  [1, 0],
  [2],
  [-1],
  [99],
  { nested: { deeper: [1, 'x'] } },
);
const stepFieldPaths: Segment[][] = base.tasks.flatMap((task, t) =>
  task.steps.flatMap((_step, i) =>
    ['id', 'tool', 'action', 'depends_on', 'parallel'].map((f) => ['tasks', t, 'steps', i, f]),
  ),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      path: fc.constantFrom(...stepFieldPaths),
      value: interesting,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      path: fc.constantFrom(...paramPaths),
      value: interesting,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      path: fc.constantFrom(...allPaths),
      value: fc.jsonValue({ maxDepth: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...allPaths) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('copy-step' as const), from: fc.nat(5) }) },
);

/** Runs the pipeline on `text`; fails the property on anything but a PlannerError or a well-formed result. */
function pipeline(text: string): void {
  let plan: Plan;
  try {
    plan = parsePlanJson(text);
  } catch (e) {
    if (!(e instanceof PlanParseError || e instanceof PlanSchemaError)) throw e;
    expect(e).toBeInstanceOf(PlannerError);
    return;
  }
  const issues = validatePlan(plan, ctx);
  expect(Array.isArray(issues)).toBe(true);
  for (const issue of issues) {
    expect(typeof issue.code).toBe('string');
    expect(typeof issue.message).toBe('string');
    expect(typeof issue.hint).toBe('string');
  }
  if (issues.length === 0) {
    // A valid plan can be scheduled and diffed.
    expect(topologicalLayers(flattenSteps(plan)).flat()).toHaveLength(flattenSteps(plan).length);
    expect(typeof diffPlans(parsePlanJson(JSON.stringify(base)), plan).summary).toBe('string');
  }
}

describe('parsePlanJson + validatePlan on hostile input', () => {
  it('random strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), pipeline), { numRuns: RUNS });
  });

  it('random JSON text, fenced or not', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), fc.boolean(), (json, fenced) =>
        pipeline(fenced ? '```json\n' + json + '\n```' : json),
      ),
      { numRuns: RUNS },
    );
  });

  it('random JSON values given to validatePlan directly', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const issues = validatePlan(value, ctx);
        expect(issues.length).toBeGreaterThan(0);
        expect(issues.every((i) => i.code === 'SCHEMA')).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('mutated valid plans, optionally truncated', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.option(fc.nat(2000)), (mutations, cut) => {
        const text = JSON.stringify(mutate(base, mutations));
        pipeline(cut === null ? text : text.slice(0, cut));
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('the unmutated fixture passes, so mutations start from a valid plan', () => {
    expect(validatePlan(parsePlanJson(JSON.stringify(base)), ctx)).toEqual([]);
  });
});
