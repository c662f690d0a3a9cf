import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { HttpPeer } from '../support/http-peer.js';
import { configClient } from '../support/config.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { checkSecretKey } from '../../src/db/secret-key-check.js';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { migrations } from '../../migrations/index.js';
import { maskConfig, openConfig } from '../../src/domain/vendor-secrets.js';

/**
 * A webhook vendor's extra headers carry credentials (`authorization`, API keys): sealed at rest,
 * masked on every read, sent as they were given (issue 25, point 3).
 */
describe("a webhook vendor's headers", () => {
  const t = useTestApp();
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  afterAll(async () => {
    await peer.close();
  });

  it('are sealed at rest and masked on reads; a PATCH of the read body keeps them; the provider still sends them', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const bearer = `Bearer vendor-${randomUUID()}`;
    const apiKey = `key-${randomUUID()}`;
    const created = await client.inject('POST', '/vendor/', {
      channel: 'sms',
      provider: 'webhook',
      config: {
        url: `${peer.url}/hook`,
        secret: 'whsec-0123456789abcdef',
        headers: { authorization: bearer, 'x-api-key': apiKey, 'x-tenant': 'acme' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect(created.json().config.headers).toEqual({
      authorization: '********',
      'x-api-key': '********',
      'x-tenant': '********',
    });
    const listed = await client.inject('GET', '/vendor/');
    for (const answer of [created.body, listed.body]) {
      expect(answer).not.toContain(bearer);
      expect(answer).not.toContain(apiKey);
    }
    const stored = await sql<{ row: string }>`select v::text as row from vendors v where id = ${id}`.execute(t().db);
    expect(stored.rows[0]!.row).not.toContain(bearer);
    expect(stored.rows[0]!.row).not.toContain(apiKey);
    expect(stored.rows[0]!.row).toContain('x-api-key');

    // The read body sent back: masked values keep what is stored; a new value replaces its header.
    const patched = await client.inject('PATCH', `/vendor/${id}/`, {
      config: {
        ...listed.json().results.find((v: { id: string }) => v.id === id).config,
        headers: {
          authorization: '********',
          'x-api-key': '********',
          'x-tenant': 'globex',
        },
      },
    });
    expect(patched.statusCode, patched.body).toBe(200);

    // Positive control: the provider sends the headers as they were given.
    const tested = await client.inject('POST', `/vendor/${id}/test/`, {});
    expect(tested.json()).toMatchObject({ ok: true });
    const request = peer.last;
    expect(request.headers.authorization).toBe(bearer);
    expect(request.headers['x-api-key']).toBe(apiKey);
    expect(request.headers['x-tenant']).toBe('globex');
  });

  it('take timeout_ms as every vendor does (docs/channels.md), within its bounds', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const vendor = (timeout_ms: number) => ({
      channel: 'sms',
      provider: 'webhook',
      config: { url: `${peer.url}/hook`, secret: 'whsec-0123456789abcdef', timeout_ms },
    });
    const accepted = await client.inject('POST', '/vendor/', vendor(5000));
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(accepted.json().config.timeout_ms).toBe(5000);
    const refused = await client.inject('POST', '/vendor/', vendor(10));
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/^config\.timeout_ms /);
  });
});

/**
 * Every other vendor field that can hold a secret (issue 25, point 3): a webhook vendor's URL (a token in its path
 * or query, credentials in it), an FCM service account's `private_key_id`; API origins refuse credentials instead.
 */
describe('vendor fields that can hold a secret', () => {
  const t = useTestApp();
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  afterAll(async () => {
    await peer.close();
  });

  const storedText = async (id: string) =>
    (await sql<{ row: string }>`select v::text as row from vendors v where id = ${id}`.execute(t().db)).rows[0]!.row;

  it("a webhook vendor's url is sealed at rest and masked on reads, a PATCH of the read body keeps it, and the provider still posts to it", async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const token = `tok-${randomUUID()}`;
    const created = await client.inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'webhook',
      config: { url: `${peer.url}/hook?token=${token}`, secret: 'whsec-0123456789abcdef' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect(created.json().config.url).toBe('********');
    const read = await client.inject('GET', `/vendor/${id}/`);
    const listed = await client.inject('GET', '/vendor/');
    for (const answer of [created.body, read.body, listed.body]) expect(answer).not.toContain(token);
    expect(await storedText(id)).not.toContain(token);
    const patched = await client.inject('PATCH', `/vendor/${id}/`, { config: read.json().config });
    expect(patched.statusCode, patched.body).toBe(200);
    const tested = await client.inject('POST', `/vendor/${id}/test/`, {});
    expect(tested.json()).toMatchObject({ ok: true });
    expect(peer.last.path).toBe(`/hook?token=${token}`);
  });

  it("an FCM service account file's private_key_id is sealed and masked with its private key", async () => {
    const ws = await createWorkspaceFixture(t());
    const keyId = `kid${randomUUID().replace(/-/g, '')}`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const created = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'androidpush',
      provider: 'fcm',
      config: {
        type: 'service_account',
        project_id: 'herald-test',
        private_key_id: keyId,
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        client_email: 'herald@herald-test.iam.gserviceaccount.com',
        client_id: '1234567890',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().config).toMatchObject({
      private_key_id: '********',
      private_key: '********',
      client_id: '1234567890',
    });
    expect(created.body).not.toContain(keyId);
    expect(await storedText(created.json().id as string)).not.toContain(keyId);
  });

  it('an API origin (base_url, token_uri) with credentials in it is refused: they belong in the secret fields', async () => {
    const ws = await createWorkspaceFixture(t());
    const twilio = (base_url: string) =>
      configClient(t, ws).inject('POST', '/vendor/', {
        channel: 'sms',
        provider: 'twilio',
        config: { account_sid: 'AC123', auth_token: 'token-0123456789', from: '+14155550100', base_url },
      });
    const refused = await twilio('https://user:hunter2@api.example.com');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/^config\.base_url /);
    expect(refused.body).not.toContain('hunter2');
    expect((await twilio('http://127.0.0.1:9/api/')).statusCode).toBe(201);
  });
});

const KEY = 'the-original-secret-key-0123456789-abcdef';
const BEFORE = '2026-11-27T60-herald-settings';

/** A database migrated up to just before the sealing migration: PostgreSQL (a database of its own) or embedded. */
async function databaseBeforeSealing(): Promise<{ db: Db; drop(): Promise<void> }> {
  const shared = process.env.DATABASE_URL;
  let drop = async () => {};
  let url: string | undefined;
  if (shared) {
    const admin = createDatabase({ url: shared }).db;
    const name = `herald_seal_test_${Date.now()}_${process.pid}`;
    await sql`create database ${sql.id(name)}`.execute(admin);
    const target = new URL(shared);
    target.pathname = `/${name}`;
    url = target.toString();
    drop = async () => {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    };
  }
  const { db } = createDatabase({ url, dataDir: 'memory://' });
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  });
  const result = await migrator.migrateTo(BEFORE);
  if (result.error) throw result.error;
  return { db, drop: async () => (await db.destroy(), await drop()) };
}

/** Vendors as they were stored before: plain url, headers, FCM key id, and a secret already sealed. */
async function plainVendors(db: Db, box: SecretBox) {
  const { rows } = await sql<{ id: number }>`
    insert into workspaces (slug, name) values ('sealing', 'Sealing') returning id`.execute(db);
  const workspaceId = rows[0]!.id;
  const vendors = [
    {
      id: 'vnd_webhook',
      provider: 'webhook',
      config: {
        url: 'https://hooks.example.com/in?token=plain-url-token',
        secret: { $sealed: box.encrypt('whsec-already-sealed-01') },
        headers: { authorization: 'Bearer plain-header-token', 'x-tenant': 'acme' },
        timeout_ms: 5000,
      },
    },
    {
      id: 'vnd_smtp',
      provider: 'smtp',
      config: { host: 'smtp.example.com', username: 'mailer', password: 'plain-smtp-password', from_email: 'a@b.co' },
    },
    {
      id: 'vnd_fcm',
      provider: 'fcm',
      config: { project_id: 'p', private_key_id: 'plain-key-id-123', private_key: 'plain-pem-key' },
    },
  ];
  for (const vendor of vendors)
    await sql`insert into vendors (id, workspace_id, channel, provider, config)
      values (${vendor.id}, ${workspaceId}, 'email', ${vendor.provider}, ${JSON.stringify(vendor.config)}::jsonb)`.execute(
      db,
    );
  return vendors;
}

describe('vendors stored with plain secrets before', { timeout: 300_000 }, () => {
  it('are sealed by the migration, so nothing stays plain; they open to what they were and read masked', async () => {
    const { db, drop } = await databaseBeforeSealing();
    try {
      const box = new SecretBox(KEY);
      const before = await plainVendors(db, box);
      await migrateToLatest(db, KEY);
      const after = await sql<{ id: string; provider: string; config: Record<string, unknown>; text: string }>`
        select id, provider, config, config::text as text from vendors order by id`.execute(db);
      for (const row of after.rows) {
        for (const plain of [
          'plain-url-token',
          'plain-header-token',
          'plain-smtp-password',
          'plain-key-id',
          'plain-pem-key',
        ])
          expect(row.text).not.toContain(plain);
        const original = before.find((v) => v.id === row.id)!;
        const opened = openConfig(row.config, box);
        expect(opened).toEqual(openConfig(original.config, box));
      }
      const webhook = after.rows.find((r) => r.id === 'vnd_webhook')!;
      expect(webhook.text).toContain('x-tenant');
      expect(maskConfig('webhook', webhook.config)).toEqual({
        url: '********',
        secret: '********',
        headers: { authorization: '********', 'x-tenant': '********' },
        timeout_ms: 5000,
      });
      // The key it sealed with is the one the database now knows.
      expect(await checkSecretKey(db, KEY)).toBe('matches');
    } finally {
      await drop();
    }
  });

  it('refuse to migrate without SECRET_KEY, or with a key other than the stored one, sealing nothing', async () => {
    const { db, drop } = await databaseBeforeSealing();
    try {
      await plainVendors(db, new SecretBox(KEY));
      await expect(migrateToLatest(db)).rejects.toThrow(/holds plain secrets: migrate with SECRET_KEY set/);
      await checkSecretKey(db, KEY);
      await expect(migrateToLatest(db, 'a-different-key-0123456789-abcdefgh')).rejects.toThrow(
        /SECRET_KEY is not the key/,
      );
      const { rows } = await sql<{
        text: string;
      }>`select config::text as text from vendors where id = 'vnd_smtp'`.execute(db);
      expect(rows[0]!.text).toContain('plain-smtp-password');
      await migrateToLatest(db, KEY);
      const sealed = await sql<{
        text: string;
      }>`select config::text as text from vendors where id = 'vnd_smtp'`.execute(db);
      expect(sealed.rows[0]!.text).not.toContain('plain-smtp-password');
    } finally {
      await drop();
    }
  });
});
