import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { callersOf, type Method } from '../support/callers.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

describe('workspace isolation on objects and subscriptions', () => {
  const t = useTestApp();

  it("never reads or changes another workspace's objects or subscriptions, on any route", async () => {
    const a = await createWorkspaceFixture(t());
    const b = await createWorkspaceFixture(t());
    const bCall = callersOf(t, b)['api key'];
    await bCall('POST', '/v1/object/teams/t/', { owner: 'b' });
    await bCall('POST', '/v1/object/orgs/o/', {});
    await bCall('POST', '/v1/object/teams/t/subscription/', { recipients: ['u'] });
    await bCall('POST', '/v1/object/orgs/o/subscription/', { recipients: [{ object_type: 'teams', id: 't' }] });
    const snapshot = async () => ({
      t: (await bCall('GET', '/v1/object/teams/t/')).json(),
      o: (await bCall('GET', '/v1/object/orgs/o/')).json(),
      subs: (await bCall('GET', '/v1/object/teams/t/subscription/')).json().results,
      user: (await bCall('GET', '/v1/user/u/subscribed_to/object/')).json().results,
    });
    const before = await snapshot();

    for (const [name, call] of Object.entries(callersOf(t, a))) {
      const notFound: [Method, string, unknown?][] = [
        ['GET', '/v1/object/teams/t/'],
        ['PATCH', '/v1/object/teams/t/', { operations: [{ $set: { owner: 'a' } }] }],
        ['DELETE', '/v1/object/teams/t/'],
        ['GET', '/v1/object/teams/t/subscription/'],
        ['POST', '/v1/object/teams/t/subscription/', { recipients: ['u2'] }],
        ['DELETE', '/v1/object/teams/t/subscription/', { recipients: ['u'] }],
        ['GET', '/v1/object/teams/t/subscribed_to/object/'],
        ['GET', '/v1/user/u/subscribed_to/object/'],
      ];
      for (const [method, url, payload] of notFound) {
        expect((await call(method, url, payload)).statusCode, `${name} ${method} ${url}`).toBe(404);
      }
      expect((await call('GET', '/v1/object/teams/')).json().results, name).toEqual([]);
      expect((await call('DELETE', '/v1/bulk/object/teams/', { object_ids: ['t'] })).statusCode, name).toBe(204);
      // B's object cannot be named as a child from A either.
      await call('POST', '/v1/object/orgs/mine/', {});
      const child = await call('POST', '/v1/object/orgs/mine/subscription/', {
        recipients: [{ object_type: 'teams', id: 't' }],
      });
      expect(child.json(), name).toEqual({ code: 400, message: "recipients[0]: object 'teams/t' not found" });
      expect((await call('DELETE', '/v1/object/orgs/mine/')).statusCode, name).toBe(204);
    }
    expect(await snapshot()).toEqual(before);
    expect(before.o.subscriptions_count).toBe(1);
    expect(before.t.subscriptions_count).toBe(1);
  });
});
