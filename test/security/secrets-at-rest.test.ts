import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateSecretKey } from '../../src/crypto/secret-box.js';
import { hashToken } from '../../src/crypto/tokens.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { recordFigures } from '../support/figures.js';
import { authFor, KnownValues, requestArbitrary } from '../support/fuzz.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { routeCatalogue } from '../support/routes.js';
import { assertNoCredentialsInLogs, findCredentials } from '../support/secrets.js';
import { tablesWithScope } from '../support/workspace-scope.js';

/** Response fields that carry a credential in plain text. */
const SECRET_FIELDS = /^(api_key|secret|token|service_token|workspace_secret|private_key_pem|private_key_base64)$/;
/** Inbox public keys (`SS.PUBK.…`) are handed to browsers by design: stored as they are, not credentials. */
const NOT_SECRET = /^SS\.PUBK\./;
/** A PEM's key material, line by line: what would show if a private key were stored in any encoding of its text. */
const pemLines = (pem: string) => pem.split('\n').filter((line) => line.length >= 40 && !line.startsWith('-----'));

describe('secrets at rest', () => {
  let database: PrivateDatabase;
  let t: TestApp;
  let ws: WorkspaceFixture;
  const issued = new Set<string>();

  beforeAll(async () => {
    database = await createPrivateDatabase();
    t = await buildTestApp(database.url ? { DATABASE_URL: database.url } : {});
    ws = await createWorkspaceFixture(t);
    for (const secret of [ws.serviceToken, ws.apiKey, ws.workspaceSecret]) issued.add(secret);
    // Every writing management route, driven with valid requests: whatever credential it hands out is collected.
    const known = new KnownValues(new Set([ws.apiKeyId]));
    known.add('workspace', ws.slug);
    const writers = (await routeCatalogue(t.app)).filter(
      (route) => route.surface === 'management' && ['POST', 'PATCH', 'PUT'].includes(route.method),
    );
    for (let pass = 0; pass < 2; pass += 1) {
      for (const route of writers) {
        for (const request of fc.sample(requestArbitrary(route, known.lookup, authFor(route, ws), 'valid'), 10)) {
          const answer = await t.app.inject(request);
          if (answer.statusCode >= 300 || !answer.body) continue;
          const body = JSON.parse(answer.body);
          known.harvest(body);
          const stack = [body];
          while (stack.length > 0) {
            const value = stack.pop();
            if (!value || typeof value !== 'object') continue;
            for (const [key, child] of Object.entries(value)) {
              if (typeof child === 'string' && SECRET_FIELDS.test(key)) {
                if (NOT_SECRET.test(child)) continue;
                issued.add(child);
                if (key === 'private_key_pem') for (const line of pemLines(child)) issued.add(line);
              } else stack.push(child);
            }
          }
        }
      }
    }
  }, 300_000);

  afterAll(async () => {
    await t.close();
    await database.drop();
    assertNoCredentialsInLogs(t.logs);
  });

  it('no table holds a credential in plain text: tokens and API keys only as hashes, workspace secrets only as ciphertext', async () => {
    const tables = (await tablesWithScope(t.db)).map((table) => table.table);
    let rows = 0;
    const found: string[] = [];
    for (const table of tables) {
      const { rows: texts } = await sql<{ row: string }>`select t::text as row from ${sql.table(table)} t`.execute(
        t.db,
      );
      rows += texts.length;
      for (const { row } of texts) {
        for (const secret of issued) if (row.includes(secret)) found.push(`${table}: ${secret.slice(0, 8)}…`);
        // Nothing credential-shaped at all, issued by this test or not.
        for (const { match } of findCredentials([row]))
          if (!match.startsWith('wsk_')) found.push(`${table}: ${match.slice(0, 8)}…`);
      }
    }
    expect(found).toEqual([]);
    expect(issued.size).toBeGreaterThanOrEqual(3);
    recordFigures('secrets-at-rest', {
      credentials_issued: issued.size,
      tables_scanned: tables.length,
      rows_scanned: rows,
      plaintext_found: found.length,
    });
  });

  it('stores what authenticates: the SHA-256 of tokens and keys, and a secret that decrypts to the one handed out', async () => {
    const token = await t.db
      .selectFrom('service_tokens')
      .select('token_hash')
      .where('token_hash', '=', hashToken(ws.serviceToken))
      .executeTakeFirst();
    expect(token).toBeDefined();
    const key = await t.db
      .selectFrom('api_keys')
      .select('key_hash')
      .where('id', '=', ws.apiKeyId)
      .executeTakeFirstOrThrow();
    expect(key.key_hash).toBe(hashToken(ws.apiKey));
    const pair = await t.db
      .selectFrom('workspace_keys')
      .select('secret_ciphertext')
      .where('key', '=', ws.workspaceKey)
      .executeTakeFirstOrThrow();
    expect(pair.secret_ciphertext).not.toContain(ws.workspaceSecret);
    expect(t.secretBox.decrypt(pair.secret_ciphertext)).toBe(ws.workspaceSecret);
  });

  it('keeps only the public half of an inbox signing key; the private key exists in its creation answer only', async () => {
    const other = await createWorkspaceFixture(t);
    const created = await t.app.inject({
      method: 'POST',
      url: `/management/v1/${other.slug}/ws_signing_key/`,
      headers: other.management,
    });
    expect(created.statusCode).toBe(201);
    const { uid, public_key_pem, private_key_pem, private_key_base64 } = created.json();
    const stored = await sql<{ row: string }>`select t::text as row from ws_signing_keys t where uid = ${uid}`.execute(
      t.db,
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]!.row).toContain(pemLines(public_key_pem)[0]);
    for (const secret of [...pemLines(private_key_pem), private_key_base64.slice(0, 60)])
      expect(stored.rows[0]!.row).not.toContain(secret);
    expect(t.logs.some((line) => JSON.stringify(line).includes(pemLines(private_key_pem)[0]!))).toBe(false);
  });

  it('keeps vendor secrets only as ciphertext in every table and out of every log line and answer', async () => {
    const other = await createWorkspaceFixture(t);
    const password = `smtp-password-${randomUUID()}`;
    const secret = `webhook-secret-${randomUUID()}`;
    const vendors = [
      {
        channel: 'email',
        provider: 'smtp',
        config: { host: '127.0.0.1', port: 2525, username: 'mailer', password, from_email: 'noreply@example.com' },
      },
      { channel: 'sms', provider: 'webhook', config: { url: 'http://127.0.0.1:9/hook', secret } },
    ];
    for (const vendor of vendors) {
      const created = await t.app.inject({
        method: 'POST',
        url: `/management/v1/${other.slug}/vendor/`,
        headers: other.management,
        payload: vendor,
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.body).not.toContain(password);
      expect(created.body).not.toContain(secret);
    }
    const listed = await t.app.inject({
      method: 'GET',
      url: `/management/v1/${other.slug}/vendor/`,
      headers: other.management,
    });
    expect(listed.body).not.toContain(password);
    expect(listed.body).not.toContain(secret);
    const found: string[] = [];
    for (const { table } of await tablesWithScope(t.db)) {
      const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(table)} t`.execute(t.db);
      for (const { row } of rows) if (row.includes(password) || row.includes(secret)) found.push(table);
    }
    expect(found).toEqual([]);
    expect(
      t.logs.some((line) => JSON.stringify(line).includes(password) || JSON.stringify(line).includes(secret)),
    ).toBe(false);
  });
});

describe('the generated secret key of embedded storage', () => {
  it('is created once in DATA_DIR, readable by its owner only, and read back on the next start', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'herald-secret-')), 'data');
    const key = loadOrCreateSecretKey(dataDir);
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    const file = join(dataDir, 'secret.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecretKey(dataDir)).toBe(key);
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
  });
});
