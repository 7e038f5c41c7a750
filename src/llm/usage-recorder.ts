/**
 * Who hears about each LLM call as it completes. The planning activities install a recorder around their work (see
 * src/activities/planning.ts) so the usage of every answered call can be heartbeated at once and survive a crash of
 * the activity; outside an activity no one listens.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LlmCallUsage } from '../planning/planner';

const recorder = new AsyncLocalStorage<(usage: LlmCallUsage) => void>();

export function recordLlmCall(usage: LlmCallUsage): void {
  recorder.getStore()?.(usage);
}

export function withLlmCallRecorder<T>(onCall: (usage: LlmCallUsage) => void, run: () => Promise<T>): Promise<T> {
  return recorder.run(onCall, run);
}
