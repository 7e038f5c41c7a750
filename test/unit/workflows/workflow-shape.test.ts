/**
 * The workflow's shape, checked: the run's state changes only inside PlanningRun (src/workflows/run.ts), the
 * workflow function stays short and no workflow file grows past 320 lines (as prettier prints it, 120 columns).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const WORKFLOWS = path.join(__dirname, '..', '..', '..', 'src', 'workflows');

function workflowFiles(dir = WORKFLOWS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? workflowFiles(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

const WRITES = [
  /\bstate(?:\.\w+|\[[^\]]+\]|!)*\.\w+\s*(?:[-+*/?|&]{0,2}=(?!=)|\+\+|--)/, // state.x = …, state.x += …, state.x ??= …
  /\bstate(?:\.\w+|\[[^\]]+\]|!)*\.(?:push|pop|shift|unshift|splice|sort|reverse|fill)\(/, // state.list.push(…)
  /Object\.assign\(\s*(?:run\.)?state\b/,
];

test('no workflow file but run.ts writes to the run state', () => {
  const offenders = workflowFiles()
    .filter((file) => path.basename(file) !== 'run.ts')
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          WRITES.some((w) => w.test(line)) ? [`${path.relative(WORKFLOWS, file)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
  expect(offenders).toEqual([]);
});

test('the write check catches the forms it is meant to', () => {
  for (const line of [
    'state.stage = x',
    'run.state.replans += 1',
    'state.steps[i]!.status = "RUNNING"',
    'state.audit.push(e)',
    'state.plan_id ??= id',
    'Object.assign(state, x)',
  ]) {
    expect(WRITES.some((w) => w.test(line))).toBe(true);
  }
  for (const line of [
    'const { state } = run;',
    'if (state.stage === "FAILED")',
    'state.steps.filter((s) => s.status !== "COMPLETED")',
  ]) {
    expect(WRITES.some((w) => w.test(line))).toBe(false);
  }
});

test('planningWorkflow is at most 60 lines and no workflow file exceeds 320', () => {
  const source = readFileSync(path.join(WORKFLOWS, 'planning.ts'), 'utf8').split('\n');
  const start = source.findIndex((l) => l.startsWith('export async function planningWorkflow'));
  const end = source.findIndex((l, i) => i > start && l === '}');
  expect(start).toBeGreaterThan(-1);
  expect(end - start + 1).toBeLessThanOrEqual(60);
  for (const file of workflowFiles())
    expect([path.relative(WORKFLOWS, file), readFileSync(file, 'utf8').split('\n').length <= 321]).toEqual([
      path.relative(WORKFLOWS, file),
      true,
    ]);
});
