/**
 * The activity side's instrumentation points: an LLM call and a tool call each get a span (under the activity's
 * span, so under the run's trace) and their metrics. No-ops when tracing is off and outside an activity.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { LlmCallUsage } from '../domain/llm-calls';
import { recordLlmCallMetrics, recordToolCallMetrics } from './metrics';
import { inSpan, llmUsageAttributes, TRACER_NAME } from './spans';

/**
 * An LLM call that began at `startedMs` and just ended with `usage` (or failed with `error`): its span, made after
 * the fact with the call's real start and end, and its metrics.
 */
export function observeLlmCall(
  model: string,
  startedMs: number,
  outcome: { usage: LlmCallUsage } | { error: unknown },
): void {
  const usage = 'usage' in outcome ? outcome.usage : undefined;
  const span = trace.getTracer(TRACER_NAME).startSpan(`llm chat ${model}`, {
    kind: SpanKind.CLIENT,
    startTime: startedMs,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': model,
      ...(usage ? llmUsageAttributes(usage) : {}),
    },
  });
  if ('error' in outcome)
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: String((outcome.error as Error)?.message ?? outcome.error).slice(0, 500),
    });
  const ended = Date.now();
  span.end(ended);
  recordLlmCallMetrics(model, ended - startedMs, usage);
}

/** Wraps a tool activity (`executeStep`) so each call has a span named after its tool, and its metrics. */
export function observedToolCall<
  I extends { tool: string; step_id: string },
  R extends { items: number | null; bytes: number; replayed: boolean },
>(run: (input: I) => Promise<R>): (input: I) => Promise<R> {
  return async (input) => {
    const tool = String(input?.tool ?? 'unknown').slice(0, 200);
    const started = Date.now();
    return await inSpan(
      `tool ${tool}`,
      { 'planner.tool': tool, 'planner.step_id': String(input?.step_id ?? '') },
      async (span) => {
        try {
          const result = await run(input);
          span.setAttributes({
            'planner.step.items': result.items ?? -1,
            'planner.step.bytes': result.bytes,
            'planner.step.replayed': result.replayed,
          });
          recordToolCallMetrics(tool, Date.now() - started, 'ok');
          return result;
        } catch (err) {
          recordToolCallMetrics(tool, Date.now() - started, (err as Error)?.name ?? 'Error');
          throw err;
        }
      },
    );
  };
}
