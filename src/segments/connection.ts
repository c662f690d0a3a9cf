import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db, DatabaseKind } from '../db/database.js';
import { SEGMENT_ROLE, type SegmentLimits, type SegmentRunner } from './runner.js';
import { EmbeddedSegmentRunner } from './sandbox-embedded.js';
import { PostgresSegmentRunner } from './sandbox-postgres.js';

/**
 * Where segment queries log in: SEGMENT_DATABASE_URL, else DATABASE_URL with the user replaced by
 * herald_segments and no password (trust, peer, certificate or a ~/.pgpass entry, as the server
 * is configured; docs/segments.md).
 */
export function segmentDatabaseUrl(config: Config): string | undefined {
  if (config.SEGMENT_DATABASE_URL) return config.SEGMENT_DATABASE_URL;
  if (!config.DATABASE_URL) return undefined;
  const url = new URL(config.DATABASE_URL);
  url.username = SEGMENT_ROLE;
  url.password = '';
  return url.toString();
}

export const segmentLimits = (config: Config): SegmentLimits => ({
  timeoutMs: config.SEGMENT_QUERY_TIMEOUT_MS,
  maxResultBytes: config.SEGMENT_RESULT_MAX_BYTES,
  maxPlanRows: config.SEGMENT_MAX_PLAN_ROWS,
  maxPlanCost: config.SEGMENT_MAX_PLAN_COST,
});

/** The barrier of the engine in use: its own login on PostgreSQL, a rolled-back SET LOCAL ROLE on PGlite. */
export function createSegmentRunner(deps: {
  config: Config;
  databaseKind: DatabaseKind;
  db: Db;
  log: FastifyBaseLogger;
}) {
  const limits = segmentLimits(deps.config);
  const url = deps.databaseKind === 'postgres' ? segmentDatabaseUrl(deps.config) : undefined;
  const runner: SegmentRunner = url
    ? new PostgresSegmentRunner(deps.db, limits, {
        url,
        poolSize: deps.config.SEGMENT_POOL_SIZE,
        connectTimeoutMs: deps.config.DATABASE_TIMEOUT_MS,
        log: deps.log,
      })
    : new EmbeddedSegmentRunner(deps.db, limits);
  return runner;
}
