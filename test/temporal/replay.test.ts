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

test('the planning histories recorded from the workflow tests are committed', () => {
  expect(files).toEqual(expect.arrayContaining(['scenario-completed.binpb', 'clarification-answered.binpb', 'replan-after-failure.binpb', 'budget-raised.binpb']));
});

test.each(files)('%s replays without nondeterminism', async (file) => {
  const [result] = await replay(load(file), file);
  expect(result!.error).toBeUndefined();
});

test('a history the code would not produce is caught as nondeterministic', async () => {
  const history = load('scenario-completed.binpb');
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType!.name = 'generatePlan'; // the code schedules analyzeRequirements first
  const [result] = await replay(history, 'tampered');
  expect(result!.error?.name).toMatch(/DeterminismViolationError/);
});
