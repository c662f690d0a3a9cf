import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { routeCatalogue } from '../support/routes.js';

const addFormats = ((formats as unknown as { default?: typeof formats }).default ?? formats) as unknown as (
  ajv: Ajv,
) => Ajv;

describe('POST /event/ and the body schema its OpenAPI publishes', () => {
  const t = useTestApp();

  const good = { event: 'ok', distinct_id: 'u1' };
  const edit = { distinct_id: 'u2', $user_operations: [{ $set: { plan: 'pro' } }] };
  const rejectedByTheSchema: [string, unknown][] = [
    ['a record without distinct_id', { event: 'x' }],
    ['a $time that is not a number', { ...good, $time: 'noon' }],
    ['a $time after year 9999', { ...good, $time: 253_402_300_800_000 }],
    ['properties that are a list', { ...good, properties: [] }],
    ['an empty event name', { ...good, event: '' }],
    ['an empty list', []],
    ['101 records', Array.from({ length: 101 }, () => good)],
    ['a list holding a string', [good, 'text']],
    ['$add of something other than a number', { ...edit, $user_operations: [{ $add: { logins: 'one' } }] }],
    ['$user_operations that is not a list', { ...edit, $user_operations: { $set: {} } }],
    ['more than 100 operations', { ...edit, $user_operations: Array.from({ length: 101 }, () => ({ $set: {} })) }],
    ['a tenant_id over 64 characters', { ...good, tenant_id: 'x'.repeat(65) }],
  ];

  it('refuses every body the published schema rejects, naming a field, and accepts bodies it allows', async () => {
    const ws = await createWorkspaceFixture(t());
    const route = (await routeCatalogue(t().app)).find((r) => r.method === 'POST' && r.path === '/event/');
    expect(route?.body).toBeDefined();
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(ajv);
    const published = ajv.compile(route!.body!);
    const post = (payload: unknown) =>
      t().app.inject({ method: 'POST', url: '/event/', headers: ws.base, payload: payload as object });

    for (const [label, body] of rejectedByTheSchema) {
      expect(published(body), label).toBe(false);
      const response = await post(body);
      expect(response.statusCode, label).toBe(400);
      expect(Object.keys(response.json().detail ?? {}), label).toHaveLength(1);
    }
    for (const body of [good, edit, [good, edit], [{ ...good, $time: 0, tenant_id: 'acme', properties: {} }]]) {
      expect(published(body), JSON.stringify(body)).toBe(true);
      expect((await post(body)).statusCode, JSON.stringify(body)).toBe(202);
    }
  });
});
