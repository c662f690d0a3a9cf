import type { Attributes, Tracer } from '@opentelemetry/api';

/**
 * Herald's own spans (docs/operations.md, "Traces"). Tracing off, no tracer is installed and a span
 * helper only calls its function: nothing of OpenTelemetry's runs and nothing is allocated. The
 * tracer comes from `telemetry/tracing.ts`, which only a process with tracing on loads.
 */
let tracer: Tracer | undefined;

/** Called once by `startTracing`; `undefined` turns Herald's spans off again (tests). */
export function installTracer(next: Tracer | undefined) {
  tracer = next;
}

// The values of @opentelemetry/api's SpanKind.CLIENT and SpanStatusCode.ERROR, named here so that
// this module loads nothing of OpenTelemetry's when tracing is off.
const CLIENT = 2;
const ERROR = 2;

/**
 * One provider call as a CLIENT span, a child of the delivery job's span: `deliver <channel>` with the
 * channel, the provider and the message id, and the outcome (sent, retry, failed) once it returns. The
 * provider's own HTTP requests (undici) are its children.
 */
export async function traceProviderCall<T extends { kind: string; reason?: string }>(
  call: { channel: string; provider: string; messageId: string },
  send: () => Promise<T>,
): Promise<T> {
  if (!tracer) return send();
  const attributes: Attributes = {
    'herald.channel': call.channel,
    'herald.provider': call.provider,
    'herald.message_id': call.messageId,
  };
  return tracer.startActiveSpan(`deliver ${call.channel}`, { kind: CLIENT, attributes }, async (span) => {
    try {
      const outcome = await send();
      span.setAttribute('herald.outcome', outcome.kind);
      if (outcome.kind !== 'sent') span.setStatus({ code: ERROR, message: outcome.reason ?? outcome.kind });
      return outcome;
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
