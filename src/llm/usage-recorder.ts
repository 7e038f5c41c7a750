/**
 * Who hears about each LLM call as it completes. The planning activities install a recorder around their work (see
 * src/activities/planning.ts) that writes each call's usage durably before the call returns, so an activity that
 * dies afterwards still gets the call charged; outside an activity no one listens.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LlmCallUsage } from '../domain/llm-calls';

type Recorder = (usage: LlmCallUsage) => Promise<void>;

const recorder = new AsyncLocalStorage<Recorder>();

export async function recordLlmCall(usage: LlmCallUsage): Promise<void> {
  await recorder.getStore()?.(usage);
}

export function withLlmCallRecorder<T>(onCall: Recorder, run: () => Promise<T>): Promise<T> {
  return recorder.run(onCall, run);
}

/**
 * Runs `run` with the calls it makes relabelled by `label` before they reach the recorder around it: the provider
 * chain (src/llm/providers.ts) adds who answered and what was tried before.
 */
export function withLlmCallLabel<T>(label: (usage: LlmCallUsage) => LlmCallUsage, run: () => Promise<T>): Promise<T> {
  const outer = recorder.getStore();
  return recorder.run(async (usage) => {
    await outer?.(label(usage));
  }, run);
}
