import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { parsePrometheusText, scrapeMetrics } from '../support/prometheus.js';
import { problemWith, routeCatalogue } from '../support/routes.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, liveWorkflow, node, settledMessages, trigger, waitFor } from '../support/engine-drivers.js';

const TOKEN = 'metrics-token-0123456789';
const SECRET = 'whsec-metrics-0123456789';

/** Label names a Herald series may carry: bounded sets only (and prom-client's process defaults). */
const BOUNDED_LABELS = new Set([
  'channel',
  'provider',
  'status',
  'queue',
  'state',
  'le',
  'version',
  'major',
  'minor',
  'patch',
  'space',
  'kind',
  'type',
]);

describe('the Prometheus text reader the scrapes go through', () => {
  it('refuses what the format does not allow', () => {
    expect(() => parsePrometheusText('# TYPE up gauge\nup{job="a} 1\n')).toThrow('malformed labels');
    expect(() => parsePrometheusText('up 1\n')).toThrow('undeclared');
    expect(() => parsePrometheusText('# TYPE up gauge\nup one\n')).toThrow('not a sample value');
    expect(() =>
      parsePrometheusText('# TYPE d histogram\nd_bucket{le="1"} 2\nd_bucket{le="+Inf"} 1\nd_count 1\n'),
    ).toThrow('not cumulative');
  });
});

describe('GET /metrics', () => {
  const t = useTestApp(
    { METRICS_TOKEN: TOKEN },
    { engine: { engine: { retryDelayScale: 0.002, deliveryTimeoutMs: 2000 } } },
  );
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(SECRET);
  });
  afterAll(() => receiver?.close());

  it('wants the METRICS_TOKEN bearer when one is set', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', TOKEN]) {
      const response = await t().app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization ? { authorization } : {},
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 401, message: expect.stringContaining('METRICS_TOKEN') });
    }
    // As its OpenAPI entry documents it: the route walkers (fuzz, soak) judge it by that.
    const route = (await routeCatalogue(t().app)).find((r) => r.method === 'GET' && r.path === '/metrics')!;
    expect(route.surface).toBe('public');
    const answer = await t().app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(problemWith(route, answer)).toBeUndefined();
    expect(problemWith(route, await t().app.inject({ method: 'GET', url: '/metrics' }))).toBeUndefined();
    const scrape = await scrapeMetrics(t().app, TOKEN);
    expect(scrape.contentType).toContain('text/plain');
    expect(scrape.contentType).toContain('version=0.0.4');
    expect(scrape.family('process_cpu_seconds_total')?.type).toBe('counter');
    expect(scrape.family('nodejs_heap_size_used_bytes')?.type).toBe('gauge');
    expect(scrape.family('herald_triggers_accepted_total')?.type).toBe('counter');
    expect(scrape.family('herald_messages_total')?.type).toBe('counter');
    expect(scrape.family('herald_delivery_duration_seconds')?.type).toBe('histogram');
  });

  it('counts accepted triggers, provider calls by outcome and their durations, with no unbounded label', async () => {
    const ws = await engineWorkspace(t);
    const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'webhook',
      is_default: true,
      config: { url: receiver.url, secret: SECRET },
    });
    expect(vendor.statusCode).toBe(201);
    await liveWorkflow(t, ws, 'metered', [node('send_email', { template: 'receipt' })]);
    const before = await scrapeMetrics(t().app, TOKEN);
    const series = { channel: 'email', provider: 'webhook' };
    // The first call fails transiently (503, retried), the second succeeds.
    receiver.plan('metered-user', [{ status: 503 }, { status: 200 }]);
    const accepted = await trigger(t, ws, {
      workflow: 'metered',
      recipients: [{ distinct_id: 'metered-user', $email: ['metered-user@example.com'] }],
      data: {},
    });
    expect(accepted.statusCode).toBe(202);
    const refused = await trigger(t, ws, { workflow: 'no-such-workflow', recipients: ['someone'], data: {} });
    expect(refused.statusCode).toBe(404);
    const [message] = await settledMessages(t, ws, accepted.json().message_id, 1, 15_000);
    expect(message!.status).toBe('sent_by_vendor');

    const after = await scrapeMetrics(t().app, TOKEN);
    expect(after.value('herald_triggers_accepted_total') - before.value('herald_triggers_accepted_total')).toBe(1);
    const delta = (status: string) =>
      after.value('herald_messages_total', { ...series, status }) -
      before.value('herald_messages_total', { ...series, status });
    expect([delta('retry'), delta('sent'), delta('failed')]).toEqual([1, 1, 0]);
    expect(
      after.count('herald_delivery_duration_seconds', series) -
        before.count('herald_delivery_duration_seconds', series),
    ).toBe(2);

    // Every label is from a bounded set, and no value names a workspace, user or message.
    const text = JSON.stringify(after.families);
    for (const secret of [ws.slug, 'metered-user', accepted.json().message_id, receiver.url])
      expect(text).not.toContain(secret);
    const unbounded = after.families.flatMap((family) =>
      family.samples.flatMap((sample) =>
        Object.keys(sample.labels)
          .filter((label) => !BOUNDED_LABELS.has(label))
          .map((label) => `${family.name}{${label}}`),
      ),
    );
    expect(unbounded).toEqual([]);
  });

  it('reads every durable queue from pg-boss: jobs by state and the oldest ready job’s wait', async () => {
    const scrape = await scrapeMetrics(t().app, TOKEN);
    const queues = new Set(scrape.family('herald_queue_jobs')!.samples.map((m) => m.labels.queue));
    expect(queues).toContain('herald-trigger');
    expect(queues).toContain('herald-deliver-email');
    const states = new Set(scrape.family('herald_queue_jobs')!.samples.map((m) => m.labels.state));
    expect([...states].sort()).toEqual(['active', 'deferred', 'failed', 'ready']);
    expect(
      scrape
        .family('herald_queue_oldest_job_age_seconds')!
        .samples.map((m) => m.labels.queue)
        .sort(),
    ).toEqual([...queues].sort());
  });
});

describe('GET /metrics with no worker taking jobs', () => {
  const t = useTestApp({}, { engine: { worker: false, queue: { superviseSeconds: 1 } } });

  it('shows a waiting trigger job in its queue, and its age growing', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'waiting', [node('send_email', { template: 'receipt' })]);
    // No METRICS_TOKEN: open, as on a private network.
    expect(
      (await scrapeMetrics(t().app)).value('herald_queue_oldest_job_age_seconds', { queue: 'herald-trigger' }),
    ).toBe(0);
    const accepted = await trigger(t, ws, { workflow: 'waiting', recipients: ['waiting-user'], data: {} });
    expect(accepted.statusCode).toBe(202);
    const scrape = await waitFor(
      async () => {
        const s = await scrapeMetrics(t().app);
        return s.value('herald_queue_jobs', { queue: 'herald-trigger', state: 'ready' }) >= 1 &&
          s.value('herald_queue_oldest_job_age_seconds', { queue: 'herald-trigger' }) >= 1
          ? s
          : undefined;
      },
      20_000,
      'the trigger job counted as ready and at least 1 s old',
    );
    expect(scrape.value('herald_queue_jobs', { queue: 'herald-trigger', state: 'active' })).toBe(0);
    expect(scrape.value('herald_queue_oldest_job_age_seconds', { queue: 'herald-deliver-email' })).toBe(0);
  });
});
