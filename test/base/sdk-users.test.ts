import { Event } from '@suprsend/node-sdk';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { sdkFor } from '../support/sdk.js';

const active = (value: unknown, id_provider?: string) => ({
  value,
  status: 'active',
  perma_status: 'active',
  ...(id_provider ? { id_provider } : {}),
});

describe('@suprsend/node-sdk against Herald (signed workspace key)', () => {
  const t = useTestApp();

  it('upserts, gets, edits with UserEdit helpers, lists and deletes users', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const created = await sdk.users.upsert('sdk user/1', {
      $email: ['ada@example.com'],
      plan: 'free',
      visits: 1,
      tags: ['a'],
      gone: true,
    });
    expect(created).toMatchObject({
      distinct_id: 'sdk user/1',
      properties: { plan: 'free' },
      $email: [active('ada@example.com')],
    });

    const edit = sdk.users.get_edit_instance('sdk user/1');
    edit.add_email('second@example.com');
    edit.add_sms('+14155550123');
    edit.add_slack({ email: 'ada@example.com', access_token: 'xoxb-123' });
    edit.set_timezone('Europe/Berlin');
    edit.set_preferred_language('de');
    edit.append('tags', 'b');
    edit.remove('tags', 'a');
    edit.unset('gone');
    edit.set_once('first_plan', 'free');
    edit.set_once('plan', 'ignored');
    edit.increment('visits', 2);
    edit.set('plan', 'pro');
    const edited = await sdk.users.edit(edit);
    expect(edited).toEqual({
      distinct_id: 'sdk user/1',
      properties: {
        plan: 'pro',
        visits: 3,
        tags: ['b'],
        first_plan: 'free',
        $timezone: 'Europe/Berlin',
        $locale: 'de',
      },
      created_at: created.created_at,
      updated_at: expect.any(String),
      $email: [active('ada@example.com'), active('second@example.com')],
      $sms: [active('+14155550123')],
      $slack: [active({ email: 'ada@example.com', access_token: 'xoxb-123' })],
    });
    expect(await sdk.users.get('sdk user/1')).toEqual(edited);

    await sdk.users.upsert('second', {});
    const page = await sdk.users.list({ limit: 1 });
    expect(page.results.map((u: { distinct_id: string }) => u.distinct_id)).toEqual(['sdk user/1']);
    const next = await sdk.users.list({ limit: 1, after: page.meta.after });
    expect(next.results.map((u: { distinct_id: string }) => u.distinct_id)).toEqual(['second']);

    expect(await sdk.users.delete('sdk user/1')).toEqual({ success: true, status_code: 204 });
    await expect(sdk.users.get('sdk user/1')).rejects.toThrow("404: user [distinct_id: 'sdk user/1'] not found");
    expect(await sdk.users.bulk_delete({ distinct_ids: ['second'] })).toEqual({ success: true, status_code: 204 });
    expect((await sdk.users.list()).results).toEqual([]);
  });

  it('reports validation errors through the SDK', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    await sdk.users.upsert('u', {});
    const edit = sdk.users.get_edit_instance('u');
    edit.add_email('not-an-email');
    await expect(sdk.users.edit(edit)).rejects.toThrow(
      "400: operations[0].$append.$email: 'not-an-email' is not a valid email address",
    );
  });

  it('applies async_edit through /event/, creating the user', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const edit = sdk.users.get_edit_instance('async-user');
    edit.add_androidpush('fcm-token-1');
    edit.add_iospush('apns-token-1');
    edit.set('tier', 'gold');
    const result = await sdk.users.async_edit(edit);
    expect(result).toMatchObject({ success: true, status_code: 202 });
    expect(await sdk.users.get('async-user')).toMatchObject({
      properties: { tier: 'gold' },
      $androidpush: [active('fcm-token-1', 'fcm')],
      $iospush: [active('apns-token-1', 'apns')],
    });
  });

  it('takes a bulk user edit of 400 identity records in one POST /event/ (issue #32 point 11)', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const bulk = sdk.users.get_bulk_edit_instance();
    for (let i = 0; i < 400; i++) {
      const edit = sdk.users.get_edit_instance(`bulk-${String(i).padStart(3, '0')}`);
      edit.add_email(`bulk${i}@example.com`);
      edit.set('n', i);
      bulk.append(edit);
    }
    const response = await bulk.save();
    // The SDK sends the 400 records in one call (its chunk holds up to 400), and every one is applied.
    expect(response).toMatchObject({ status: 'success', total: 400, success: 400, failure: 0 });
    const users = await t()
      .db.selectFrom('users')
      .select(['distinct_id', 'properties'])
      .where('workspace_id', '=', ws.workspaceId)
      .orderBy('distinct_id')
      .execute();
    expect(users).toHaveLength(400);
    expect(users[399]).toEqual({ distinct_id: 'bulk-399', properties: { n: 399 } });
    expect(await sdk.users.get('bulk-007')).toMatchObject({ $email: [active('bulk7@example.com')] });
  });

  it('tracks events, once per idempotency key', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const event = new Event('u1', 'order_placed', { amount: 10 }, { idempotency_key: 'order-1', tenant_id: 'acme' });
    expect(await sdk.track_event(event)).toMatchObject({ success: true, status_code: 202 });
    expect(
      await sdk.track_event(new Event('u1', 'order_placed', { amount: 10 }, { idempotency_key: 'order-1' })),
    ).toMatchObject({ success: true });
    const rows = await t()
      .db.selectFrom('events')
      .select(['distinct_id', 'event', 'properties', 'tenant_id', 'insert_id'])
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(rows).toEqual([
      {
        distinct_id: 'u1',
        event: 'order_placed',
        properties: { amount: 10, $ss_sdk_version: expect.any(String) },
        tenant_id: 'acme',
        insert_id: 'order-1',
      },
    ]);
  });

  it('upserts, gets and lists tenants', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const tenant = await sdk.tenants.upsert('acme', {
      tenant_name: 'Acme',
      primary_color: '#123456',
      properties: { tier: 1 },
    });
    expect(tenant).toMatchObject({
      tenant_id: 'acme',
      tenant_name: 'Acme',
      primary_color: '#123456',
      properties: { tier: 1 },
    });
    expect(await sdk.tenants.get('acme')).toEqual(tenant);
    const list = await sdk.tenants.list({ limit: 10 });
    expect(list.meta).toEqual({ count: 2, limit: 10, offset: 0 });
    expect(list.results.map((r: { tenant_id: string }) => r.tenant_id)).toEqual(['default', 'acme']);
    await expect(sdk.tenants.get('nope')).rejects.toThrow('404: No tenant found for tenant_id nope');
  });

  it('fails with 401 when the secret is wrong', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), { workspaceKey: ws.workspaceKey, workspaceSecret: 'wss_wrong' });
    await expect(sdk.users.get('x')).rejects.toThrow('401: invalid signature or workspace key');
  });
});
