import { trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { installTracer } from './spans.js';

/**
 * OpenTelemetry traces over OTLP (docs/operations.md, "Traces"). Loaded only when tracing is on
 * (`tracingWanted` in config.ts), and before the rest of the server: the pg instrumentation patches
 * `pg` as it loads. The SDK reads the standard variables itself (OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES …).
 *
 * A trace: the trigger request (Fastify's request and handler spans, @fastify/otel), the SQL it runs
 * (pg, on PostgreSQL), the jobs it queues (pg-boss's `send`/`insert` spans; the job carries the trace
 * context and its `process` span continues the trace), and each provider call (`deliver <channel>`,
 * spans.ts) with the HTTP requests it makes (undici, which also serves `fetch`).
 */
export interface Tracing {
  /** Sends the spans still buffered, then stops the SDK. */
  shutdown(): Promise<void>;
}

export function startTracing(): Tracing {
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ? undefined : 'herald',
    instrumentations: [
      // Every Fastify instance this process builds gets the plugin at its creation (the API, a worker's status app).
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      // Spans for statements inside a request, job or provider call only, not for pg-boss's polling between them.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  installTracer(trace.getTracer('herald'));
  return {
    async shutdown() {
      installTracer(undefined);
      await sdk.shutdown();
    },
  };
}
