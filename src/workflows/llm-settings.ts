/** What planning activities receive of a run's LLM settings (PlanningOptions.llm). */
import type { LlmSettings } from '../domain/llm-settings';
import type { PlanningRun } from './run';

/** `{llm}` only when the run sets any, so a run without them sends its activities the same input as before. */
export function llmSettingsOf(run: PlanningRun): { llm?: LlmSettings } {
  const llm = run.state.options.llm;
  return llm ? { llm } : {};
}
