import { connect } from 'node:net';
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { migrations } from '../migrations/index.js';
import type { Config } from './config.js';
import { SecretBox, loadOrCreateSecretKey, secretKeyFingerprint } from './crypto/secret-box.js';
import { createDatabase, type Db } from './db/database.js';
import { lockDataDir } from './db/open.js';
import { openConfig } from './domain/vendor-secrets.js';
import { segmentDatabaseUrl } from './segments/connection.js';

/**
 * `herald doctor` and `herald migrate --status` (docs/operations.md): read-only looks at an installation. They open
 * the database without migrating it, and never print a secret: a check reports what is wrong, not the value.
 */

export interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

/** Every migration this build knows, applied or pending, as Kysely's Migrator records them. */
export async function migrationStatus(db: Db) {
  const known = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).getMigrations();
  return known.map((m) => ({ name: m.name, applied_at: m.executedAt?.toISOString() ?? null }));
}

/** The configured database, not migrated; embedded storage only when no process has it open. */
export async function withDatabase<T>(config: Config, use: (db: Db) => Promise<T>): Promise<T> {
  const unlock = config.DATABASE_URL ? () => {} : lockDataDir(config.DATA_DIR);
  const { db } = createDatabase({
    url: config.DATABASE_URL,
    dataDir: `${config.DATA_DIR}/pglite`,
    poolSize: 2,
    timeoutMs: config.DATABASE_TIMEOUT_MS,
  });
  try {
    return await use(db);
  } finally {
    await db.destroy();
    unlock();
  }
}

/** The endpoints the hosted providers call when their vendor names no `base_url` (src/channels/providers/). */
const PROVIDER_ORIGINS: Record<string, string> = {
  apns: 'https://api.push.apple.com',
  fcm: 'https://fcm.googleapis.com',
  twilio: 'https://api.twilio.com',
};

/** Where a vendor connects (host and port), when its config says so; recipient-chosen destinations have none. */
function endpointOf(provider: string, config: Record<string, unknown>): { host: string; port: number } | undefined {
  const url = typeof config.url === 'string' ? config.url : (config.base_url as string | undefined);
  const target = url ?? PROVIDER_ORIGINS[provider];
  if (target) {
    const parsed = new URL(target);
    return { host: parsed.hostname, port: Number(parsed.port) || (parsed.protocol === 'http:' ? 80 : 443) };
  }
  if (typeof config.host === 'string')
    return { host: config.host, port: Number(config.port) || (config.secure ? 465 : 587) };
  return undefined;
}

const reachable = (host: string, port: number, timeoutMs: number) =>
  new Promise<string | undefined>((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => (socket.destroy(), resolve(undefined)));
    socket.once('timeout', () => (socket.destroy(), resolve(`no answer in ${timeoutMs} ms`)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

export async function doctor(config: Config): Promise<Check[]> {
  const checks: Check[] = [];
  await withDatabase(config, async (db) => {
    try {
      const { rows } = await sql<{ version: string }>`select version()`.execute(db);
      checks.push({ check: 'database', ok: true, detail: rows[0]!.version.split(' on ')[0]! });
    } catch (error) {
      checks.push({ check: 'database', ok: false, detail: (error as Error).message });
      return;
    }
    const status = await migrationStatus(db);
    const pending = status.filter((m) => m.applied_at === null).map((m) => m.name);
    checks.push({
      check: 'migrations',
      ok: pending.length === 0,
      detail: pending.length === 0 ? `${status.length} applied` : `pending: ${pending.join(', ')} (herald migrate)`,
    });
    const secretKey = config.SECRET_KEY ?? loadOrCreateSecretKey(config.DATA_DIR);
    const stored =
      pending.length === 0
        ? (
            await sql<{
              value: string;
            }>`select value from herald_settings where name = 'secret_key_fingerprint'`.execute(db)
          ).rows[0]?.value
        : undefined;
    checks.push(
      stored === undefined
        ? { check: 'secret key', ok: true, detail: 'no fingerprint stored yet: the next start stores it' }
        : stored === secretKeyFingerprint(secretKey)
          ? { check: 'secret key', ok: true, detail: 'matches the fingerprint the database keeps' }
          : { check: 'secret key', ok: false, detail: 'SECRET_KEY is not the key the secrets were sealed with' },
    );
    const segmentUrl = config.DATABASE_URL ? segmentDatabaseUrl(config) : undefined;
    if (segmentUrl) {
      const client = new pg.Client({
        connectionString: segmentUrl,
        connectionTimeoutMillis: config.DATABASE_TIMEOUT_MS,
      });
      try {
        await client.connect();
        const { rows } = await client.query<{ user: string }>('select current_user as user');
        checks.push({
          check: 'segment role',
          ok: rows[0]!.user === 'herald_segments',
          detail: `logs in as ${rows[0]!.user}`,
        });
      } catch (error) {
        checks.push({
          check: 'segment role',
          ok: false,
          detail: `herald_segments cannot log in: ${(error as Error).message}`,
        });
      } finally {
        await client.end().catch(() => {});
      }
    } else checks.push({ check: 'segment role', ok: true, detail: 'embedded: SET LOCAL ROLE, no login' });
    if (pending.length > 0) return;
    const box = new SecretBox(secretKey);
    const vendors = await db
      .selectFrom('vendors')
      .innerJoin('workspaces', 'workspaces.id', 'vendors.workspace_id')
      .select(['workspaces.slug', 'vendors.provider', 'vendors.nickname', 'vendors.config'])
      .where('vendors.is_active', '=', true)
      .execute();
    for (const vendor of vendors) {
      const name = `vendor ${vendor.slug}/${vendor.nickname ?? vendor.provider}`;
      let endpoint;
      try {
        endpoint = endpointOf(vendor.provider, openConfig(vendor.config, box));
      } catch {
        checks.push({ check: name, ok: false, detail: 'its config does not open with SECRET_KEY' });
        continue;
      }
      if (!endpoint) continue;
      const problem = await reachable(endpoint.host, endpoint.port, 3000);
      checks.push({
        check: name,
        ok: problem === undefined,
        detail: `${endpoint.host}:${endpoint.port} ${problem === undefined ? 'reachable' : `unreachable (${problem})`}`,
      });
    }
  });
  return checks;
}
