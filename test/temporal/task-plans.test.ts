/**
 * Plans of several tasks on the real dev server (the demo catalog, the ranking planner): a goal of two separable
 * parts, where the second needs the first's data, runs as two tasks, the second after the first; the verifier checks
 * each task's acceptance criteria and `planner start --wait --json` reports them. A task whose results break a test
 * criterion is re-planned (its steps run again) and, failing again with no re-plan left, ends the run naming the
 * criterion.
 */
import type { ToolImplementation } from '../../src/tools/tool';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { plannerCliJson, runPlannerCli } from '../support/cli';
import { startTestPlanner, type TestPlanner } from '../support/planner-workers';

const GOAL = 'Get contaminated shipments from last week and show me the contaminant details';

/** `shipments` answering with rows dated in 1999, whatever period it was asked for. */
function shipmentsFromTheWrongYear(tool: ToolImplementation): ToolImplementation {
  if (tool.spec.name !== 'shipments') return tool;
  return {
    ...tool,
    async run(params, ctx) {
      const out = await tool.run(params, ctx);
      const rows = Array.isArray(out.data) ? (out.data as Record<string, unknown>[]) : [];
      return { ...out, data: rows.map((r) => ({ ...r, shipped_on: '1999-01-01' })) };
    },
  };
}

let pack: WastePack;
let planner: TestPlanner;
let wrongYear: TestPlanner;

const start = <T = any>(queue: string, ...args: string[]) =>
  plannerCliJson<T>(['start', GOAL, '--planner', 'ranking', '--wait', ...args], {
    TEMPORAL_UI_URL: '',
    PLANNER_TASK_QUEUE: queue,
  });

beforeAll(async () => {
  pack = await createWastePack({ today: new Date() });
  planner = await startTestPlanner(pack, { prefix: 'tasks' });
  wrongYear = await startTestPlanner(pack, { prefix: 'tasks-1999', wrap: shipmentsFromTheWrongYear });
});
afterAll(async () => {
  await planner?.stop();
  await wrongYear?.stop();
  await pack?.close();
});
jest.setTimeout(300_000);

test('a goal of two parts runs as two tasks, the second after the first, each with criteria the verifier reported', async () => {
  const view = await start(planner.taskQueue, '--id', `tasks-${planner.taskQueue}`);
  expect(view.stage).toBe('COMPLETED');
  const tasks = view.plan.tasks as any[];
  expect(tasks.length).toBeGreaterThanOrEqual(2);
  expect(tasks[1].dependsOn).toEqual([tasks[0].id]);
  expect(tasks[1].steps[0].params.shipment_ids).toBe('${step[0].data.*.id}'); // the data it needs
  for (const task of tasks) {
    expect(task.acceptanceCriteria.length).toBeGreaterThan(0);
    expect(task.checked).toEqual({ passed: true });
    for (const c of task.acceptanceCriteria)
      expect(c.result).toEqual({ passed: expect.any(Boolean), detail: expect.any(String) });
    expect(task.acceptanceCriteria.filter((c: any) => c.test).every((c: any) => c.result.passed)).toBe(true);
  }
  expect(tasks[0].acceptanceCriteria.map((c: any) => c.assertion.kind)).toContain('values_in_range');
  expect(tasks[1].acceptanceCriteria.map((c: any) => c.assertion.kind)).toContain('values_among');
});

test('rows outside the asked period fail the date criterion: the task is re-planned, then the run ends naming it', async () => {
  const run = await runPlannerCli(
    ['start', GOAL, '--planner', 'ranking', '--wait', '--id', `tasks-1999-${wrongYear.taskQueue}`, '--json'],
    { TEMPORAL_UI_URL: '', PLANNER_TASK_QUEUE: wrongYear.taskQueue },
  );
  expect(run.code).not.toBe(0); // a run that does not complete exits non-zero, its JSON view on stdout all the same
  const view = JSON.parse(run.stdout);
  expect(view.stage).toBe('FAILED');
  expect(view.failure.code).toBe('PLAN-008');
  expect(view.failure.message).toMatch(
    /task 1 failed acceptance criteria AC-1\.1 \(every row of step 1\.1 \(shipments\) has shipped_on from/,
  );
  expect(view.failure.message).toContain('"1999-01-01"');
  expect(view.versions.length).toBe(3); // two re-plans (max_replans 2), each after the failed check
  expect(view.plan.tasks[0].checked).toEqual({ passed: false });
  expect(view.plan.tasks[1].steps[0].status).toBe('PENDING'); // task 2 never started: task 1 did not pass
});
