/**
 * The CLI never crashes on what a user types: random arguments end in a usage error (2) or, when they parse, in the
 * one-line "cannot reach Temporal" error (1) against a closed port; never a thrown error, never a stack trace.
 */
import fc from 'fast-check';
import { main } from '../../../src/cli/planner';

const CLOSED = ['--address', '127.0.0.1:1'];

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    process.exitCode = undefined;
    return { code: await main(['node', 'planner', ...args]), stderr };
  } finally {
    write.mockRestore();
    stdout.mockRestore();
    process.exitCode = undefined;
  }
}

beforeAll(() => {
  process.env.PLANNER_CONNECT_TIMEOUT = '300ms';
});

const word = fc.string({ maxLength: 30 });

test('answer with any text: a usage error or an unreachable server, in one line', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(word, { minLength: 0, maxLength: 3 }), async (answer) => {
      const { code, stderr } = await run([...CLOSED, 'answer', 'plan-1', ...answer]);
      expect([1, 2]).toContain(code);
      expect(stderr).toMatch(/^error: /); // one error line (commander adds a "--help" line to its own)
      expect(stderr).not.toMatch(/\n\s+at /); // no stack trace without --verbose
    }),
    { numRuns: 25 },
  );
});

test('start with random budget flags: malformed numbers and policies are usage errors', async () => {
  await fc.assert(
    fc.asyncProperty(
      word,
      fc.constantFrom('--budget-calls', '--budget-cost', '--budget-tokens', '--budget-policy'),
      word,
      async (goal, flag, value) => {
        const { code, stderr } = await run([...CLOSED, 'start', goal || 'x', flag, value]);
        const pattern =
          { '--budget-policy': /^(warn|block)$/, '--budget-cost': /^\d+(\.\d+)?$/ }[flag as string] ?? /^\d+$/;
        const valid = pattern.test(flag === '--budget-policy' ? value : value.trim()) && !value.startsWith('-');
        expect(code).toBe(valid ? 1 : 2);
        expect(stderr).toMatch(/^error: /);
      },
    ),
    { numRuns: 40 },
  );
});

test('unknown commands and flags are usage errors', async () => {
  await fc.assert(
    fc.asyncProperty(fc.stringMatching(/^[a-z][a-z-]{0,12}$/), async (name) => {
      fc.pre(
        ![
          'start',
          'answer',
          'approve',
          'reject',
          'raise-budget',
          'cancel',
          'show',
          'list',
          'history',
          'dev',
          'worker',
          'help',
        ].includes(name),
      );
      const { code } = await run([name, '--no-such-flag']);
      expect(code).toBe(2);
    }),
    { numRuns: 30 },
  );
});
