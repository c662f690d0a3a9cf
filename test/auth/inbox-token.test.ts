import { generateKeyPairSync } from 'node:crypto';
import { importPKCS8, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifyInboxToken } from '../../src/auth/inbox-token.js';
import { useTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

const OPERATOR = { name: 'Test Operator', email: 'ops@example.com' };

function keys(t: () => TestApp, ws: WorkspaceFixture) {
  const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown) =>
    t().app.inject({
      method,
      url: `/management/v1/${ws.slug}/${path}`,
      headers: ws.management,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return { inject };
}

/** How a customer's server mints a user token (the example in docs/channels.md). */
async function mint(
  privateKeyPem: string,
  claims: Record<string, unknown> = {},
  options: { kid?: string; expiresIn?: string | number } = {},
) {
  const key = await importPKCS8(privateKeyPem, 'ES256');
  return new SignJWT({ entity_type: 'subscriber', entity_id: 'user-1', scope: { tenant_id: 'acme' }, ...claims })
    .setProtectedHeader({ alg: 'ES256', ...(options.kid && { kid: options.kid }) })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '1h')
    .sign(key);
}

describe('inbox keys and per-user tokens', () => {
  const t = useTestApp();

  async function setup() {
    const ws = await createWorkspaceFixture(t());
    const { inject } = keys(t, ws);
    const pub = await inject('POST', 'ws_public_key/', { name: 'web-app', description: 'Browser' });
    expect(pub.statusCode).toBe(201);
    const signing = await inject('POST', 'ws_signing_key/');
    expect(signing.statusCode).toBe(201);
    return { ws, inject, publicKey: pub.json().api_key as string, signing: signing.json() };
  }

  it('manages public keys: create, secure mode, rotate, delete', async () => {
    const { inject, publicKey } = await setup();
    const list = (await inject('GET', 'ws_public_key/')).json();
    expect(list.results).toEqual([
      {
        id: expect.stringMatching(/^ws_pubk_/),
        api_key: publicKey,
        name: 'web-app',
        allowed_domains: null,
        is_secure_mode_enabled: false,
        is_deleted: false,
        is_default: false,
        created_at: expect.stringMatching(/\+00:00$/),
        created_by: OPERATOR,
        rotated_at: null,
        rotated_by: null,
        updated_at: expect.stringMatching(/\+00:00$/),
        updated_by: null,
      },
    ]);
    const id = list.results[0].id;
    expect((await inject('PATCH', `ws_public_key/${id}/`, { is_secure_mode_enabled: true })).json()).toMatchObject({
      is_secure_mode_enabled: true,
      updated_by: OPERATOR,
    });
    const rotated = await inject('PATCH', `ws_public_key/${id}/rotate/`);
    expect(rotated.statusCode).toBe(202);
    expect(rotated.json().api_key).not.toBe(publicKey);
    expect(rotated.json().rotated_by).toEqual(OPERATOR);
    expect((await inject('DELETE', `ws_public_key/${id}/`)).statusCode).toBe(204);
    expect((await inject('DELETE', `ws_public_key/${id}/`)).statusCode).toBe(404);
    expect((await inject('GET', 'ws_public_key/')).json().results).toEqual([]);
  });

  it('shows the private key once, allows one active key, rolls and deletes', async () => {
    const { inject, publicKey, signing } = await setup();
    expect(signing).toMatchObject({
      id: expect.stringMatching(/^ws_signk_/),
      uid: expect.stringMatching(/^signing_key_/),
      status: 'active',
      private_key_pem: expect.stringContaining('-----BEGIN PRIVATE KEY-----'),
      public_key_pem: expect.stringContaining('-----BEGIN PUBLIC KEY-----'),
    });
    expect(Buffer.from(signing.private_key_base64, 'base64').toString()).toBe(signing.private_key_pem);
    const listed = (await inject('GET', 'ws_signing_key/')).json();
    expect(listed.results).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain('PRIVATE');
    const second = await inject('POST', 'ws_signing_key/');
    expect(second.statusCode).toBe(400);
    expect(second.json().message).toContain('only 1 active signing key is allowed');

    const oldToken = await mint(signing.private_key_pem);
    const rolled = await inject('POST', `ws_signing_key/${signing.uid}/roll/`);
    expect(rolled.statusCode).toBe(201);
    expect(rolled.json().uid).not.toBe(signing.uid);
    expect((await inject('GET', 'ws_signing_key/')).json().results.map((k: { status: string }) => k.status)).toEqual([
      'active',
      'rolled',
    ]);
    expect((await inject('POST', `ws_signing_key/${signing.uid}/roll/`)).statusCode).toBe(404);
    const newToken = await mint(rolled.json().private_key_pem);
    // A rolled key keeps verifying until it is deleted, so tokens already handed out survive a roll.
    await expect(verifyInboxToken(t().db, { authorization: publicKey, signature: oldToken })).resolves.toMatchObject({
      distinctId: 'user-1',
    });
    expect((await inject('DELETE', `ws_signing_key/${signing.uid}/`)).statusCode).toBe(204);
    await expect(verifyInboxToken(t().db, { authorization: publicKey, signature: oldToken })).rejects.toMatchObject({
      status: 401,
    });
    await expect(verifyInboxToken(t().db, { authorization: publicKey, signature: newToken })).resolves.toMatchObject({
      distinctId: 'user-1',
    });
    expect((await inject('DELETE', `ws_signing_key/${signing.uid}/`)).statusCode).toBe(404);
  });

  it('verifies a valid token and refuses expired, wrong-key, wrong-workspace, tampered, none and HS256 tokens', async () => {
    const { ws, publicKey, signing } = await setup();
    const verify = (signature: string, authorization = publicKey) =>
      verifyInboxToken(t().db, { authorization, signature });
    const refused = { status: 401 };

    await expect(verify(await mint(signing.private_key_pem))).resolves.toEqual({
      workspaceId: ws.workspaceId,
      workspaceSlug: ws.slug,
      distinctId: 'user-1',
      tenantId: 'acme',
    });
    await expect(
      verify(await mint(signing.private_key_pem, {}, { kid: signing.uid }), `Bearer ${publicKey}`),
    ).resolves.toMatchObject({ distinctId: 'user-1' });
    await expect(verify(await mint(signing.private_key_pem, {}, { kid: 'signing_key_other' }))).rejects.toMatchObject(
      refused,
    );

    const expired = await mint(signing.private_key_pem, {}, { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    await expect(verify(expired)).rejects.toMatchObject(refused);

    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    await expect(verify(await mint(stranger.toString()))).rejects.toMatchObject(refused);

    const other = await setup();
    await expect(verify(await mint(signing.private_key_pem), other.publicKey)).rejects.toMatchObject(refused);
    await expect(verify(await mint(other.signing.private_key_pem))).rejects.toMatchObject(refused);

    const [header, payload, signature] = (await mint(signing.private_key_pem)).split('.');
    const forged = Buffer.from(
      JSON.stringify({ entity_type: 'subscriber', entity_id: 'user-2', exp: 9_999_999_999 }),
    ).toString('base64url');
    await expect(verify(`${header}.${forged}.${signature}`)).rejects.toMatchObject(refused);
    await expect(verify(`${header}.${payload}.${signature!.slice(0, -4)}AAAA`)).rejects.toMatchObject(refused);

    const unsecured = new UnsecuredJWT({ entity_type: 'subscriber', entity_id: 'user-1' })
      .setExpirationTime('1h')
      .encode();
    await expect(verify(unsecured)).rejects.toMatchObject(refused);
    // HS256 with the public key as the HMAC secret: the classic algorithm-confusion attack.
    const hs256 = await new SignJWT({ entity_type: 'subscriber', entity_id: 'user-1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(signing.public_key_pem));
    await expect(verify(hs256)).rejects.toMatchObject(refused);

    await expect(verify(await mint(signing.private_key_pem, { entity_type: 'object' }))).rejects.toMatchObject(refused);
    await expect(verify(await mint(signing.private_key_pem, { entity_id: undefined }))).rejects.toMatchObject(refused);
    await expect(verify('not-a-jwt')).rejects.toMatchObject(refused);
    await expect(verify(await mint(signing.private_key_pem), 'SS.PUBK.unknown')).rejects.toMatchObject(refused);
    await expect(verifyInboxToken(t().db, { authorization: publicKey })).rejects.toMatchObject(refused);
  });
});
