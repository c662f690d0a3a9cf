import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus instruments (docs/operations.md, "Metrics"). One registry per process, as
 * Prometheus scrapes a process: the API and the worker of one `npm start` count into the same
 * instruments. Labels are bounded sets only (channel, provider, status, queue, state): never a
 * workspace, user, message or URL.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const triggersAccepted = new Counter({
  name: 'herald_triggers_accepted_total',
  help: 'Triggers (API, broadcast, event and invoked workflows) accepted into the queue.',
  registers: [registry],
});

const messagesTotal = new Counter({
  name: 'herald_messages_total',
  help: 'Provider calls by outcome: sent, retry (transient failure), failed (refused)',
  labelNames: ['channel', 'provider', 'status'] as const,
  registers: [registry],
});

const deliveryDuration = new Histogram({
  name: 'herald_delivery_duration_seconds',
  help: 'How long one provider call took, whatever its outcome.',
  labelNames: ['channel', 'provider'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/** One provider call: its outcome (sent, retry, failed) and how long it took. */
export function countDelivery(channel: string, provider: string, status: string, seconds: number) {
  messagesTotal.inc({ channel, provider, status });
  deliveryDuration.observe({ channel, provider }, seconds);
}

/** A queue's jobs by state, and the age of its oldest job ready to run, read when scraped. */
export interface QueueReading {
  queue: string;
  states: Record<string, number>;
  oldestReadySeconds: number;
}

const queueJobs = new Gauge({
  name: 'herald_queue_jobs',
  help: 'Jobs in each durable queue by state (ready, deferred, active, failed), as of the queue monitor.',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

const oldestJobAge = new Gauge({
  name: 'herald_queue_oldest_job_age_seconds',
  help: 'How long the oldest job ready to run in each queue has waited (0 when none waits).',
  labelNames: ['queue'] as const,
  registers: [registry],
});

/** The registry's text, with the queue gauges read first (a queue that cannot be read leaves them out). */
export async function scrape(
  readQueues?: () => Promise<QueueReading[]>,
): Promise<{ contentType: string; body: string }> {
  queueJobs.reset();
  oldestJobAge.reset();
  if (readQueues) {
    for (const reading of await readQueues()) {
      for (const [state, count] of Object.entries(reading.states))
        queueJobs.set({ queue: reading.queue, state }, count);
      oldestJobAge.set({ queue: reading.queue }, reading.oldestReadySeconds);
    }
  }
  return { contentType: registry.contentType, body: await registry.metrics() };
}
