import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { configClient, definition, workflowBody } from '../support/config.js';
import { eventPayloadErrors } from '../../src/services/payload-schemas.js';

const ORDER = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['order_id', 'amount'],
  properties: { order_id: { type: 'string' }, amount: { type: 'number', minimum: 0 } },
};

describe('payload schemas', () => {
  const t = useTestApp();

  it('saves drafts, commits them into versions, and shows draft and live apart', async () => {
    const ws = await createWorkspaceFixture(t());
    const { inject } = configClient(t, ws);
    const saved = await inject('POST', '/schema/order-placed/', { name: 'Order placed', json_schema: ORDER });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual({
      slug: 'order-placed',
      name: 'Order placed',
      status: 'draft',
      hash: expect.stringMatching(/^[0-9a-f]{32}$/),
      json_schema: ORDER,
      version_no: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      committed_at: null,
      commit_message: null,
      commit_result: null,
    });
    expect((await inject('GET', '/schema/order-placed/?mode=live')).statusCode).toBe(404);

    const committed = await inject('PATCH', '/schema/order-placed/commit/?commit_message=first');
    expect(committed.statusCode).toBe(200);
    expect(committed.json()).toMatchObject({ status: 'live', version_no: 1, commit_message: 'first' });
    const again = await inject('PATCH', '/schema/order-placed/commit/');
    expect([again.statusCode, again.json().message]).toEqual([400, "schema 'order-placed' has no changes to commit"]);

    // Same content in another key order: same hash, nothing to commit.
    const reordered = {
      properties: ORDER.properties,
      required: ORDER.required,
      type: 'object',
      $schema: ORDER.$schema,
    };
    const unchanged = await inject('POST', '/schema/order-placed/?commit=true', {
      name: 'Order placed',
      json_schema: reordered,
    });
    expect(unchanged.json()).toMatchObject({
      status: 'live',
      hash: saved.json().hash,
      commit_result: { is_committed: false, errors: ['hash: no uncommitted changes found'] },
    });

    const changed = { ...ORDER, required: ['order_id'] };
    const second = await inject('POST', '/schema/order-placed/?commit=true&commit_message=relaxed', {
      name: 'Order placed',
      json_schema: changed,
    });
    expect(second.json()).toMatchObject({
      status: 'live',
      version_no: 2,
      commit_result: { is_committed: true, errors: [] },
    });
    await inject('POST', '/schema/refund/', { name: 'Refund', json_schema: { type: 'object' } });
    const drafts = (await inject('GET', '/schema/')).json();
    expect(drafts.meta).toEqual({ count: 2, limit: 20, offset: 0 });
    expect(drafts.results.map((s: { slug: string; status: string }) => [s.slug, s.status])).toEqual([
      ['order-placed', 'live'],
      ['refund', 'draft'],
    ]);
    const live = (await inject('GET', '/schema/?mode=live')).json();
    expect(live.results.map((s: { slug: string; version_no: number }) => [s.slug, s.version_no])).toEqual([
      ['order-placed', 2],
    ]);
  });

  it('refuses a json_schema that is not a JSON Schema, and unknown schemas', async () => {
    const ws = await createWorkspaceFixture(t());
    const { inject } = configClient(t, ws);
    const data = await inject('POST', '/schema/bad/', { name: 'x', json_schema: { order_id: 'A1' } });
    expect(data.statusCode).toBe(400);
    expect(data.json().detail).toEqual({
      json_schema: [
        "Schema looks like JSON data, not a JSON Schema. Include keywords like '$schema', 'type', 'properties', or '$defs'.",
      ],
    });
    const broken = await inject('POST', '/schema/bad/', { name: 'x', json_schema: { type: 'no-such-type' } });
    expect(broken.statusCode).toBe(400);
    expect((await inject('GET', '/schema/bad/')).statusCode).toBe(404);
    expect((await inject('PATCH', '/schema/bad/commit/')).statusCode).toBe(404);
  });
});

describe('the event registry', () => {
  const t = useTestApp();

  it('registers events, links a committed schema (pinned or live), delinks it, and validates payloads through it', async () => {
    const ws = await createWorkspaceFixture(t());
    const { inject, commitDefinition } = configClient(t, ws);
    await inject('POST', '/schema/order/?commit=true', { name: 'Order', json_schema: ORDER });
    await inject('POST', '/schema/draft-only/', { name: 'Draft', json_schema: { type: 'object' } });

    const created = await inject('POST', '/event/', { name: 'Order Placed', payload_schema: { schema: 'order' } });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toEqual({
      name: 'Order Placed',
      description: null,
      payload_schema: { schema: 'order', version_no: null },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const url = `/event/${encodeURIComponent('Order Placed')}/`;
    expect((await inject('GET', url)).json()).toEqual(created.json());

    expect(await eventPayloadErrors(t().db, ws.workspaceId, 'Order Placed', { order_id: 'A1', amount: 3 })).toEqual([]);
    expect(await eventPayloadErrors(t().db, ws.workspaceId, 'Order Placed', { amount: -1 })).toEqual([
      "/: must have required property 'order_id'",
      '/amount: must be >= 0',
    ]);
    // The live version moves on: an unpinned link follows it, a pinned one stays.
    await inject('POST', '/schema/order/?commit=true', { name: 'Order', json_schema: { ...ORDER, required: [] } });
    expect(await eventPayloadErrors(t().db, ws.workspaceId, 'Order Placed', {})).toEqual([]);
    const pinned = await inject('PATCH', url, { payload_schema: { schema: 'order', version_no: 1 } });
    expect(pinned.json().payload_schema).toEqual({ schema: 'order', version_no: 1 });
    expect((await eventPayloadErrors(t().db, ws.workspaceId, 'Order Placed', {})).length).toBe(2);

    for (const [link, reason] of [
      [{ schema: 'nope' }, "schema 'nope' not found"],
      [{ schema: 'draft-only' }, "schema 'draft-only' has never been committed"],
      [{ schema: 'order', version_no: 7 }, "schema 'order' has no version 7"],
    ] as const) {
      const refused = await inject('PATCH', url, { payload_schema: link });
      expect([refused.statusCode, refused.json().detail], reason).toEqual([400, { payload_schema: [reason] }]);
    }

    await commitDefinition(definition(['orders']));
    await inject(
      'POST',
      '/workflow/order-confirmation/',
      workflowBody('orders', { trigger_type: 'event', trigger_events: ['Order Placed'] }),
    );
    await inject(
      'POST',
      '/workflow/unrelated/',
      workflowBody('orders', { trigger_type: 'event', trigger_events: ['Other'] }),
    );
    expect((await inject('GET', `${url}linked_workflows/`)).json()).toEqual({
      results: [{ slug: 'order-confirmation', usage: ['Trigger'] }],
    });

    const delinked = await inject('PATCH', `${url}delink_schema/`);
    expect([delinked.statusCode, delinked.json().payload_schema]).toEqual([200, null]);
    expect(await eventPayloadErrors(t().db, ws.workspaceId, 'Order Placed', {})).toEqual([]);
    const twice = await inject('PATCH', `${url}delink_schema/`);
    expect([twice.statusCode, twice.json().message]).toEqual([400, 'Event does not have a linked schema to delink']);

    await inject('POST', '/event/', { name: 'Another', description: 'second' });
    const list = (await inject('GET', '/event/?limit=1&offset=1')).json();
    expect(list.meta).toEqual({ count: 2, limit: 1, offset: 1 });
    expect(list.results.map((e: { name: string }) => e.name)).toEqual(['Order Placed']);
    const missing = await inject('GET', '/event/ghost/');
    expect([missing.statusCode, missing.json().message]).toEqual([
      404,
      `Event 'ghost' not found in workspace '${ws.slug}'`,
    ]);
  });
});
