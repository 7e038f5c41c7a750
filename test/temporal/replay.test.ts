/**
 * Determinism guard of the current release: the histories recorded from the workflow tests (`RECORD_HISTORIES=1`,
 * test/support/planner-workers.ts recordHistory) on a build of this package version are replayed against today's
 * workflow code. Runs of an earlier release stay pinned to the worker version that started them (src/versioning.ts),
 * so their histories are not kept: cutting a release deletes them and records these again (docs/contributing.md,
 * How to ship a workflow change).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { packageVersion } from '../../src/versioning';
import { ResumeStateSchema } from '../../src/workflows/resume';
import { buildIdsOf, workflowBundle } from '../support/temporal';

const { History } = temporal.api.history.v1;
const dir = path.resolve(__dirname, '..', 'histories');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.binpb'))
  .sort();
const load = (file: string) => History.decode(readFileSync(path.join(dir, file)));

async function replay(history: temporal.api.history.v1.IHistory, workflowId: string) {
  const results = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: workflowBundle() }, [{ workflowId, history }]))
    results.push(result);
  return results;
}

/** test/temporal/planning-workflow.test.ts: the seed scenario, a clarification, a budget pause, a re-plan, approval, continue-as-new. */
const PLANNING = [
  'scenario-completed',
  'clarification-answered',
  'budget-raised',
  'replan-after-failure',
  'rejected-then-approved',
  'continued-as-new',
];
/** test/temporal/run-bounds.test.ts: archive activities and the rejection cap. */
const BOUNDED = ['rejections-capped'];
/** test/temporal/step-kinds-live.test.ts: an llm step, a human step, an unknown outcome retried by a person. */
const STEP_KINDS = ['step-kinds-llm', 'step-kinds-human', 'step-kinds-outcome-unknown-retried'];
/** test/temporal/operator.test.ts: waitForProgress updates and the timers of their waits. */
const WATCHED = ['progress-watched'];
const RECORDED = [...PLANNING, ...BOUNDED, ...STEP_KINDS, ...WATCHED];

test('the committed histories are those the workflow tests record, and no others', () => {
  expect(files).toEqual(RECORDED.map((n) => `${n}.binpb`).sort());
});

const json = (payload: temporal.api.common.v1.IPayload | undefined) =>
  JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as Record<string, unknown>;

test.each(files)('%s was recorded on this release, without patch markers', (file) => {
  const events = load(file).events!;
  // A planner worker's version (src/versioning.ts), or '' where a test ran a bare worker with stub activities.
  const buildIds = new Set(buildIdsOf({ events }));
  expect([...buildIds].filter((id) => id !== '' && !id.startsWith(`${packageVersion()}+`))).toEqual([]);
  expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);
  const inputs = events.flatMap((e) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeStep'
      ? [json(e.activityTaskScheduledEventAttributes.input!.payloads![0])]
      : [],
  );
  // A step's input carries only what the tool worker cannot know itself.
  for (const input of inputs)
    expect(Object.keys(input).filter((k) => ['workflow_id', 'plan_id', 'tool_catalog'].includes(k))).toEqual([]);
});

/** The run's workflow id: a continued run checks that the state it carries is its own (src/workflows/resume.ts). */
function workflowIdOf(history: temporal.api.history.v1.IHistory, file: string): string {
  const input = json(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]) as {
    resume?: { workflow_id: string };
  };
  return input.resume?.workflow_id ?? file;
}

test.each(files)('%s replays without nondeterminism', async (file) => {
  const history = load(file);
  const [result] = await replay(history, workflowIdOf(history, file));
  expect(result!.error).toBeUndefined();
});

test('a history the code would not produce is caught as nondeterministic', async () => {
  const history = load('scenario-completed.binpb');
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType!.name = 'generatePlan'; // the code schedules analyzeRequirements first
  const [result] = await replay(history, 'tampered');
  expect(result!.error?.name).toMatch(/DeterminismViolationError/);
});

/**
 * A run of the previous release that continued as new after this release shipped: its next run starts on today's
 * workflow code with the state the old code carried (plans whose tasks have no dependencies, complexity or
 * acceptance criteria, no task checks), which resume.ts must still parse.
 */
test('the state the previous release carries across continue-as-new parses on this code', async () => {
  // Under Worker Versioning a long run moves to the current version when it continues as new: the new code starts a
  // new history from the carried state (resume.ts), so that state, not the old history, is what must still parse.
  const history = History.decode(readFileSync(path.join(dir, 'previous-release', 'continued-as-new.binpb')));
  const input = json(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]);
  expect(ResumeStateSchema.safeParse(input.resume).success).toBe(true);
  // The plan it carried was made by the old planner: tasks without dependencies or criteria.
  const plans = history.events!.flatMap((e) => {
    const payload = e.markerRecordedEventAttributes?.details?.result?.payloads?.[0]; // a local activity's result
    const result = payload ? (json(payload) as { plan?: { tasks?: Record<string, unknown>[] } }) : {};
    return result.plan?.tasks ? [result.plan.tasks] : [];
  });
  expect(plans.length).toBeGreaterThan(0);
  for (const tasks of plans) expect(tasks.some((t) => 'acceptance_criteria' in t || 'depends_on' in t)).toBe(false);
});
