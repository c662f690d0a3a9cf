import { sql, type Kysely } from 'kysely';

// Frozen in time: every vendor secret stored in plain text before it was one (issue 25: a webhook vendor's `url` and
// `headers`, an FCM service account's `private_key_id`, …) sealed with the secret box, so nothing stays plain. The
// lists are the secret keys as of this migration; later ones seal what they add themselves. Sealing needs SECRET_KEY:
// the runner hands this migration a sealer checked against the key's stored fingerprint first (src/db/migrate.ts),
// so a wrong key never seals anything. Without one, a database holding plain secrets is refused, not half migrated.

export interface VendorSealer {
  encrypt(plaintext: string): string;
  /** Throws when the key is not the one this database's secrets are sealed with. */
  verify(db: Kysely<any>): Promise<unknown>;
}

const COMMON_KEYS = ['password', 'auth_token', 'private_key', 'secret', 'api_key', 'access_token', 'key'];
const PROVIDER_KEYS: Record<string, string[]> = {
  incoming_webhook: ['url'],
  webhook: ['url'],
  fcm: ['private_key_id', 'client_secret', 'refresh_token'],
};
const PROVIDER_MAPS: Record<string, string[]> = { webhook: ['headers'] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSealed = (value: unknown) => isObject(value) && typeof value.$sealed === 'string';

/** The config with every plain secret sealed, or undefined when none was plain. */
function sealPlain(provider: string, config: Record<string, unknown>, seal: (plain: string) => unknown) {
  const keys = [...COMMON_KEYS, ...(PROVIDER_KEYS[provider] ?? [])];
  const maps = PROVIDER_MAPS[provider] ?? [];
  let changed = false;
  const sealOne = (value: unknown) => {
    if (value === null || value === undefined || isSealed(value)) return value;
    changed = true;
    return seal(typeof value === 'string' ? value : JSON.stringify(value));
  };
  const next = Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      if (maps.includes(key) && isObject(value))
        return [key, Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, sealOne(entry)]))];
      return [key, keys.includes(key) ? sealOne(value) : value];
    }),
  );
  return changed ? next : undefined;
}

const PAGE = 500;

export function vendorSecrets(sealer: VendorSealer | undefined) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      let verified = false;
      let after = '';
      for (;;) {
        const { rows } = await sql<{ id: string; provider: string; config: Record<string, unknown> | string }>`
          select id, provider, config from vendors where id > ${after} order by id limit ${PAGE}`.execute(db);
        for (const row of rows) {
          const config =
            typeof row.config === 'string' ? (JSON.parse(row.config) as Record<string, unknown>) : row.config;
          const sealedConfig = sealPlain(row.provider, config, (plain) => ({ $sealed: sealer?.encrypt(plain) }));
          if (!sealedConfig) continue;
          if (!sealer)
            throw new Error(`vendor ${row.id} holds plain secrets: migrate with SECRET_KEY set to seal them`);
          if (!verified) await sealer.verify(db);
          verified = true;
          await sql`update vendors set config = ${JSON.stringify(sealedConfig)}::jsonb where id = ${row.id}`.execute(
            db,
          );
        }
        if (rows.length < PAGE) return;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
