import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { fullErrors } from '../schemas/common.js';
import { unavailable } from '../errors.js';

const Status = Type.Object({ status: Type.String() });

/** Liveness and readiness, without authentication, for orchestrators and load balancers. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const common = { tags: ['health'], security: [] };
  // Orchestrators poll these from one address: never rate limited.
  const config = { rateLimit: false as const };
  app.get(
    '/healthz',
    { config, schema: { ...common, operationId: 'healthz', summary: 'The process is up', response: { 200: Status } } },
    async () => ({
      status: 'ok',
    }),
  );
  app.get(
    '/readyz',
    {
      config,
      schema: {
        ...common,
        operationId: 'readyz',
        summary: 'The database answers',
        response: { 200: Status, ...fullErrors(503) },
      },
    },
    async () => {
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(unavailable('the database is not answering')), 2000).unref(),
      );
      let answer;
      try {
        answer = await Promise.race([sql<{ ready: number }>`select 1 as ready`.execute(app.db), timeout]);
      } catch {
        throw unavailable('the database is not answering');
      }
      // A connection out of step with its engine answers every statement with no rows (issue 25):
      // not ready, so that an orchestrator restarts the process.
      if (answer.rows[0]?.ready !== 1) throw unavailable('the database answers out of step; restart the process');
      return { status: 'ready' };
    },
  );
};
