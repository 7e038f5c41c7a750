/** The `planner` CLI as a user runs it: bin/planner.js in a child process against the tests' dev server. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/project-root';
import { testAddress } from './temporal';

const ROOT = projectRoot();

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `planner …args` with TEMPORAL_ADDRESS on the test server, plus `env`, in `cwd` (default: the project). */
export function runPlannerCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/planner.js'), ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: 'default', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `planner …args --json`, parsed; a non-zero exit throws with its stderr. */
export async function plannerCliJson<T>(args: string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  const run = await runPlannerCli([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`planner ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

export interface LiveCli {
  /** Everything printed so far (stdout and stderr, interleaved as it came). */
  output(): string;
  /** Resolves with the output once it matches `pattern` (searching after `from`), or fails after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<string>;
  write(text: string): void;
  exited: Promise<number | null>;
  kill(): void;
}

/**
 * `planner …args` running in the background in `cwd` (default: the project), read as it prints. With `terminal`, it
 * runs on a pseudo-terminal hosted by util-linux `script` (stdin and stdout are TTYs to it, as at a person's
 * terminal); what is written goes to its keyboard.
 */
export function spawnPlannerCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { terminal?: boolean; cwd?: string } = {},
): LiveCli {
  const argv = [process.execPath, path.join(ROOT, 'bin/planner.js'), ...args];
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const [command, commandArgs] = options.terminal
    ? ['script', ['-qfec', quoted, '/dev/null']]
    : [argv[0]!, argv.slice(1)];
  const child = spawn(command as string, commandArgs as string[], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: 'default', TERM: 'dumb', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let text = '';
  let ended = false;
  // A terminal ends lines with \r\n; tests match \n.
  const append = (c: Buffer) => (text += c.toString().replace(/\r\n/g, '\n'));
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => ((ended = true), resolve(code))),
  );
  return {
    output: () => text,
    async waitFor(pattern, timeoutMs = 60_000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(text.slice(from))) {
        if (ended || Date.now() > deadline)
          throw new Error(`no ${pattern} in the output (${ended ? 'it exited' : `${timeoutMs} ms`}):\n${text}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return text;
    },
    write: (t) => child.stdin.write(t),
    exited,
    kill: () => child.kill('SIGTERM'),
  };
}
