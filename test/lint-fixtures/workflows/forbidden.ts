// A workflow file gone wrong, for test/unit/lint.test.ts: lint must refuse each marked line.
import { readFileSync } from 'node:fs'; // refused: Node I/O in workflow code
import { createActivities } from '../../../src/activities'; // refused: activity code as a value
import type { PlannerActivities } from '../../../src/activities'; // allowed: activities as types
import { proxyActivities } from '@temporalio/workflow'; // allowed

export async function forbiddenWorkflow(): Promise<void> {
  const { analyzeRequirements } = proxyActivities<PlannerActivities>({ startToCloseTimeout: '1 minute' });
  analyzeRequirements({ request: { goal: '' } as never }); // refused: a floating promise
  readFileSync('/etc/hostname');
  createActivities({} as never);
}
