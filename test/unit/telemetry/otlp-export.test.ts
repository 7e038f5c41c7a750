/**
 * Traces leave over OTLP/HTTP only when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans arrive as protobuf at
 * `<endpoint>/v1/traces` (a real HTTP server on 127.0.0.1 stands in for the collector); unset, nothing is installed.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../src/config';
import { inSpan } from '../../../src/telemetry/spans';
import { tracingFromConfig } from '../../../src/telemetry/tracing';

test('without OTEL_EXPORTER_OTLP_ENDPOINT there is no tracing', () => {
  expect(tracingFromConfig(loadConfig({}))).toBeUndefined();
});

test('with OTEL_EXPORTER_OTLP_ENDPOINT, spans are posted as protobuf to <endpoint>/v1/traces', async () => {
  const received: { url: string; type: string; body: Buffer }[] = [];
  const collector = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const { port } = collector.address() as AddressInfo;
  try {
    const tracing = tracingFromConfig(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/` }))!;
    expect(tracing.plugin.name).toBe('OpenTelemetryPlugin');
    await inSpan('tool shipments', { 'planner.tool': 'shipments' }, async () => 'done');
    await tracing.shutdown(); // flushes the batch
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ url: '/v1/traces', type: 'application/x-protobuf' });
    expect(received[0]!.body.includes(Buffer.from('tool shipments'))).toBe(true);
    expect(received[0]!.body.includes(Buffer.from('durable-planner'))).toBe(true);
  } finally {
    await new Promise((resolve) => collector.close(resolve));
  }
});
