/**
 * Determinism guard: histories recorded from the workflow tests (`RECORD_HISTORIES=1 npm test`) are replayed
 * against today's workflow code. A change that would break running workflows fails here; ship it behind patched().
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../support/temporal';

const { History } = temporal.api.history.v1;
const dir = path.resolve(__dirname, '..', 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.binpb')).sort();
const load = (file: string) => History.decode(readFileSync(path.join(dir, file)));

async function replay(history: temporal.api.history.v1.IHistory, workflowId: string) {
  const results = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: workflowBundle() }, [{ workflowId, history }])) results.push(result);
  return results;
}

const RECORDED = ['scenario-completed', 'clarification-answered', 'replan-after-failure', 'budget-raised'];
/** Recorded after BOUNDED_STATE_PATCH (test/temporal/run-bounds.test.ts): archive activities and the rejection cap. */
const BOUNDED = ['rejections-capped'];
/** Recorded after the step-kind and outcome-unknown patches (test/temporal/step-kinds-live.test.ts). */
const STEP_KINDS = ['step-kinds-llm', 'step-kinds-human', 'step-kinds-outcome-unknown-retried'];
/** Watched while it ran (test/temporal/operator.test.ts): waitForProgress updates and the timers of their waits. */
const WATCHED = ['progress-watched'];
/** Recorded after CONSOLIDATED_PATCH: one patch marker, search attributes when parked. */
const CONSOLIDATED = RECORDED.map((n) => `consolidated-${n}`);
/** Recorded after LEAN_STEPS_PATCH: lean step inputs, fewer promises per step. */
const LEAN_STEPS = RECORDED.map((n) => `lean-steps-${n}`);
/** Recorded after ONE_PROMISE_PER_STEP_PATCH: steps started by startStep. */
const ONE_PROMISE_PER_STEP = RECORDED.map((n) => `one-promise-per-step-${n}`);
/** Recorded after MEMO_FROM_START_PATCH (test/temporal/planning-workflow.test.ts): no memo update where the start set it. */
const MEMO_FROM_START = RECORDED.map((n) => `memo-from-start-${n}`);
/** Recorded after RUN_CHAIN_KEYS_PATCH (test/temporal/effect-keys.test.ts): a second run under a reused id, its side effect keyed by its chain. */
const EFFECT_CHAIN = ['effect-chain-reused-id'];

test('the planning histories recorded from the workflow tests are committed, from before and after the lean patch', () => {
  // legacy-*: recorded before LEAN_PLANNING_PATCH; they must keep replaying on the old path.
  // The others were recorded before BOUNDED_STATE_PATCH and must keep replaying without archiving; consolidated-*
  // past CONSOLIDATED_PATCH, lean-steps-* past LEAN_STEPS_PATCH, one-promise-per-step-* past ONE_PROMISE_PER_STEP_PATCH
  // and memo-from-start-* on today's path.
  expect(files).toEqual(
    expect.arrayContaining([...RECORDED, ...RECORDED.map((n) => `legacy-${n}`), ...BOUNDED, ...STEP_KINDS, ...WATCHED, ...CONSOLIDATED, ...LEAN_STEPS, ...ONE_PROMISE_PER_STEP, ...MEMO_FROM_START, ...EFFECT_CHAIN].map((n) => `${n}.binpb`)),
  );
});

test.each(files)('%s replays without nondeterminism', async (file) => {
  const [result] = await replay(load(file), file);
  expect(result!.error).toBeUndefined();
});

const json = (payload: temporal.api.common.v1.IPayload | undefined) => JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as Record<string, unknown>;
const patchesOf = (events: temporal.api.history.v1.IHistoryEvent[]) =>
  events.flatMap((e) => (e.markerRecordedEventAttributes?.markerName === 'core_patch' ? [json(e.markerRecordedEventAttributes.details!['patch-data']!.payloads![0]).id] : []));

test('lean-steps-*, one-promise-per-step-* and memo-from-start-* were recorded on those paths: one patch marker each, and lean step inputs', () => {
  for (const [names, patch] of [[LEAN_STEPS, 'lean-steps'], [ONE_PROMISE_PER_STEP, 'one-promise-per-step'], [MEMO_FROM_START, 'memo-from-start']] as const) {
    for (const name of names) {
      const events = load(`${name}.binpb`).events!;
      const inputs = events.flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeStep' ? [json(e.activityTaskScheduledEventAttributes.input!.payloads![0])] : []));
      expect([name, patchesOf(events)]).toEqual([name, [patch]]);
      expect(inputs.length).toBeGreaterThan(0);
      for (const input of inputs) expect([name, Object.keys(input).filter((k) => ['workflow_id', 'plan_id', 'tool_catalog', 'idempotency_scope'].includes(k))]).toEqual([name, []]);
    }
  }
});

test('effect-chain-reused-id was recorded past RUN_CHAIN_KEYS_PATCH: its step scope names the namespace and first run id', () => {
  const events = load('effect-chain-reused-id.binpb').events!;
  const firstRunId = events[0]!.workflowExecutionStartedEventAttributes!.firstExecutionRunId!;
  const scopes = events.flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeStep' ? [json(e.activityTaskScheduledEventAttributes.input!.payloads![0]).idempotency_scope] : []));
  expect(patchesOf(events)).toEqual(['side-effect-keys-per-namespace-and-run-chain']); // it implies every earlier one
  expect(scopes).toEqual([expect.stringMatching(new RegExp(`^default/${firstRunId}/weekly-report-.+:k\\.1$`))]);
});

test('memo-from-start-scenario-completed, started as PlannerClient starts runs, has no memo update; the run before the patch had one', () => {
  const memoUpdates = (name: string) => load(`${name}.binpb`).events!.filter((e) => e.workflowPropertiesModifiedEventAttributes).length;
  expect([memoUpdates('memo-from-start-scenario-completed'), memoUpdates('one-promise-per-step-scenario-completed')]).toEqual([0, 1]);
});

test('a history the code would not produce is caught as nondeterministic', async () => {
  const history = load('legacy-scenario-completed.binpb');
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType!.name = 'generatePlan'; // the code schedules analyzeRequirements first
  const [result] = await replay(history, 'tampered');
  expect(result!.error?.name).toMatch(/DeterminismViolationError/);
});
