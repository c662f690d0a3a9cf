import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { callersOf } from '../support/callers.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

describe('workspace isolation on users, events and tenants', () => {
  const t = useTestApp();

  it("never reads or changes another workspace's data", async () => {
    const a = await createWorkspaceFixture(t());
    const b = await createWorkspaceFixture(t());
    const bCall = callersOf(t, b)['api key'];
    await bCall('POST', '/v1/user/shared/', { owner: 'b', $email: 'b@x.com' });
    await bCall('POST', '/v1/tenant/b-tenant/', { properties: { owner: 'b' } });
    await bCall('POST', '/event/', { event: 'b_event', distinct_id: 'shared', $insert_id: 'shared-insert' });
    const snapshot = async () => ({
      user: (await bCall('GET', '/v1/user/shared/')).json(),
      tenant: (await bCall('GET', '/v1/tenant/b-tenant/')).json(),
      events: await t()
        .db.selectFrom('events')
        .select(['event', 'insert_id'])
        .where('workspace_id', '=', b.workspaceId)
        .execute(),
    });
    const before = await snapshot();

    for (const [name, call] of Object.entries(callersOf(t, a))) {
      expect((await call('GET', '/v1/user/shared/')).statusCode, name).toBe(404);
      expect((await call('GET', '/v1/user/')).json().results, name).toEqual([]);
      expect(
        (await call('PATCH', '/v1/user/shared/', { operations: [{ $set: { owner: 'a' } }] })).statusCode,
        name,
      ).toBe(404);
      expect((await call('DELETE', '/v1/user/shared/')).statusCode, name).toBe(404);
      expect((await call('DELETE', '/v1/bulk/user/', { distinct_ids: ['shared'] })).statusCode, name).toBe(204);
      expect((await call('GET', '/v1/tenant/b-tenant/')).statusCode, name).toBe(404);
      expect((await call('DELETE', '/v1/tenant/b-tenant/')).statusCode, name).toBe(404);
      expect(
        (await call('GET', '/v1/tenant/')).json().results.map((r: { tenant_id: string }) => r.tenant_id),
        name,
      ).toEqual(['default']);
      // The same identifiers written from A land in A.
      expect(
        (await call('POST', '/event/', { event: 'b_event', distinct_id: 'shared', $insert_id: 'shared-insert' })).json()
          .tracked,
        name,
      ).toBe(name === 'api key' ? 1 : 0);
      expect((await call('POST', '/v1/tenant/b-tenant/', { properties: { owner: 'a' } })).statusCode, name).toBe(201);
      expect((await call('POST', '/v1/user/shared/', { owner: 'a' })).json().properties, name).toEqual({ owner: 'a' });
      expect((await call('DELETE', '/v1/user/shared/')).statusCode, name).toBe(204);
      expect((await call('DELETE', '/v1/tenant/b-tenant/')).statusCode, name).toBe(204);
    }
    expect(await snapshot()).toEqual(before);
    expect(before.user.properties).toEqual({ owner: 'b' });
  });
});
