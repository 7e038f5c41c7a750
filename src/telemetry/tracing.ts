/**
 * OpenTelemetry traces, through Temporal's interceptors (@temporalio/interceptors-opentelemetry): its plugin puts
 * the trace context in the headers of every start, signal, update, activity and child, so one run is one trace —
 * the client's StartWorkflow span, the workflow's RunWorkflow span, a span per stage (src/workflows/observability.ts),
 * StartActivity/RunActivity spans for every activity, and below them the planner's spans (./spans, ./observe): one per
 * LLM call (model, tokens, cost) and one per tool call. Spans leave over OTLP/HTTP (protobuf) when OTEL_EXPORTER_OTLP_ENDPOINT is set
 * (config.telemetry.otlpEndpoint); unset, no tracing is installed and every span here is the API's no-op.
 *
 * Workflow spans are made inside the workflow sandbox and handed to the worker through a sink, which Temporal does
 * not call while replaying, so a replayed run does not export its spans twice.
 */
import { trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { PlannerConfig } from '../config';
import { TRACER_NAME } from './spans';

export interface Tracing {
  /** Temporal's OpenTelemetry plugin: give it to Worker.create and to the Client (`plugins`). */
  plugin: OpenTelemetryPlugin;
  /** Flushes the spans not yet exported and stops. */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

/**
 * Installs the process's tracer provider with `spanProcessor` (an OTLP batch exporter, or a test's in-memory one)
 * and returns Temporal's plugin bound to it. A process has one provider: a second call returns the first.
 */
export function startTracing(spanProcessor: SpanProcessor, serviceName = TRACER_NAME): Tracing {
  if (installed) return installed;
  const resource = new Resource({ 'service.name': serviceName });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The async-hooks context manager carries the activity's span into the LLM and tool spans made under it.
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  const plugin = new OpenTelemetryPlugin({ resource, spanProcessor, tracer: provider.getTracer(TRACER_NAME) });
  const tracing: Tracing = {
    plugin,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      installed = undefined;
    },
  };
  installed = tracing;
  return tracing;
}

/** Tracing to the configured OTLP endpoint, or undefined when OTEL_EXPORTER_OTLP_ENDPOINT is unset. */
export function tracingFromConfig(config: PlannerConfig): Tracing | undefined {
  const endpoint = config.telemetry.otlpEndpoint;
  if (!endpoint) return undefined;
  return startTracing(new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` })));
}

/** The Temporal plugins tracing needs: [] when it is off. */
export function tracingPlugins(tracing: Tracing | undefined): OpenTelemetryPlugin[] {
  return tracing ? [tracing.plugin] : [];
}
