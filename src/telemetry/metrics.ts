/**
 * Metrics on one Prometheus endpoint: the Temporal runtime's own (worker polls, task latencies, slots, …, prefixed
 * `temporal_`) and the planner's, which go through the same runtime's metric meter — the activity context's
 * `metricMeter` here, the workflow's replay-aware `metricMeter` in src/workflows/observability.ts — so nothing else
 * listens on a port and the workflow's metrics are not counted again when a run is replayed. The runtime adds the
 * labels `namespace`, `task_queue` and `activity_type` / `workflow_type` to each; docs/observability.md lists every metric.
 */
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { TelemetryOptions } from '@temporalio/worker';
import type { LlmCallUsage } from '../domain/llm-calls';
import { WORKFLOW_METRICS } from '../api/metrics';

/** The planner's metrics emitted by activities (the workflow's are in src/api/metrics.ts). */
export const ACTIVITY_METRICS = {
  llmCalls: 'planner_llm_calls_total',
  llmTokens: 'planner_llm_tokens_total',
  llmCost: 'planner_llm_cost_usd',
  llmDuration: 'planner_llm_call_duration_ms',
  toolCalls: 'planner_tool_calls_total',
  toolDuration: 'planner_tool_call_duration_ms',
} as const;

/** Histogram buckets where the runtime's defaults (milliseconds, 50 ms to 10 s) do not fit the values. */
const BUCKETS: Record<string, number[]> = {
  [ACTIVITY_METRICS.llmCost]: [0.00001, 0.0001, 0.001, 0.01, 0.1, 1],
  // A question may wait for hours: seconds to a day.
  [WORKFLOW_METRICS.clarificationWait]: [1_000, 10_000, 60_000, 300_000, 1_800_000, 3_600_000, 21_600_000, 86_400_000],
};

/** The runtime's telemetry with a Prometheus endpoint on `port` (every interface), scraped at `/metrics`. */
export function prometheusTelemetry(port: number): TelemetryOptions {
  return { metrics: { prometheus: { bindAddress: `0.0.0.0:${port}`, histogramBucketOverrides: BUCKETS } } };
}

/** The running activity's meter; outside an activity (unit tests, the CLI) there is nothing to record to. */
function activityMeter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined;
  }
}

/** One LLM call: counted by model and outcome; its tokens by kind, its cost and its duration by model. */
export function recordLlmCallMetrics(model: string, durationMs: number, usage: LlmCallUsage | undefined): void {
  const meter = activityMeter();
  if (!meter) return;
  meter
    .createCounter(ACTIVITY_METRICS.llmCalls, 'calls', 'LLM calls by model and outcome')
    .add(1, { model, outcome: usage ? 'ok' : 'error' });
  meter
    .createHistogram(ACTIVITY_METRICS.llmDuration, 'int', 'ms', 'LLM call latency')
    .record(Math.max(0, Math.round(durationMs)), { model });
  if (!usage) return;
  const tokens = meter.createCounter(ACTIVITY_METRICS.llmTokens, 'tokens', 'LLM tokens by model and kind');
  tokens.add(usage.prompt_tokens, { model, kind: 'prompt' });
  tokens.add(usage.completion_tokens, { model, kind: 'completion' });
  tokens.add(usage.cached_tokens, { model, kind: 'cached' });
  meter
    .createHistogram(ACTIVITY_METRICS.llmCost, 'float', 'usd', 'cost of one LLM call (the sum is the spend)')
    .record(usage.cost_usd, { model });
}

/** One tool call (an `executeStep` attempt) by tool and outcome (`ok`, or the error's type), and its duration. */
export function recordToolCallMetrics(tool: string, durationMs: number, outcome: string): void {
  const meter = activityMeter();
  if (!meter) return;
  meter.createCounter(ACTIVITY_METRICS.toolCalls, 'calls', 'tool calls by tool and outcome').add(1, { tool, outcome });
  meter
    .createHistogram(ACTIVITY_METRICS.toolDuration, 'int', 'ms', 'tool call latency')
    .record(Math.max(0, Math.round(durationMs)), { tool });
}
