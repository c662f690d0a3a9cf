import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { signedHeaders } from '../support/signing.js';

/**
 * The hosted platform's workflows-as-code CLI (`suprsend`, github.com/suprsend/cli), its calls replayed
 * as its source makes them: the hub URL is Herald's root (`SUPRSEND_BASE_URL`), the management URL
 * Herald's `/management/` (`SUPRSEND_MGMNT_URL`), every call `Authorization: ServiceToken <token>`.
 * Each call names the Go function that makes it (mgmnt/*.go); the answers are read as its structs
 * read them.
 */
const SCHEMA = {
  type: 'object',
  title: 'Order',
  required: ['order_id'],
  properties: { order_id: { type: 'string' } },
  $defs: {},
};

function cli(t: () => TestApp, ws: WorkspaceFixture) {
  const headers = { authorization: `ServiceToken ${ws.serviceToken}` };
  // resty: a JSON body sets Content-Type; Post/Patch without one send nothing (and the CLI sets the header anyway).
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
    t().app.inject({
      method,
      url,
      headers: { ...headers, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const m = `/management/`;
  return {
    call,
    // mgmnt/client.go GetWorkspaceKeyAndSecret: url.JoinPath(hub, "v1", ws, "ws_key", "bridge", "/")
    bridge: () => call('GET', `/v1/${ws.slug}/ws_key/bridge/`),
    // mgmnt/schema.go PushSchema, FinalizeSchema, ListSchema, GetLinkedSchemas
    pushSchema: (slug: string, body: unknown, commit: string, message: string) =>
      call('POST', `${m}v1/${ws.slug}/schema/${slug}/?commit=${commit}&commit_message=${message}`, body),
    linkedSchemas: (mode: string, offset = 0) =>
      call('GET', `${m}v1/${ws.slug}/schema/all/linked/?limit=50&offset=${offset}&mode=${mode}`),
    // mgmnt/event.go pushEventsPayload, GetEvents
    pushEvents: (body: unknown) => call('POST', `${m}v1/${ws.slug}/bulk/event/`, body),
    events: () => call('GET', `${m}v1/${ws.slug}/event/?has_linked_schema=true&limit=50&offset=0`),
    // mgmnt/template.go CreateTemplate, PushTemplateVariant, GetVariantOrder, PostVariantOrder,
    // PreCommitValidate, CommitTemplate, GetTemplateVariants, ListTemplates
    createTemplate: (slug: string, enabled: string[]) =>
      call('POST', `${m}v2/${ws.slug}/template/${slug}/`, { enabled_channels: enabled }),
    pushVariant: (slug: string, variant: Record<string, unknown>) =>
      call('POST', `${m}v2/${ws.slug}/template/${slug}/channel/${variant.channel}/variant/${variant.id}/`, variant),
    variantOrder: (slug: string, mode: string) =>
      call('GET', `${m}v2/${ws.slug}/template/${slug}/variant/order/?mode=${mode}`),
    postVariantOrder: (slug: string, mode: string, order: unknown) =>
      call('POST', `${m}v2/${ws.slug}/template/${slug}/variant/order/?mode=${mode}`, order),
    preCommitValidate: (slug: string) => call('POST', `${m}v2/${ws.slug}/template/${slug}/pre_commit_validate/`),
    commitTemplate: (slug: string, message: string, variants?: unknown[]) =>
      call(
        'PATCH',
        `${m}v2/${ws.slug}/template/${slug}/commit/?commit_message=${encodeURIComponent(message)}`,
        variants && { variants },
      ),
    variants: (slug: string, mode: string, offset = 0) =>
      call(
        'GET',
        `${m}v2/${ws.slug}/template/${slug}/variant/?mode=${mode}&include_content=true&limit=50&offset=${offset}`,
      ),
    templates: (mode: string) => call('GET', `${m}v2/${ws.slug}/template/?limit=50&offset=0&mode=${mode}`),
    // mgmnt/translation.go PushTranslation, FinalizeTranslation, ListTranslations / GetTranslations
    pushTranslation: (file: string, body: unknown) =>
      call('POST', `${m}v1/${ws.slug}/translation/content/${file}/`, body),
    commitTranslations: (message: string) =>
      call('PATCH', `${m}v1/${ws.slug}/translation/commit/?commit_message=${message}`),
    translations: (mode: string, includeContent: string) =>
      call(
        'GET',
        `${m}v1/${ws.slug}/translation/?mode=${mode}&limit=10&offset=0&include_content=${includeContent}&include_version_info=true`,
      ),
  };
}

/** A variant as `template pull` writes it (the list's entry, content included) and `template push` sends it back. */
const variant = (id: string, subject: string, extra: Record<string, unknown> = {}) => ({
  channel: 'email',
  id,
  tenant_id: null,
  locale: 'en',
  conditions: [],
  seq_no: 1,
  needs_vendor_approval: false,
  content: { subject, html: '<p>Hello</p>', text: 'Hello' },
  ...extra,
});

describe('the hosted platform CLI against Herald', () => {
  const t = useTestApp();

  it('bridges a service token to the workspace key pair, which then signs base calls', async () => {
    const ws = await createWorkspaceFixture(t());
    const other = await createWorkspaceFixture(t());
    const answer = await cli(t, ws).bridge();
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ key: ws.workspaceKey, secret: ws.workspaceSecret });
    // Another workspace's slug answers that workspace's pair, never this one's.
    expect((await cli(t, other).bridge()).json()).toEqual({ key: other.workspaceKey, secret: other.workspaceSecret });

    // The suprsend-go client the CLI builds from the pair signs base calls with it.
    const { key, secret } = answer.json() as { key: string; secret: string };
    const url = '/v1/user/nobody-yet/';
    const signed = await t().app.inject({
      method: 'GET',
      url,
      headers: signedHeaders({ key, secret, method: 'GET', url }),
    });
    expect(signed.statusCode).toBe(404);

    // Refusals, in the full error shape: no token, the base surface's API key, an unknown token, an unknown workspace.
    const bridgeUrl = `/v1/${ws.slug}/ws_key/bridge/`;
    for (const headers of [{}, ws.base, { authorization: 'ServiceToken hst_nope' }]) {
      const refused = await t().app.inject({ method: 'GET', url: bridgeUrl, headers });
      expect(refused.statusCode).toBe(401);
      expect(Object.keys(refused.json()).sort()).toEqual(['code', 'detail', 'error_code', 'message', 'type']);
      expect(refused.body).not.toContain(ws.workspaceSecret);
    }
    const unknown = await t().app.inject({
      method: 'GET',
      url: '/v1/no-such-ws/ws_key/bridge/',
      headers: ws.management,
    });
    expect(unknown.statusCode).toBe(404);

    // A paused default pair is not handed out: another active pair is, else a 404.
    const pairs = await t().app.inject({
      method: 'GET',
      url: `/management/v1/${ws.slug}/ws_key/`,
      headers: ws.management,
    });
    const defaultId = (pairs.json().results as { id: string; is_default: boolean }[]).find((p) => p.is_default)!.id;
    const pause = await t().app.inject({
      method: 'PATCH',
      url: `/management/v1/${ws.slug}/ws_key/${defaultId}/`,
      headers: ws.management,
      payload: { is_active: false },
    });
    expect(pause.statusCode).toBe(200);
    expect((await cli(t, ws).bridge()).statusCode).toBe(404);
    const spare = await t().app.inject({
      method: 'POST',
      url: `/management/v1/${ws.slug}/ws_key/`,
      headers: ws.management,
      payload: { name: 'ci' },
    });
    expect((await cli(t, ws).bridge()).json()).toEqual({ key: spare.json().key, secret: spare.json().secret });
  });

  it('pushes schemas and events in bulk and reads which schemas are linked', async () => {
    const ws = await createWorkspaceFixture(t());
    const other = await createWorkspaceFixture(t());
    const c = cli(t, ws);
    expect((await c.pushSchema('order', { name: 'Order', json_schema: SCHEMA }, 'true', 'v1')).statusCode).toBe(200);
    expect((await c.pushSchema('refund', { name: 'Refund', json_schema: SCHEMA }, 'true', 'v1')).statusCode).toBe(200);
    expect((await c.linkedSchemas('live')).json()).toEqual({ meta: { count: 0, limit: 50, offset: 0 }, results: [] });

    // event push: the event.json files `event pull` wrote, read back ($schema stripped, the rest as listed).
    const pushed = await c.pushEvents({
      events: [
        {
          name: 'order.placed',
          description: 'An order',
          payload_schema: { schema: 'order', version_no: null },
          created_at: '2026-01-01T00:00:00+00:00',
          updated_at: '2026-01-01T00:00:00+00:00',
        },
        { name: 'order.shipped', description: null, payload_schema: { schema: 'order', version_no: 1 } },
        { name: 'refund.issued', payload_schema: { schema: 'refund' } },
        { name: 'plain' },
      ],
    });
    expect(pushed.statusCode).toBe(200);
    expect(pushed.json().results.map((e: { name: string }) => e.name)).toEqual([
      'order.placed',
      'order.shipped',
      'plain',
      'refund.issued',
    ]);
    const listed = (await c.events()).json();
    expect(listed.results.find((e: { name: string }) => e.name === 'order.placed')).toMatchObject({
      description: 'An order',
      payload_schema: { schema: 'order', version_no: null },
    });

    // GetLinkedSchemas: LinkedSchemas {slug, version_no, name, description, json_schema, linked_workflows, linked_events, created_at}
    const linked = await c.linkedSchemas('live');
    expect(linked.statusCode).toBe(200);
    expect(linked.json().meta).toEqual({ count: 3, limit: 50, offset: 0 });
    expect(linked.json().results).toEqual([
      {
        slug: 'order',
        version_no: null,
        name: 'Order',
        description: null,
        json_schema: SCHEMA,
        linked_workflows: [],
        linked_events: ['order.placed'],
        created_at: expect.any(String),
      },
      expect.objectContaining({ slug: 'order', version_no: 1, linked_events: ['order.shipped'] }),
      expect.objectContaining({ slug: 'refund', version_no: null, linked_events: ['refund.issued'] }),
    ]);
    // The CLI pages until a page is empty.
    expect((await c.linkedSchemas('live', 50)).json().results).toEqual([]);

    // A push replaces: description and link as the file says them now, absent meaning none.
    expect((await c.pushEvents({ events: [{ name: 'order.placed' }] })).statusCode).toBe(200);
    expect((await c.events()).json().results.find((e: { name: string }) => e.name === 'order.placed')).toMatchObject({
      description: null,
      payload_schema: null,
    });

    // All or none: one wrong event (another workspace's schema, an unknown version, a name twice) writes nothing.
    expect(
      (await cli(t, other).pushSchema('theirs', { name: 'Theirs', json_schema: SCHEMA }, 'true', 'v1')).statusCode,
    ).toBe(200);
    const refused = await c.pushEvents({
      events: [
        { name: 'new.one', payload_schema: { schema: 'order' } },
        { name: 'theirs', payload_schema: { schema: 'theirs' } },
        { name: 'pinned', payload_schema: { schema: 'order', version_no: 7 } },
        { name: 'new.one' },
      ],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 400,
      detail: {
        'events[1].payload_schema': "schema 'theirs' not found",
        'events[2].payload_schema': "schema 'order' has no version 7",
        'events[3].name': "'new.one' is also events[0]",
      },
    });
    expect((await c.events()).json().results.map((e: { name: string }) => e.name)).not.toContain('new.one');
    for (const body of [
      {},
      { events: [] },
      { events: [{ name: '' }] },
      { events: [{ name: 'x', payload_schema: 'order' }] },
    ])
      expect((await c.pushEvents(body)).statusCode).toBe(400);
    // The other workspace sees none of it.
    expect((await cli(t, other).linkedSchemas('live')).json().results).toEqual([]);
  });

  it('pushes a template, orders its variants, validates before commit and pulls it back', async () => {
    const ws = await createWorkspaceFixture(t());
    const c = cli(t, ws);
    // CreateTemplate sends enabled_channels only: a new template is named after its slug.
    const created = await c.createTemplate('welcome', ['email']);
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({ slug: 'welcome', name: 'welcome', enabled_channels: ['email'] });
    expect((await c.pushVariant('welcome', variant('default', 'Hello'))).statusCode).toBe(200);
    expect((await c.pushVariant('welcome', variant('vip', 'Hello {{#if}}', { seq_no: 2 }))).statusCode).toBe(200);

    expect((await c.variantOrder('welcome', 'draft')).json()).toEqual({
      channels: [{ channel: 'email', tenants: [{ tenant_id: null, variants: ['default', 'vip'] }] }],
    });
    // template push: variant_order {"email": ["vip", "default"]} becomes PostVariantOrder(…, "draft", …).
    const reordered = await c.postVariantOrder('welcome', 'draft', {
      channels: [{ channel: 'email', tenants: [{ tenant_id: null, variants: ['vip', 'default'] }] }],
    });
    expect(reordered.statusCode).toBe(200);
    expect((await c.variantOrder('welcome', 'draft')).json().channels[0].tenants[0].variants).toEqual([
      'vip',
      'default',
    ]);
    expect((await c.variantOrder('welcome', 'live')).statusCode).toBe(404);

    // PreCommitValidate: {is_new, has_changes, variants: [{channel, id, has_diff, errors}]}.
    const check = await c.preCommitValidate('welcome');
    expect(check.statusCode).toBe(200);
    expect(check.json()).toEqual({
      is_new: true,
      has_changes: true,
      variants: [
        {
          channel: 'email',
          id: 'vip',
          has_diff: true,
          errors: { subject: [expect.stringMatching(/^does not compile: /)] },
        },
        { channel: 'email', id: 'default', has_diff: true, errors: {} },
      ],
      errors: [expect.stringMatching(/^email:vip: subject does not compile: /)],
    });
    // The commit refuses what the check reported; fixed, it goes live.
    expect((await c.commitTemplate('welcome', 'first')).statusCode).toBe(400);
    expect((await c.pushVariant('welcome', variant('vip', 'Hello VIP', { seq_no: 1 }))).statusCode).toBe(200);
    const committed = await c.commitTemplate('welcome', 'first', [
      { channel: 'email', id: 'default' },
      { channel: 'email', id: 'vip' },
    ]);
    expect(committed.statusCode).toBe(200);
    expect(committed.json()).toMatchObject({ version_no: 1, commit_message: 'first' });
    expect((await c.preCommitValidate('welcome')).json()).toMatchObject({
      is_new: false,
      has_changes: false,
      variants: [
        { id: 'vip', has_diff: false, errors: {} },
        { id: 'default', has_diff: false, errors: {} },
      ],
      errors: [],
    });

    // template pull: the live variants with content, paged by 50, and the live order.
    const pulled = await c.variants('welcome', 'live');
    expect(pulled.statusCode).toBe(200);
    expect(pulled.json().meta).toEqual({ count: 2, limit: 50, offset: 0 });
    expect(
      pulled.json().results.map((v: { id: string; content: { subject: string } }) => [v.id, v.content.subject]),
    ).toEqual([
      ['vip', 'Hello VIP'],
      ['default', 'Hello'],
    ]);
    expect((await c.variants('welcome', 'live', 50)).json().results).toEqual([]);
    expect((await c.variantOrder('welcome', 'live')).json().channels[0].tenants[0].variants).toEqual([
      'vip',
      'default',
    ]);
    expect((await c.templates('live')).json().results.map((x: { slug: string }) => x.slug)).toEqual(['welcome']);

    // Bad orders: a variant the group does not hold, one twice, the live mode, an unknown channel.
    const unknown = await c.postVariantOrder('welcome', 'draft', {
      channels: [{ channel: 'email', tenants: [{ tenant_id: 'acme', variants: ['vip'] }] }],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().detail).toEqual({
      'channels[0].tenants[0].variants': "no draft variant 'vip' in channel 'email' for tenant 'acme'",
    });
    const twice = await c.postVariantOrder('welcome', 'draft', {
      channels: [{ channel: 'email', tenants: [{ tenant_id: null, variants: ['vip', 'vip'] }] }],
    });
    expect(twice.json().detail).toEqual({ 'channels[0].tenants[0].variants': 'lists a variant twice' });
    const order = { channels: [{ channel: 'email', tenants: [{ tenant_id: null, variants: ['default'] }] }] };
    expect((await c.postVariantOrder('welcome', 'live', order)).statusCode).toBe(400);
    expect(
      (await c.postVariantOrder('welcome', 'draft', { channels: [{ channel: 'fax', tenants: [] }] })).statusCode,
    ).toBe(400);
    expect((await c.preCommitValidate('nope')).statusCode).toBe(404);

    // Another workspace's token path finds nothing of this one's.
    const other = await createWorkspaceFixture(t());
    expect((await cli(t, other).variantOrder('welcome', 'draft')).statusCode).toBe(404);
    expect((await cli(t, other).preCommitValidate('welcome')).statusCode).toBe(404);
  });

  it('lists translations with their content and version information', async () => {
    const ws = await createWorkspaceFixture(t());
    const c = cli(t, ws);
    expect((await c.pushTranslation('en.json', { content: { hello: 'Hello' } })).statusCode).toBe(201);
    expect((await c.pushTranslation('fr.json', { content: { hello: 'Bonjour' } })).statusCode).toBe(201);
    expect((await c.commitTranslations('first')).statusCode).toBe(202);
    expect((await c.pushTranslation('fr.json', { content: { hello: 'Salut' } })).statusCode).toBeLessThan(300);

    const live = await c.translations('live', 'true');
    expect(live.statusCode).toBe(200);
    expect(live.json().results).toEqual([
      expect.objectContaining({
        filename: 'en.json',
        locale: 'en',
        content: { hello: 'Hello' },
        version_no: 1,
        version_status: 'live',
      }),
      expect.objectContaining({
        filename: 'fr.json',
        content: { hello: 'Bonjour' },
        version_no: 1,
        version_status: 'live',
      }),
    ]);
    const draft = await c.translations('draft', 'true');
    expect(draft.json().results).toEqual([
      expect.objectContaining({ filename: 'en.json', action: 'unchanged', version_no: 1, version_status: 'live' }),
      expect.objectContaining({
        filename: 'fr.json',
        action: 'updated',
        content: { hello: 'Salut' },
        version_no: null,
        version_status: 'draft',
      }),
    ]);
    // Without include_content (the CLI's list command passes false), no content.
    const bare = await c.translations('live', 'false');
    expect(bare.json().results[0]).not.toHaveProperty('content');
    expect(bare.json().results[0]).toHaveProperty('version_status', 'live');
    expect((await c.translations('live', 'maybe')).statusCode).toBe(400);
  });
});
