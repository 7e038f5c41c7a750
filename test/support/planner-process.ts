/**
 * The planner worker process (test/fixtures/planner-worker-process.ts, which runs as `planner worker` does): its
 * environment, and the crash drill on it. In the drill a worker plans with the scripted LLM; `crash()` SIGKILLs it
 * and starts a second one with the same environment, which takes the retries. Whatever happens, both are stopped
 * when the drill ends (the second gracefully: test/temporal/worker-shutdown.test.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScriptedLlmServer } from './scripted-llm-server';
import { killProcess, spawnFixtureWorker, testAddress, uniqueTaskQueue } from './temporal';

export interface CrashDrill {
  taskQueue: string;
  /** The workers' environment: NOTES_DIR and PLANNER_STORE_DIR are fresh temporary folders. */
  env: Readonly<Record<string, string>>;
  /** SIGKILLs the first worker and starts the second. */
  crash(): Promise<void>;
}

/** A worker process's environment: its queue, fresh NOTES_DIR and PLANNER_STORE_DIR, the scripted LLM, and `extra`. */
export function plannerProcessEnv(
  taskQueue: string,
  llm: ScriptedLlmServer,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: testAddress(),
    PLANNER_TASK_QUEUE: taskQueue,
    NOTES_DIR: mkdtempSync(path.join(os.tmpdir(), 'notes-')),
    PLANNER_STORE_DIR: mkdtempSync(path.join(os.tmpdir(), 'store-')),
    ...llm.env,
    ...extra,
  };
}

export async function withCrashDrill<T>(
  options: { prefix: string; llm: ScriptedLlmServer; env?: Record<string, string> },
  drill: (setting: CrashDrill) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueTaskQueue(options.prefix);
  const env = plannerProcessEnv(taskQueue, options.llm, options.env);
  const first = await spawnFixtureWorker('planner-worker-process.ts', env);
  let second: ChildProcess | undefined;
  try {
    return await drill({
      taskQueue,
      env,
      crash: async () => {
        await killProcess(first, 'SIGKILL');
        second = await spawnFixtureWorker('planner-worker-process.ts', env);
      },
    });
  } finally {
    await killProcess(first);
    if (second) await killProcess(second, 'SIGTERM');
  }
}
