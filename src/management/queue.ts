import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { unavailable } from '../errors.js';
import { errors, iso, isoOrNull, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import { QueueOverviewSchema } from '../schemas/queue.js';

const errorOf = (output: unknown) => {
  if (output && typeof output === 'object' && typeof (output as { message?: unknown }).message === 'string')
    return (output as { message: string }).message;
  return output === null || output === undefined ? null : JSON.stringify(output);
};

/**
 * The queue overview (docs/console.md, docs/spec/product.md §2): this workspace's jobs in the durable
 * queue, per queue, and its latest failed jobs with their error. Never another workspace's jobs.
 */
export const queueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/:workspace/queue/',
    {
      schema: {
        tags: ['queue'],
        operationId: 'getQueueOverview',
        summary:
          "This workspace's jobs per queue (waiting, active, failed, oldest job's age) and its latest failed jobs",
        params: WorkspaceParamsSchema,
        response: { 200: ref(QueueOverviewSchema), ...errors(401, 404, 503) },
      },
    },
    async (request) => {
      if (!app.queue) throw unavailable('the durable queue is not running in this process');
      const { queues, failed } = await app.queue.workspaceReadings(app.db, request.workspace.id);
      return {
        queues,
        failed_jobs: failed.map((job) => ({
          id: job.id,
          queue: job.name,
          error: errorOf(job.output),
          retry_count: Number(job.retry_count),
          created_at: iso(job.created_on),
          failed_at: isoOrNull(job.completed_on),
        })),
      };
    },
  );
};
