/** The `planner` CLI as a user runs it: bin/planner.js in a child process against the tests' dev server. */
import { spawn, type ChildProcess } from 'node:child_process';
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
export function runPlannerCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { cwd?: string } = {}): Promise<CliRun> {
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

/** A long-running `planner …args` (e.g. `worker`), resolved once its stdout matches `ready`; stop it with killProcess. */
export async function startPlannerCli(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/planner.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: 'default', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c;
      if (ready.test(stdout)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`planner ${args.join(' ')} exited (${code}) before ready: ${stdout}${stderr}`)));
  });
  return child;
}
