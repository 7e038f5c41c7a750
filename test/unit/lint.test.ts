/** Lint guards workflow purity and awaited promises: a workflow file that breaks the rules is reported line by line. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

test('a forbidden import in a workflow file, and a floating promise, are reported; type-only activity imports are not', () => {
  // The ESLint CLI in its own process: its config loader needs native ESM, which jest's sandbox does not give it.
  const eslint = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'),
      '--no-ignore',
      '--format',
      'json',
      'test/lint-fixtures/workflows/forbidden.ts',
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  const [result] = JSON.parse(eslint.stdout) as { messages: { line: number; ruleId: string }[] }[];
  expect(result!.messages.map((m) => [m.line, m.ruleId])).toEqual([
    [2, '@typescript-eslint/no-restricted-imports'],
    [3, '@typescript-eslint/no-restricted-imports'],
    [9, '@typescript-eslint/no-floating-promises'],
  ]);
  expect(eslint.status).toBe(1);
});
