import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { constantTimeEqual } from '../crypto/tokens.js';
import { unauthorized } from '../errors.js';
import { fullErrors } from '../schemas/common.js';
import { scrape, type QueueReading } from '../telemetry/metrics.js';

export interface MetricsRouteOptions {
  /** METRICS_TOKEN: when set, scrapes must send `Authorization: Bearer <token>`. */
  token?: string;
  /** The process's durable queue, read at each scrape (absent: no queue gauges). */
  readQueues?: () => Promise<QueueReading[]>;
}

/** `GET /metrics`: the process's Prometheus text (src/telemetry/metrics.ts), for the scraper, never rate limited. */
export const metricsRoutes: FastifyPluginAsyncTypebox<MetricsRouteOptions> = async (app, options) => {
  const expected = options.token ? `Bearer ${options.token}` : undefined;
  app.get(
    '/metrics',
    {
      config: { rateLimit: false as const },
      schema: {
        tags: ['health'],
        security: [],
        operationId: 'metrics',
        summary: 'Prometheus metrics (Bearer METRICS_TOKEN when set)',
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String() } },
          },
          ...fullErrors(401),
        },
      },
    },
    async (request, reply) => {
      if (expected && !constantTimeEqual(request.headers.authorization ?? '', expected))
        throw unauthorized('metrics need Authorization: Bearer <METRICS_TOKEN>');
      const { contentType, body } = await scrape(options.readQueues);
      return reply.type(contentType).send(body);
    },
  );
};
