import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { checkSecretKey } from '../../src/db/secret-key-check.js';
import { bootstrapWorkspace } from '../../src/services/workspaces.js';
import { createPrivateDatabase } from '../support/private-database.js';

const KEY = 'the-original-secret-key-0123456789-abcdef';
const OTHER = 'a-freshly-generated-key-0123456789-abcdef';

// A fresh migrated database per test: minutes on embedded storage under load.
describe('the secret key fingerprint', { timeout: 300_000 }, () => {
  const folder = mkdtempSync(join(tmpdir(), 'herald-secret-key-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  async function freshDatabase(): Promise<{ db: Db; drop(): Promise<void> }> {
    const privateDb = await createPrivateDatabase();
    const { db } = createDatabase({ url: privateDb.url, dataDir: 'memory://' });
    if (!privateDb.url) await migrateToLatest(db);
    return { db, drop: async () => (await db.destroy(), await privateDb.drop()) };
  }

  it('is stored by the first start and refuses any other key after, in one line', async () => {
    const { db, drop } = await freshDatabase();
    try {
      expect(await checkSecretKey(db, KEY)).toBe('stored');
      expect(await checkSecretKey(db, KEY)).toBe('matches');
      const refusal = await checkSecretKey(db, OTHER).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(refusal).toMatch(
        /^SECRET_KEY is not the key this database's secrets are sealed with \(fingerprint [0-9a-f]{8}, stored [0-9a-f]{8}\): start with the original key/,
      );
      expect(refusal).not.toContain('\n');
      expect(refusal).not.toContain(KEY);
      expect(refusal).not.toContain(OTHER);
    } finally {
      await drop();
    }
  });

  it('checks a database from before fingerprints against a secret it sealed', async () => {
    const { db, drop } = await freshDatabase();
    try {
      await bootstrapWorkspace(db, new SecretBox(KEY), { slug: 'sealed-before', actor: null });
      await expect(checkSecretKey(db, OTHER)).rejects.toThrow(
        "SECRET_KEY does not open this database's sealed secrets: start with the key they were sealed with",
      );
      expect(await checkSecretKey(db, KEY)).toBe('stored');
    } finally {
      await drop();
    }
  });

  it('reads SECRET_KEY from SECRET_KEY_FILE (a Docker secret), never from both', () => {
    const file = join(folder, 'secret_key');
    writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
    expect(loadConfig({ SECRET_KEY_FILE: file }).SECRET_KEY).toBe(KEY);
    expect(() => loadConfig({ SECRET_KEY_FILE: file, SECRET_KEY: KEY })).toThrow(
      'Invalid configuration: set SECRET_KEY or SECRET_KEY_FILE, not both',
    );
    expect(() => loadConfig({ SECRET_KEY_FILE: join(folder, 'missing') })).toThrow(
      'Invalid configuration: SECRET_KEY_FILE cannot be read (ENOENT)',
    );
    writeFileSync(file, 'short\n');
    expect(() => loadConfig({ SECRET_KEY_FILE: file })).toThrow(
      'SECRET_KEY must be a string of at least 32 characters',
    );
  });
});
