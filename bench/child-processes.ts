/** Child processes of the bench scripts (workers they spawn and kill). */
import type { ChildProcess } from 'node:child_process';

/** Whether the child has ended, by exit or by signal. */
export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}
