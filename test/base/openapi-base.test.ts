import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

describe('OpenAPI for users, events, tenants, objects and subscriptions', () => {
  const t = useTestApp();

  it('documents every route with its responses, and the User schema GET returns', async () => {
    const doc = (await t().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const expected: Record<string, string[]> = {
      '/v1/user/': ['get'],
      '/v1/user/{distinct_id}/': ['get', 'post', 'patch', 'delete'],
      '/v1/bulk/user/': ['delete'],
      '/event/': ['post'],
      '/v1/tenant/': ['get'],
      '/v1/tenant/{tenant_id}/': ['get', 'post', 'delete'],
      '/v1/object/{object_type}/': ['get'],
      '/v1/object/{object_type}/{id}/': ['get', 'post', 'patch', 'delete'],
      '/v1/bulk/object/{object_type}/': ['delete'],
      '/v1/object/{object_type}/{id}/subscription/': ['get', 'post', 'delete'],
      '/v1/object/{object_type}/{id}/subscribed_to/object/': ['get'],
      '/v1/user/{distinct_id}/subscribed_to/object/': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods) {
        const operation = doc.paths[path]?.[method];
        expect(operation, `${method} ${path}`).toBeDefined();
        expect(Object.keys(operation.responses), `${method} ${path}`).toContain('401');
      }
    }
    const user = doc.components.schemas.User;
    expect(user.required).toEqual(['distinct_id', 'properties', 'created_at', 'updated_at']);
    expect(Object.keys(user.properties)).toEqual(
      expect.arrayContaining([
        'distinct_id',
        'properties',
        'created_at',
        'updated_at',
        '$email',
        '$sms',
        '$whatsapp',
        '$inbox',
        '$webpush',
        '$androidpush',
        '$iospush',
        '$slack',
        '$ms_teams',
      ]),
    );
    expect(doc.paths['/v1/user/{distinct_id}/'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/User',
    });
    expect(Object.keys(doc.components.schemas.Subscription.properties)).toEqual([
      'properties',
      'user',
      'object',
      'child_object',
      'created_at',
      'updated_at',
    ]);
    expect(doc.components.schemas.Object.required).toEqual([
      'object_type',
      'id',
      'subscriptions_count',
      'properties',
      'created_at',
      'updated_at',
    ]);
  });
});
