/**
 * How the eval grades a run beyond its status (bench/eval-harness.ts): the answer its steps returned against the
 * gold calls' data (bench/eval-gold.ts), and the plan against the gold plan. Pure functions over plain values.
 *
 * Answer right: every gold answer entry is matched — the set of rows of the union of the entry's gold calls equals
 * either one completed run step's rows of the same tool, or the union of the rows of all the run's steps of that
 * tool — and every `answer_text` occurs in the JSON text of some completed step's data. Rows compare by their `id`
 * when they have one, else by canonical JSON.
 */
import { z } from 'zod';
import type { PlanningState } from '../src/api';
import { canonicalJson } from '../src/domain/canonical-json';
import { flattenSteps, type Plan } from '../src/domain/plan';
import { isRecord } from '../src/domain/walk';
import type { GoalKind } from './eval-harness';
import { round } from './figures';

const callIndex = z.number().int().min(0).max(19);

/** In gold params: the absolute path of the folder the goal's catalog serves (bench/eval-gold.ts puts it in). */
export const ROOT_PLACEHOLDER = '${ROOT}';

export const GoldCallSchema = z
  .object({
    tool: z.string().min(1).max(200),
    /** Literal values only (and ROOT_PLACEHOLDER): a gold call runs as it stands, without the steps a plan's templates would read. */
    params: z
      .record(z.string(), z.unknown())
      .refine((p) => canonicalJson(p).length <= 8_192, 'must be at most 8192 characters of JSON')
      .refine(
        (p) => !canonicalJson(p).split(ROOT_PLACEHOLDER).join('').includes('${'),
        'must be literal (no ${...} templates but ${ROOT})',
      ),
  })
  .strict();

export const GoldSchema = z
  .object({
    /** The gold plan's tool calls, for the eval's pinned day. */
    calls: z.array(GoldCallSchema).max(20).default([]),
    /** Gold plan dependencies: [i, j] when call i feeds call j. */
    edges: z
      .array(z.tuple([callIndex, callIndex]))
      .max(50)
      .default([]),
    /** Each entry: the calls whose rows together form one part of the answer. */
    answer: z.array(z.array(callIndex).min(1).max(20)).max(20).default([]),
    /** Strings some completed step's data (as JSON text) must contain. */
    answer_text: z.array(z.string().min(1).max(500)).max(20).default([]),
  })
  .strict()
  .refine((g) => [...g.edges.flat(), ...g.answer.flat()].every((i) => i < g.calls.length), {
    message: 'edges and answer name calls by their index in calls',
  });
export type Gold = z.output<typeof GoldSchema>;

/** A completed step of a run: its tool (null for llm, human and noop steps) and the data it returned. */
export interface RunStepData {
  tool: string | null;
  data: unknown;
}

/** A step's data as rows: an array's elements; nothing for null; any other value is one row. */
export function rowsOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  return data === null || data === undefined ? [] : [data];
}

/** What a row is compared by: its `id` when it has one, else its canonical JSON. */
export function rowKey(row: unknown): string {
  const id = isRecord(row) ? row.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? `id ${canonicalJson(id)}` : `row ${canonicalJson(row)}`;
}

const keysOf = (datas: readonly unknown[]) => new Set(datas.flatMap(rowsOf).map(rowKey));
const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((k) => b.has(k));

/** The parts of the gold answer a run's completed steps do not give, in words; empty when the answer is right. */
export function unmatchedAnswer(gold: Gold, goldData: readonly unknown[], steps: readonly RunStepData[]): string[] {
  const misses: string[] = [];
  gold.answer.forEach((entry, n) => {
    const tools = new Set(entry.map((i) => gold.calls[i]!.tool));
    const want = keysOf(entry.map((i) => goldData[i]));
    const candidates = steps.filter((s) => s.tool !== null && tools.has(s.tool));
    const matched =
      candidates.length > 0 &&
      (candidates.some((s) => sameSet(keysOf([s.data]), want)) || sameSet(keysOf(candidates.map((s) => s.data)), want));
    if (!matched)
      misses.push(
        `answer[${n}] (${[...tools].join('+')}: ${want.size} row(s); the run's: ${candidates.map((s) => rowsOf(s.data).length).join(', ') || 'no step'})`,
      );
  });
  const texts = steps.map((s) => JSON.stringify(s.data) ?? '');
  for (const text of gold.answer_text)
    if (!texts.some((t) => t.includes(text))) misses.push(`answer_text ${JSON.stringify(text)}`);
  return misses;
}

/**
 * Whether the run gave the right answer; null when the goal has no gold to grade it by. Impossible goals: as the
 * status verdict (IMPOSSIBLE, missing named, run FAILED). Partial ones need the status verdict too (PARTIAL, missing
 * named, COMPLETED); feasible and vague ones a COMPLETED run. Then the answer must match the gold.
 */
export function gradeAnswer(
  goal: { kind: GoalKind; gold?: Gold | undefined },
  verdict: { expected: boolean; outcome: string },
  run: { stage: string; steps: readonly RunStepData[]; goldData: readonly unknown[] | undefined },
): { answer_right: boolean | null; answer_outcome: string } {
  if (goal.kind === 'impossible') return { answer_right: verdict.expected, answer_outcome: verdict.outcome };
  if (!goal.gold) return { answer_right: null, answer_outcome: 'no gold answer' };
  if (!run.goldData) return { answer_right: null, answer_outcome: 'gold calls not executed' };
  if (goal.kind === 'partial' && !verdict.expected) return { answer_right: false, answer_outcome: verdict.outcome };
  if (run.stage !== 'COMPLETED') return { answer_right: false, answer_outcome: `run ${run.stage}` };
  const misses = unmatchedAnswer(goal.gold, run.goldData, run.steps);
  return misses.length === 0
    ? { answer_right: true, answer_outcome: 'answer matches the gold' }
    : { answer_right: false, answer_outcome: `misses ${misses.join('; ')}` };
}

/** F1 of two multisets: 1 when both are empty. */
export function multisetF1(got: readonly string[], want: readonly string[]): number {
  if (got.length === 0 && want.length === 0) return 1;
  const left = new Map<string, number>();
  for (const w of want) left.set(w, (left.get(w) ?? 0) + 1);
  let hits = 0;
  for (const g of got) {
    const n = left.get(g) ?? 0;
    if (n > 0) {
      hits += 1;
      left.set(g, n - 1);
    }
  }
  return round((2 * hits) / (got.length + want.length), 3);
}

/** A plan's shape as the F1s compare it: the tools of its steps, and "tool → tool" along each depends_on between tool steps. */
export function planShape(plan: Pick<Plan, 'tasks'> | null): { tools: string[]; edges: string[] } {
  const steps = plan ? flattenSteps(plan) : [];
  const edges = steps.flatMap((s) =>
    s.depends_on.flatMap((d) => (s.tool && steps[d]?.tool ? [`${steps[d].tool} → ${s.tool}`] : [])),
  );
  return { tools: steps.flatMap((s) => (s.tool ? [s.tool] : [])), edges };
}

export function goldShape(gold: Gold): { tools: string[]; edges: string[] } {
  return {
    tools: gold.calls.map((c) => c.tool),
    edges: gold.edges.map(([i, j]) => `${gold.calls[i]!.tool} → ${gold.calls[j]!.tool}`),
  };
}

/** Share of `constraints` found, case-insensitively, in the JSON text of the plan's step params; null without constraints. */
export function constraintCoverage(
  constraints: readonly string[],
  params: readonly Record<string, unknown>[],
): number | null {
  if (constraints.length === 0) return null;
  const text = JSON.stringify(params).toLowerCase();
  return round(constraints.filter((c) => text.includes(c.toLowerCase())).length / constraints.length, 3);
}

const ID_PARAM = /^(id|.+_ids?)$/i;

function literalsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(literalsOf);
  if (typeof value === 'number') return [String(value)];
  return typeof value === 'string' && value !== '' && !value.includes('${') ? [value] : [];
}

/**
 * The id params (`id`, `*_id`, `*_ids`, at any depth) of a plan's steps given a literal value that the user never
 * said (`userText`: the goal and any answer): ids the planner made up instead of reading them from a step.
 */
export function unverifiedIdLiterals(params: readonly Record<string, unknown>[], userText: string): string[] {
  const said = userText.toLowerCase();
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isRecord(value)) return;
    for (const [key, v] of Object.entries(value)) {
      if (ID_PARAM.test(key))
        found.push(
          ...literalsOf(v)
            .filter((l) => !said.includes(l.toLowerCase()))
            .map((l) => `${key}=${l}`),
        );
      else visit(v);
    }
  };
  params.forEach(visit);
  return found;
}

/** Failures that mean the planner never produced a plan that passed validation. */
const INVALID_PLAN_CODES = new Set(['PLAN-001', 'PLAN-002', 'PLAN-003', 'PLAN-009']);

/**
 * The run's plan passed validation: it has a plan, did not fail for an invalid one, and either reached execution
 * (a step left PENDING) or ended on its plan's status (IMPOSSIBLE).
 */
export function planValid(state: Pick<PlanningState, 'plan' | 'steps' | 'failure'>): boolean {
  if (!state.plan || (state.failure && INVALID_PLAN_CODES.has(state.failure.code))) return false;
  return state.plan.status === 'IMPOSSIBLE' || state.steps.some((s) => s.status !== 'PENDING');
}
