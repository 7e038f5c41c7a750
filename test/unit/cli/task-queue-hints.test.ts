/**
 * Printed hints name the task queue a command must use: `planner dev`'s Try line (dev always runs on the local server
 * at localhost:7233, which tests do not start, so its line is checked here) and the demo's stop message add
 * `--task-queue q` for any queue but the default, shell-quoted. The hints printed against a real server are checked in
 * test/temporal/cli-operator.test.ts.
 */
import { devTryLine } from '../../../src/cli/commands/workers';
import { taskQueueFlag } from '../../../src/cli/context';
import { DEFAULT_TASK_QUEUE } from '../../../src/config';

test("planner dev's Try line starts a run on the workers' own task queue", () => {
  expect(devTryLine(DEFAULT_TASK_QUEUE)).toBe('Try: planner start "Get contaminated shipments from last week" --wait');
  expect(devTryLine('team-a')).toBe(
    'Try: planner start "Get contaminated shipments from last week" --wait --task-queue team-a',
  );
});

test('a queue that a shell would split or expand comes out as one quoted argument', () => {
  expect(taskQueueFlag('team a;rm -rf ~')).toBe(` --task-queue 'team a;rm -rf ~'`);
  expect(taskQueueFlag(DEFAULT_TASK_QUEUE)).toBe('');
});
