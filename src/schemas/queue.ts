import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';

/** The console's Queue page (docs/console.md): one workspace's share of the durable queue. */
export const QueueOverviewSchema = Type.Object(
  {
    queues: Type.Array(
      Type.Object({
        name: Type.String(),
        waiting: Type.Integer({ description: 'created or to be retried, due or scheduled' }),
        active: Type.Integer(),
        failed: Type.Integer(),
        oldest_job_age_seconds: Nullable(
          Type.Integer({ description: 'how long the oldest job ready to run has waited; null when none is' }),
        ),
      }),
    ),
    failed_jobs: Type.Array(
      Type.Object({
        id: Type.String(),
        queue: Type.String(),
        error: Nullable(Type.String()),
        retry_count: Type.Integer(),
        created_at: Timestamp,
        failed_at: Nullable(Timestamp),
      }),
      { description: 'the latest 20, newest first' },
    ),
  },
  { $id: 'QueueOverview', title: 'Queue overview' },
);
