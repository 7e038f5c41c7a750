/**
 * Shell completion: `durable-planner completion bash|zsh|fish` prints a script generated from the CLI's own commander
 * program. The bash script is sourced in a real `bash` (a child process) and asked to complete as bash would at a
 * <TAB>: the function `complete -p` names for the bin is called with COMP_WORDS / COMP_CWORD set to the typed words.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { APPROVAL_MODES } from '../../../src/api';
import { completionScript } from '../../../src/cli/completion';
import { buildProgram } from '../../../src/cli/planner';
import { BudgetPolicySchema } from '../../../src/domain/budget';
import { STAGES } from '../../../src/domain/stages';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

let dir: string;
let bashScript: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'planner-completion-'));
  // Through the command itself, as a user installs it.
  bashScript = (await run(process.execPath, [path.join(ROOT, 'bin/planner.js'), 'completion', 'bash'], { cwd: ROOT }))
    .stdout;
  writeFileSync(path.join(dir, 'completion.bash'), bashScript);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash offers after the words typed so far (the last one is the word being completed, '' for a fresh one). */
async function complete(...typed: string[]): Promise<string[]> {
  const words = typed.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const { stdout } = await run(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      [
        `source ${path.join(dir, 'completion.bash')}`,
        `COMP_WORDS=(${words}); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))`,
        // The function bash would call for this bin: the one `complete -p` shows for it.
        `fn=$(complete -p "\${COMP_WORDS[0]}" | sed -E 's/.*-F ([^ ]+).*/\\1/')`,
        `"$fn"; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ].join('\n'),
    ],
    { cwd: dir },
  );
  return stdout.split('\n').filter((line) => line !== '');
}

test('both bin names complete with the same function', async () => {
  const { stdout } = await run(
    'bash',
    ['--norc', '-c', `source completion.bash; complete -p durable-planner planner`],
    {
      cwd: dir,
    },
  );
  expect(stdout.trim().split('\n')).toEqual([
    'complete -F _durable_planner_complete durable-planner',
    'complete -F _durable_planner_complete planner',
  ]);
});

test('`durable-planner st<TAB>` completes to the command start, and an empty word offers every command', async () => {
  expect(await complete('durable-planner', 'st')).toEqual(['start']);
  expect(await complete('planner', 're')).toEqual(['reject', 'resolve', 'rerun', 'result']);
  const program = buildProgram();
  expect((await complete('durable-planner', '')).sort()).toEqual(program.commands.map((c) => c.name()).sort());
});

test("an option's fixed values complete after it, from the same lists the CLI validates against", async () => {
  expect(await complete('durable-planner', 'start', 'Check the reports', '--budget-policy', '')).toEqual(
    BudgetPolicySchema.options,
  );
  expect(await complete('durable-planner', 'start', '--approval', '')).toEqual([...APPROVAL_MODES]);
  expect(await complete('durable-planner', 'start', '--approval', 's')).toEqual(['side-effects']);
  expect(await complete('durable-planner', 'list', '--stage', 'AWAITING')).toEqual(
    STAGES.filter((s) => s.startsWith('AWAITING')),
  );
  expect(await complete('durable-planner', 'worker', '--tool-queues', '')).toEqual(['planner', 'split']);
  // A value with no fixed set (an id, a number) is not guessed.
  expect(await complete('durable-planner', 'start', '--id', '')).toEqual([]);
});

test("a command's options complete (global ones included), subcommands after their command, values of earlier options skipped", async () => {
  expect(await complete('durable-planner', 'start', '--re')).toEqual(['--require-approval', '--reuse-id']);
  expect(await complete('durable-planner', 'cancel', 'plan-1', '--')).toEqual(
    expect.arrayContaining(['--reason', '--address', '--namespace', '--json', '--verbose', '--help']),
  );
  expect(await complete('durable-planner', 'dev', '')).toEqual(['stop']);
  expect(await complete('durable-planner', 'temporal', 'i')).toEqual(['install']);
  // `--address x` is skipped over: `start` is still the command, so its options complete.
  expect(await complete('durable-planner', '--address', 'localhost:7233', 'start', '--appr')).toEqual(['--approval']);
  // `--version` at the top is the package's version; `show --version <n>` takes a plan version.
  expect(await complete('durable-planner', '--v')).toEqual(['--verbose', '--version']);
  expect(await complete('durable-planner', 'show', 'plan-1', '--version', '')).toEqual([]);
});

test('zsh runs the same function through bashcompinit; fish gets complete lines for every command and value', () => {
  const program = buildProgram();
  const zsh = completionScript(program, 'zsh');
  expect(zsh).toContain('autoload -U +X bashcompinit && bashcompinit');
  expect(zsh).toContain(bashScript.slice(bashScript.indexOf('_durable_planner_complete() {')));

  const fish = completionScript(program, 'fish');
  expect(fish).toMatch(/^for bin in durable-planner planner$/m);
  for (const command of program.commands) expect(fish).toContain(`-n '__fish_use_subcommand' -a ${command.name()} -d `);
  expect(fish).toContain(
    `complete -c $bin -f -n '__fish_seen_subcommand_from dev; and not __fish_seen_subcommand_from stop' -a stop`,
  );
  expect(fish).toContain(`-n '__fish_seen_subcommand_from start' -l approval -x -a '${APPROVAL_MODES.join(' ')}'`);
  expect(fish).toContain(`-n '__fish_seen_subcommand_from list' -l stage -x -a '${STAGES.join(' ')}'`);
});

test('an unknown shell is a usage error naming the shells', async () => {
  const refused = await run(process.execPath, [path.join(ROOT, 'bin/planner.js'), 'completion', 'powershell'], {
    cwd: ROOT,
  }).then(
    () => null,
    (err: { code: number; stderr: string }) => err,
  );
  expect(refused).toMatchObject({ code: 2 });
  expect(refused!.stderr).toMatch(/^error: invalid shell: .*\(hint: give one of bash, zsh, fish\)/);
}, 60_000);
