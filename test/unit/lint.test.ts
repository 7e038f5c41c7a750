/**
 * Lint guards workflow purity, awaited promises and the layers: a file that breaks the rules is reported line by line.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** ESLint's messages on `fixture`, as [line, rule], and its exit status. */
function lint(fixture: string): { messages: [number, string][]; status: number | null } {
  // The ESLint CLI in its own process: its config loader needs native ESM, which jest's sandbox does not give it.
  const eslint = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--no-ignore', '--format', 'json', fixture],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const [result] = JSON.parse(eslint.stdout) as { messages: { line: number; ruleId: string }[] }[];
  return { messages: result!.messages.map((m) => [m.line, m.ruleId]), status: eslint.status };
}

test('a forbidden import in a workflow file, and a floating promise, are reported; type-only activity imports are not', () => {
  const { messages, status } = lint('test/lint-fixtures/workflows/forbidden.ts');
  expect(messages).toEqual([
    [2, '@typescript-eslint/no-restricted-imports'],
    [3, '@typescript-eslint/no-restricted-imports'],
    [9, '@typescript-eslint/no-floating-promises'],
  ]);
  expect(status).toBe(1);
});

test.each([
  ['a service module importing a value from the workflows or activities', 'tools/upward.ts'],
  ['a domain module importing from a layer above, even a type', 'domain/upward.ts'],
])('%s is reported on the marked lines (2 and 3), and nothing else', (_, fixture) => {
  const { messages, status } = lint(`test/lint-fixtures/layers/${fixture}`);
  expect(messages).toEqual([
    [2, '@typescript-eslint/no-restricted-imports'],
    [3, '@typescript-eslint/no-restricted-imports'],
  ]);
  expect(status).toBe(1);
});
