import { sql } from 'kysely';
import { SecretBox, secretKeyFingerprint } from '../crypto/secret-box.js';
import type { Db } from './database.js';

export class SecretKeyMismatch extends Error {}

const NAME = 'secret_key_fingerprint';

const opens = (secretKey: string, sealed: string) => {
  try {
    new SecretBox(secretKey).decrypt(sealed);
    return true;
  } catch {
    return false;
  }
};

/**
 * The first start stores the key's fingerprint; every later start (and every CLI command) compares. A different
 * key would open none of the secrets already sealed (workspace secrets, vendor credentials): refused, in one line.
 */
export async function checkSecretKey(db: Db, secretKey: string): Promise<'stored' | 'matches'> {
  const given = secretKeyFingerprint(secretKey);
  // A database from before fingerprints: a sealed workspace secret must open with the key it is given.
  const { rows: stored } = await sql<{ value: string }>`select value from herald_settings where name = ${NAME}`.execute(
    db,
  );
  if (stored.length === 0) {
    const { rows: sealed } = await sql<{ secret_ciphertext: string }>`
      select secret_ciphertext from workspace_keys order by id desc limit 1`.execute(db);
    if (sealed[0] && !opens(secretKey, sealed[0].secret_ciphertext))
      throw new SecretKeyMismatch(
        "SECRET_KEY does not open this database's sealed secrets: start with the key they were sealed with " +
          '(docs/operations.md, "The secret key")',
      );
  }
  const inserted = await sql<{ value: string }>`
    insert into herald_settings (name, value) values (${NAME}, ${given})
    on conflict (name) do nothing returning value`.execute(db);
  if (inserted.rows.length > 0) return 'stored';
  const { rows } = await sql<{ value: string }>`select value from herald_settings where name = ${NAME}`.execute(db);
  const kept = rows[0]?.value;
  if (kept === given) return 'matches';
  throw new SecretKeyMismatch(
    `SECRET_KEY is not the key this database's secrets are sealed with (fingerprint ${given.slice(0, 8)}, ` +
      `stored ${String(kept).slice(0, 8)}): start with the original key (docs/operations.md, "The secret key")`,
  );
}
