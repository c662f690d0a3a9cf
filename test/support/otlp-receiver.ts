import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/**
 * A local OTLP/HTTP receiver (127.0.0.1 only): takes what an OpenTelemetry SDK exports to
 * `/v1/traces` as `http/protobuf` or `http/json`, decodes it, and keeps every span with its trace,
 * parent, links and attributes. Metrics and logs are accepted and dropped.
 *
 * The protobuf messages are the subset of opentelemetry-proto's trace.proto (with its field numbers)
 * that the assertions read; protobufjs decodes the rest of the wire format by skipping unknown fields.
 */
const TRACE_PROTO = `
syntax = "proto3";
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message Scope { string name = 1; string version = 2; }
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; repeated KeyValue attributes = 9; repeated Link links = 13; Status status = 15;
}
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;
const ExportRequest = protobuf.parse(TRACE_PROTO).root.lookupType('ExportTraceServiceRequest');

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNanos: bigint;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  /** 2 is an error. */
  statusCode: number;
  scope: string;
  service: string;
  /** How the export came: application/x-protobuf or application/json. */
  encoding: 'protobuf' | 'json';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- decoded OTLP, read field by field below
type Decoded = any;

const hex = (value: unknown, encoding: ReceivedSpan['encoding']) => {
  if (!value) return '';
  // OTLP/JSON writes ids as hex strings; protobuf as bytes.
  if (encoding === 'json') return String(value).toLowerCase();
  return Buffer.from(value as Uint8Array).toString('hex');
};

function valueOf(any: Decoded): string | number | boolean {
  if (!any) return '';
  const v = any.stringValue ?? any.boolValue ?? any.intValue ?? any.doubleValue ?? '';
  return typeof v === 'object' && v !== null
    ? Number(v.toString())
    : typeof v === 'string' && any.intValue
      ? Number(v)
      : v;
}

function attributesOf(list: Decoded[] | undefined) {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list ?? []) out[kv.key as string] = valueOf(kv.value);
  return out;
}

function spansOf(request: Decoded, encoding: ReceivedSpan['encoding']): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scopeSpans of resourceSpans.scopeSpans ?? [])
      for (const span of scopeSpans.spans ?? [])
        spans.push({
          traceId: hex(span.traceId, encoding),
          spanId: hex(span.spanId, encoding),
          parentSpanId: hex(span.parentSpanId, encoding),
          name: String(span.name),
          kind: Number(span.kind ?? 0),
          startNanos: BigInt(String(span.startTimeUnixNano ?? 0)),
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link: Decoded) => ({
            traceId: hex(link.traceId, encoding),
            spanId: hex(link.spanId, encoding),
          })),
          statusCode: Number(span.status?.code ?? 0),
          scope: String(scopeSpans.scope?.name ?? ''),
          service,
          encoding,
        });
  }
  return spans;
}

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const errors: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const type = String(request.headers['content-type'] ?? '');
        if (request.url === '/v1/traces') {
          if (type.startsWith('application/json')) spans.push(...spansOf(JSON.parse(body.toString('utf8')), 'json'));
          else
            spans.push(
              ...spansOf(
                ExportRequest.toObject(ExportRequest.decode(body), { longs: String, bytes: Buffer }),
                'protobuf',
              ),
            );
        }
        response.writeHead(200, { 'content-type': type.startsWith('application/json') ? 'application/json' : type });
        response.end(type.startsWith('application/json') ? '{}' : undefined);
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** OTEL_EXPORTER_OTLP_ENDPOINT: the SDK appends /v1/traces. */
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    /** Exports that could not be decoded. */
    errors,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
