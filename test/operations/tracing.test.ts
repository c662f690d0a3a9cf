import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import {
  prepareHeraldProcesses,
  processCallers,
  startServer,
  startWorkerProcess,
  succeeded,
  type ServerProcess,
} from '../support/server-process.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { DEFINITION } from '../support/preferences.js';
import { until } from '../support/faults.js';

const VENDOR_SECRET = 'whsec-tracing-0123456789-vendor';
const START_TIMEOUT_MS = 150_000;
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/** The spans from `span` up to its trace's root, following parents (a span exported by another process included). */
function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain = [span];
  for (let at = span; at.parentSpanId && byId.has(at.parentSpanId);) chain.push((at = byId.get(at.parentSpanId)!));
  return chain;
}

/**
 * OpenTelemetry traces over OTLP (docs/operations.md, "Traces"), from the real processes to a local
 * OTLP receiver: one trace from the trigger request through the run's jobs to the provider call. On
 * PostgreSQL the API (exporting http/json) and the worker (exporting http/protobuf) are separate
 * processes, so the trace crosses processes through the job's stored context; embedded storage is
 * one process (http/protobuf).
 */
describe('traces over OTLP', () => {
  let database: PrivateDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createPrivateDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'herald-tracing-'));
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  });

  it(
    'one trace runs from the trigger request through its jobs to the provider call',
    { timeout: 400_000 },
    async () => {
      const otlp = await startOtlpReceiver();
      const vendor = await startWebhookReceiver(VENDOR_SECRET);
      const herald = await prepareHeraldProcesses(database, {
        dataDir,
        slug: 'tracing',
        env: {
          LOG_LEVEL: 'info',
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_METRICS_EXPORTER: 'none',
          OTEL_LOGS_EXPORTER: 'none',
        },
      });
      const env = herald.env;
      const processes: ServerProcess[] = [];
      try {
        // Started from source through tsx with the SDK loading first: slow on a loaded machine, hence the long start timeout.
        if (database.url)
          processes.push(await startWorkerProcess({ ...env, OTEL_SERVICE_NAME: 'herald-worker' }, START_TIMEOUT_MS));
        const api = await startServer(
          database.url
            ? { ...env, HERALD_ROLE: 'api', OTEL_SERVICE_NAME: 'herald-api', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }
            : env,
          START_TIMEOUT_MS,
        );
        processes.push(api);
        const callers = await processCallers(() => api.port, herald.credentials(api));
        const call = (method: string, path: string, body?: unknown) =>
          succeeded(`${method} ${path}`, callers.call(method, path, body));
        const management = (method: string, path: string, body?: unknown, version = 'v1') =>
          succeeded(`${method} ${path}`, callers.management(method, path, body, version));
        await management('POST', '/preference_category/?commit=true', DEFINITION);
        await management('POST', '/template/note/', { name: 'Note', enabled_channels: ['email'] }, 'v2');
        await management(
          'POST',
          '/template/note/channel/email/variant/default/',
          { locale: 'en', content: { subject: 'Note', html: '<p>Note</p>', text: 'Note' } },
          'v2',
        );
        await management('PATCH', '/template/note/commit/', {}, 'v2');
        await management('POST', '/vendor/', {
          channel: 'email',
          provider: 'webhook',
          nickname: 'hook',
          is_default: true,
          config: { url: vendor.url, secret: VENDOR_SECRET },
        });
        await management('POST', '/workflow/traced/', {
          name: 'traced',
          category: 'order-updates',
          trigger_type: 'api',
          tree: { nodes: [{ name: 'email', node_type: 'send_email', template: 'note' }] },
        });
        await management('PATCH', '/workflow/traced/commit/');
        await call('POST', '/v1/user/traced-user/', { $email: ['traced@example.com'] });

        const accepted = await call('POST', '/trigger/', { workflow: 'traced', recipients: ['traced-user'] });
        await until(async () => vendor.received.length === 1, 30_000, 'the provider call');
        const messageId = vendor.received[0]!.body.message_id ?? vendor.received[0]!.body.id;

        // The provider call's span, once exported (the SDK's batch processor sends every 5 s).
        await until(
          async () => otlp.spans.some((s) => s.name === 'deliver email' && s.parentSpanId !== ''),
          30_000,
          'the provider call span',
        );
        const deliver = otlp.spans.find((s) => s.name === 'deliver email')!;
        const chain = ancestry(otlp.spans, deliver);
        const root = chain.at(-1)!;
        // Walked from the provider call up: the delivery job, the trigger job, their sends, the trigger request.
        expect(root).toMatchObject({ kind: SERVER, parentSpanId: '', attributes: { 'http.route': '/trigger/' } });
        expect(root.attributes['http.request.method']).toBe('POST');
        const names = chain.map((s) => s.name);
        expect(names[0]).toBe('deliver email');
        expect(chain.find((s) => /^process herald-deliver-email$/.test(s.name))?.kind).toBe(CONSUMER);
        expect(chain.find((s) => s.name === 'process herald-trigger')?.kind).toBe(CONSUMER);
        expect(chain.find((s) => /^(insert|send) herald-trigger$/.test(s.name))?.kind).toBe(PRODUCER);
        expect(chain.find((s) => /^(insert|send) herald-deliver-email$/.test(s.name))?.kind).toBe(PRODUCER);
        expect(new Set(chain.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
        expect(deliver).toMatchObject({
          kind: CLIENT,
          attributes: { 'herald.channel': 'email', 'herald.provider': 'webhook', 'herald.outcome': 'sent' },
        });
        if (messageId) expect(deliver.attributes['herald.message_id']).toBe(messageId);
        // The provider's HTTP request (undici instruments fetch) is the provider call's child, to the vendor's URL.
        await until(
          async () => otlp.spans.some((s) => s.parentSpanId === deliver.spanId && s.kind === CLIENT),
          15_000,
          'the HTTP span',
        );
        const httpCall = otlp.spans.find((s) => s.parentSpanId === deliver.spanId && s.kind === CLIENT)!;
        expect(httpCall).toMatchObject({ traceId: root.traceId, attributes: { 'url.full': vendor.url } });
        expect(accepted).toBeTruthy();
        if (database.url) {
          // Two processes, two encodings, one trace: the request from the API, the jobs' processing from the worker.
          expect(root).toMatchObject({ service: 'herald-api', encoding: 'json' });
          expect(deliver).toMatchObject({ service: 'herald-worker', encoding: 'protobuf' });
          // SQL statements inside the request are spans of the trace too (pg, on PostgreSQL).
          expect(
            otlp.spans.some((s) => s.traceId === root.traceId && s.scope.includes('pg') && s.kind === CLIENT),
          ).toBe(true);
        } else {
          expect(root).toMatchObject({ service: 'herald', encoding: 'protobuf' });
        }
        expect(otlp.errors).toEqual([]);
      } finally {
        for (const p of processes)
          if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
        await Promise.all(processes.map((p) => p.exited));
        await vendor.close();
        await otlp.close();
      }
    },
  );
});
