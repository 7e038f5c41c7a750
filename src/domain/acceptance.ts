/**
 * Checking acceptance criteria (src/domain/plan.ts `AcceptanceCriterion`) against step data: pure, so the verifier
 * activity and unit tests share it; the activity reads the data from the store and answers whether a path exists.
 */
import type { AcceptanceCriterion, Plan } from './plan';
import { isRecord } from './walk';

/** A criterion's verdict; `detail` says what was seen (the first offending row, or what was counted). */
export interface CriterionResult {
  id: string;
  description: string;
  test: boolean;
  passed: boolean;
  detail: string;
}

/** The verifier's verdict on one task of one plan version: passed when every test criterion passed. */
export interface TaskCheck {
  task: string;
  plan_version: number;
  passed: boolean;
  results: CriterionResult[];
}

const MAX_VALUES_SHOWN = 3;

function rowsOf(data: unknown): unknown[] | undefined {
  return Array.isArray(data) ? data : undefined;
}

function fieldOf(row: unknown, field: string): unknown {
  return isRecord(row) ? row[field] : undefined;
}

/** The first rows whose `field` fails `ok`, as text. */
function offending(rows: readonly unknown[], field: string, ok: (v: unknown) => boolean): string[] {
  return rows
    .filter((r) => !ok(fieldOf(r, field)))
    .slice(0, MAX_VALUES_SHOWN)
    .map((r) => JSON.stringify(fieldOf(r, field)) ?? 'undefined');
}

/**
 * One criterion's verdict. `dataOf` gives a step's data by step id (undefined: the step has no result);
 * `exists` answers a path_exists criterion (the activity looks at the file system).
 */
export function checkCriterion(
  criterion: AcceptanceCriterion,
  dataOf: (stepId: string) => { data: unknown } | undefined,
  exists: (path: string) => boolean,
): CriterionResult {
  const verdict = (passed: boolean, detail: string): CriterionResult => ({
    id: criterion.id,
    description: criterion.description,
    test: criterion.test,
    passed,
    detail,
  });
  const a = criterion.assertion;
  const result = dataOf(a.step);
  if (!result) return verdict(false, `step ${a.step} has no result`);
  switch (a.kind) {
    case 'step_completed':
      return verdict(true, `step ${a.step} completed`);
    case 'path_exists':
      return exists(a.path) ? verdict(true, `${a.path} exists`) : verdict(false, `${a.path} does not exist`);
  }
  const rows = rowsOf(result.data);
  if (!rows) return verdict(false, `step ${a.step}'s data is not a list`);
  switch (a.kind) {
    case 'rows_non_empty':
      return verdict(rows.length > 0, `${rows.length} row(s)`);
    case 'values_in_range': {
      // ISO dates compare as text; a date-time's day is its first 10 characters.
      const bad = offending(
        rows,
        a.field,
        (v) => typeof v === 'string' && v.slice(0, 10) >= a.from && v.slice(0, 10) <= a.to,
      );
      return bad.length === 0
        ? verdict(true, `${rows.length} row(s), every ${a.field} from ${a.from} to ${a.to}`)
        : verdict(false, `${a.field} outside ${a.from}…${a.to}: ${bad.join(', ')}`);
    }
    case 'values_among': {
      const source = rowsOf(dataOf(a.source_step)?.data);
      if (!source) return verdict(false, `step ${a.source_step}'s data is not a list`);
      const allowed = new Set(source.map((r) => JSON.stringify(fieldOf(r, a.source_field))));
      const bad = offending(rows, a.field, (v) => allowed.has(JSON.stringify(v)));
      return bad.length === 0
        ? verdict(
            true,
            `${rows.length} row(s), every ${a.field} among ${allowed.size} value(s) of step ${a.source_step}`,
          )
        : verdict(false, `${a.field} not among step ${a.source_step}'s ${a.source_field} values: ${bad.join(', ')}`);
    }
  }
}

/** Index of the task each flattened step belongs to. */
export function taskOfSteps(plan: Pick<Plan, 'tasks'>): number[] {
  return plan.tasks.flatMap((t, i) => t.steps.map(() => i));
}

/**
 * The steps as the scheduler sees them: each also waits for every step of the tasks its task depends on (a task's
 * steps start after the tasks it depends on are done). Plans recorded before tasks had dependencies have none.
 */
export function stepsInTaskOrder<S extends { depends_on: readonly number[] }>(
  plan: Pick<Plan, 'tasks'>,
  steps: readonly S[],
): S[] {
  const firstStep: number[] = [];
  let n = 0;
  for (const t of plan.tasks) (firstStep.push(n), (n += t.steps.length));
  const index = new Map(plan.tasks.map((t, i) => [t.id, i]));
  const taskOf = taskOfSteps(plan);
  return steps.map((s, i) => {
    const task = plan.tasks[taskOf[i]!];
    const before = (task?.depends_on ?? []).flatMap((id) => {
      const k = index.get(id);
      return k === undefined ? [] : plan.tasks[k]!.steps.map((_, j) => firstStep[k]! + j);
    });
    return before.length === 0 ? s : { ...s, depends_on: [...new Set([...s.depends_on, ...before])] };
  });
}
