/**
 * The planner's own spans, through OpenTelemetry's API alone: without a tracer provider (./tracing installs one when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set) each is the API's no-op. The modules that make them (activities, tools,
 * src/worker.ts) load none of the SDK or exporter; the CLI's processes do, through ./tracing.
 */
import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { LlmCallUsage } from '../domain/llm-calls';

/** The instrumentation name of the planner's own spans (workflow stage spans use it too). */
export const TRACER_NAME = 'durable-planner';

/** Runs `fn` in a span named `name` (a child of the active one: the activity's), ended and marked failed on a throw. */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return await trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message?.slice(0, 500) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The attributes of an LLM call's span (OpenTelemetry's gen_ai conventions, and the planner's cost). */
export function llmUsageAttributes(usage: LlmCallUsage): Attributes {
  return {
    'gen_ai.usage.input_tokens': usage.prompt_tokens,
    'gen_ai.usage.output_tokens': usage.completion_tokens,
    'gen_ai.usage.cached_tokens': usage.cached_tokens,
    'planner.llm.cost_usd': usage.cost_usd,
  };
}
