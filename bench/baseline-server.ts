/**
 * The ceiling Herald is measured against: the same primary-key lookup (users by workspace_id +
 * distinct_id) on the bare stack, Fastify + pg (or PGlite for --embedded), with no auth, no
 * schemas, no logging. Run as its own process by the harness.
 */
import Fastify from 'fastify';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

const env = process.env;
const workspaceId = Number(env.BASELINE_WORKSPACE_ID);
const LOOKUP =
  'select distinct_id, properties, channels, created_at, updated_at from users where workspace_id = $1 and distinct_id = $2';

type Query = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
let query: Query;
let close: () => Promise<void>;
if (env.BASELINE_DATABASE_URL) {
  const pool = new pg.Pool({ connectionString: env.BASELINE_DATABASE_URL, max: Number(env.BASELINE_POOL_SIZE ?? 10) });
  query = (text, values) => pool.query(text, values);
  close = () => pool.end();
} else {
  const pglite = new PGlite(env.BASELINE_PGLITE_DIR as string);
  query = (text, values) => pglite.query(text, values);
  close = () => pglite.close();
}

const app = Fastify({ logger: false });
app.get('/readyz', async () => {
  await query('select 1', []);
  return { status: 'ready' };
});
app.get<{ Params: { distinct_id: string } }>('/v1/user/:distinct_id/', async (request, reply) => {
  const { rows } = await query(LOOKUP, [workspaceId, request.params.distinct_id]);
  if (rows.length === 0) return reply.code(404).send({ code: 404, message: 'not found' });
  return rows[0];
});

process.on('SIGTERM', () => {
  void app
    .close()
    .then(close)
    .then(() => process.exit(0));
});
await app.listen({ port: Number(env.PORT), host: '127.0.0.1' });
