import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../src/channels/outbound.js';
import { useTestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { HttpPeer } from '../support/http-peer.js';
import { twilioSignature } from '../support/signing.js';
import { liveTemplate } from '../support/templates.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';

/**
 * Twilio status callbacks (docs/channels.md, "Twilio status callbacks"; product spec §5): a send names Herald's
 * callback URL (PUBLIC_URL + the vendor's path); Twilio's signed POST moves the message to delivered or
 * delivery_failure, once, never backwards; a bad signature is 403, an unknown vendor or message 404. The Twilio API
 * is a local stand-in; the callbacks are signed with Twilio's documented algorithm (test/support/signing.ts).
 */
const PUBLIC_URL = 'https://herald.example.com';
const TOKEN = 'twilio-auth-token-callbacks-01';

describe('twilio status callbacks', () => {
  const allowed = '127.0.0.1';
  const t = useTestApp(
    { PUBLIC_URL, OUTBOUND_ALLOWED_HOSTS: allowed },
    {
      engine: {
        renderer: 'templates',
        engine: {
          publicUrl: PUBLIC_URL,
          outbound: outboundPolicy({ allowedHosts: allowed }),
          deliveryTimeoutMs: 10_000,
        },
      },
      privateDatabase: true,
    },
  );
  let twilio: HttpPeer;
  let receiver: HttpPeer;
  beforeAll(async () => {
    twilio = await HttpPeer.start();
    receiver = await HttpPeer.start();
  });
  beforeEach(() => {
    twilio.reset();
    receiver.reset();
    twilio.answerAlways(() => ({
      status: 201,
      body: { sid: `SM${randomBytes(16).toString('hex')}`, status: 'queued' },
    }));
  });
  afterAll(async () => {
    await twilio.close();
    await receiver.close();
  });

  async function twilioVendor(ws: WorkspaceFixture, token = TOKEN) {
    const response = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'sms',
      provider: 'twilio',
      is_default: true,
      config: { account_sid: 'AC0123456789', auth_token: token, from: '+15550000000', base_url: twilio.url },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string };
  }

  /** Sends one SMS to `who` and waits for Twilio to take it: the message row and the MessageSid Twilio answered. */
  async function sentSms(ws: WorkspaceFixture, who: string) {
    const slug = `sms-${who}`;
    await liveTemplate(t, ws, slug, ['sms']);
    await liveWorkflow(t, ws, slug, [node('send_sms', { template: slug })]);
    const accepted = await trigger(t, ws, {
      workflow: slug,
      recipients: [{ distinct_id: who, $sms: ['+15551230000'] }],
    });
    expect(accepted.statusCode, accepted.body).toBe(202);
    return waitFor(
      async () => {
        const row = await messageOf(ws, who);
        return row?.status === 'sent_by_vendor' ? row : undefined;
      },
      20_000,
      'the SMS sent',
    );
  }

  const messageOf = (ws: WorkspaceFixture, who: string) =>
    t()
      .db.selectFrom('messages')
      .select(['id', 'status', 'error', 'delivered_at', 'provider_message_id'])
      .where('workspace_id', '=', ws.workspaceId)
      .where('distinct_id', '=', who)
      .executeTakeFirst();

  const callbackPath = (ws: WorkspaceFixture, vendorId: string) => `/provider_callback/twilio/${ws.slug}/${vendorId}/`;

  /** Posts a status callback as Twilio does: form-encoded, signed over PUBLIC_URL + path and the params. */
  function callback(
    path: string,
    params: Record<string, string>,
    options: { token?: string; signature?: string | null } = {},
  ) {
    const signature =
      options.signature === undefined
        ? twilioSignature(options.token ?? TOKEN, `${PUBLIC_URL}${path}`, params)
        : options.signature;
    return t().app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(signature === null ? {} : { 'x-twilio-signature': signature }),
      },
      payload: new URLSearchParams(params).toString(),
    });
  }

  const statusParams = (sid: string, status: string, extra: Record<string, string> = {}) => ({
    AccountSid: 'AC0123456789',
    ApiVersion: '2010-04-01',
    From: '+15550000000',
    MessageSid: sid,
    MessageStatus: status,
    SmsSid: sid,
    SmsStatus: status,
    To: '+15551230000',
    ...extra,
  });

  it('asks for callbacks at PUBLIC_URL, and a signed `delivered` moves the message once, with one message.delivered event', async () => {
    const ws = await engineWorkspace(t);
    const vendor = await twilioVendor(ws);
    const endpoint = await configClient(t, ws).inject('POST', '/webhook_endpoint/', {
      url: `${receiver.url}/events`,
      events: ['message.delivered'],
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const secret = endpoint.json().secret as string;

    const sent = await sentSms(ws, 'ann');
    const form = new URLSearchParams(twilio.last.text);
    const path = callbackPath(ws, vendor.id);
    expect(form.get('StatusCallback')).toBe(`${PUBLIC_URL}${path}`);
    expect(sent.provider_message_id).toMatch(/^SM[0-9a-f]{32}$/);
    const sid = sent.provider_message_id!;

    // Progress short of an outcome changes nothing.
    expect((await callback(path, statusParams(sid, 'sent'))).statusCode).toBe(204);
    expect((await messageOf(ws, 'ann'))!.status).toBe('sent_by_vendor');

    const delivered = await callback(path, statusParams(sid, 'delivered'));
    expect(delivered.statusCode, delivered.body).toBe(204);
    expect(delivered.body).toBe('');
    const after = (await messageOf(ws, 'ann'))!;
    expect(after.status).toBe('delivered');
    expect(after.delivered_at).not.toBeNull();

    // Replayed, then a late failure and a late `sent`: never backwards, no second event.
    for (const status of ['delivered', 'undelivered', 'sent'])
      expect((await callback(path, statusParams(sid, status, { ErrorCode: '30003' }))).statusCode).toBe(204);
    expect((await messageOf(ws, 'ann'))!.status).toBe('delivered');

    await waitFor(async () => receiver.requests.length >= 1, 20_000, 'the message.delivered event');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.requests).toHaveLength(1);
    const event = new Webhook(secret).verify(receiver.requests[0]!.text, receiver.requests[0]!.headers) as {
      type: string;
      data: { message_id: string; status: string };
    };
    expect(event.type).toBe('message.delivered');
    expect(event.data.message_id).toBe(sent.id);
  });

  it('moves the message to delivery_failure on `failed` or `undelivered`, with the error code', async () => {
    const ws = await engineWorkspace(t);
    const vendor = await twilioVendor(ws);
    const path = callbackPath(ws, vendor.id);
    for (const [who, status] of [
      ['bob', 'undelivered'],
      ['cat', 'failed'],
    ] as const) {
      const sid = (await sentSms(ws, who)).provider_message_id!;
      expect((await callback(path, statusParams(sid, status, { ErrorCode: '30006' }))).statusCode).toBe(204);
      const row = (await messageOf(ws, who))!;
      expect(row.status).toBe('delivery_failure');
      expect(row.error).toMatchObject({
        code: '30006',
        message: `twilio reported the message ${status} (error 30006)`,
      });
      // A late `delivered` does not revive it.
      expect((await callback(path, statusParams(sid, 'delivered'))).statusCode).toBe(204);
      expect((await messageOf(ws, who))!.status).toBe('delivery_failure');
    }
  });

  it('refuses a missing or bad signature with 403, and changes nothing', async () => {
    const ws = await engineWorkspace(t);
    const vendor = await twilioVendor(ws);
    const path = callbackPath(ws, vendor.id);
    const sid = (await sentSms(ws, 'dan')).provider_message_id!;
    const params = statusParams(sid, 'delivered');
    const refusals = [
      await callback(path, params, { signature: null }),
      await callback(path, params, { signature: '' }),
      await callback(path, params, { token: 'another-token' }),
      // Signed over another URL (the listening address, not PUBLIC_URL).
      await callback(path, params, { signature: twilioSignature(TOKEN, `http://127.0.0.1${path}`, params) }),
      // A parameter changed after signing.
      await callback(
        path,
        { ...params, MessageStatus: 'failed' },
        { signature: twilioSignature(TOKEN, `${PUBLIC_URL}${path}`, params) },
      ),
    ];
    for (const refused of refusals) {
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 403, message: 'the request is not signed by this vendor' });
    }
    expect((await messageOf(ws, 'dan'))!.status).toBe('sent_by_vendor');
  });

  it("never reaches another workspace's message or vendor: 404", async () => {
    const mine = await engineWorkspace(t);
    const theirs = await engineWorkspace(t);
    const myVendor = await twilioVendor(mine);
    const theirVendor = await twilioVendor(theirs, 'their-own-token');
    const sid = (await sentSms(mine, 'eve')).provider_message_id!;
    // Their vendor, signed with their token, naming my message: not found in their workspace.
    const crossed = await callback(callbackPath(theirs, theirVendor.id), statusParams(sid, 'delivered'), {
      token: 'their-own-token',
    });
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json().message).toBe('message not found');
    // My workspace's slug with their vendor, and an unknown vendor: no such vendor.
    for (const path of [
      callbackPath(mine, theirVendor.id),
      callbackPath(mine, 'vnd_unknown'),
      `/provider_callback/twilio/no-such-ws/${myVendor.id}/`,
    ]) {
      const answer = await callback(path, statusParams(sid, 'delivered'));
      expect(answer.statusCode).toBe(404);
      expect(answer.json().message).toBe('vendor not found');
    }
    // An unknown MessageSid, well signed.
    const unknown = await callback(
      callbackPath(mine, myVendor.id),
      statusParams('SM00000000000000000000000000000000', 'delivered'),
    );
    expect(unknown.statusCode).toBe(404);
    expect((await messageOf(mine, 'eve'))!.status).toBe('sent_by_vendor');
  });

  it('answers bad input with a 4xx in the full error shape', async () => {
    const ws = await engineWorkspace(t);
    const vendor = await twilioVendor(ws);
    const path = callbackPath(ws, vendor.id);
    const missing = await callback(path, { MessageStatus: 'delivered' });
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(missing.json()).sort()).toEqual(['code', 'detail', 'error_code', 'message', 'type']);
    const empty = await t().app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(empty.statusCode).toBe(400);
    const text = await t().app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    // Not a form: refused before the handler (the app's text parser leaves a string the body schema refuses).
    expect([400, 415]).toContain(text.statusCode);
    expect(Object.keys(text.json()).sort()).toEqual(['code', 'detail', 'error_code', 'message', 'type']);
    const huge = await callback(path, statusParams('SM1', 'delivered', { Body: 'x'.repeat(20_000) }));
    expect(huge.statusCode).toBe(413);
  });
});
