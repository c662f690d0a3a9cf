import { describe, expect, it } from 'vitest';
import { renderTemplate, type RenderRequest } from '../../src/channels/rendering.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

const APPROVED = {
  approval_status: 'approved',
  vendor_slug: 'twilio-whatsapp',
  vendor_uid: 'waba_id-123221',
  vendor_template_name: 'order_shipped_en_v1',
  vendor_template_id: '1232',
  vendor_locale_code: 'en',
  vendor_template_category: 'UTILITY',
};

describe('/v2/{workspace}/template/…/variant/{id}/vendor_approval/ and /discard/: vendor approval', () => {
  const t = useTestApp();

  const client = async () => {
    const ws = await createWorkspaceFixture(t());
    const inject = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}/template/${path}`,
        headers: ws.management,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const variant = (id: string, text: string, extra: Record<string, unknown> = {}) =>
      inject('POST', `shipped/channel/whatsapp/variant/${id}/`, { locale: 'en', content: { text }, ...extra });
    const commit = () => inject('PATCH', 'shipped/commit/', {});
    const approve = (id: string, body: unknown = APPROVED) =>
      inject('PATCH', `shipped/channel/whatsapp/variant/${id}/vendor_approval/?mode=live`, body);
    const discard = (id: string, comment = 'Content needs revision') =>
      inject('PATCH', `shipped/channel/whatsapp/variant/${id}/discard/?mode=live`, { comment });
    const live = async (id: string) =>
      (await inject('GET', `shipped/channel/whatsapp/variant/${id}/?mode=live`)).json();
    await inject('POST', 'shipped/', { name: 'Shipped', enabled_channels: ['whatsapp'] });
    return { ws, inject, variant, commit, approve, discard, live };
  };

  const render = (ws: WorkspaceFixture, locale: string | null = 'en') =>
    renderTemplate(t().db, {
      workspaceId: String(ws.workspaceId),
      templateSlug: 'shipped',
      channel: 'whatsapp',
      tenantId: 'default',
      locale,
      context: { data: { order: 'A-1' }, $recipient: { distinct_id: 'u1' }, $actor: null, $brand: null },
    } satisfies RenderRequest);

  it('a committed variant that needs approval awaits it, is not sent, and is sent once a vendor approved it', async () => {
    const { ws, variant, commit, approve, live } = await client();
    await variant('default', 'Order {{order}} shipped', { needs_vendor_approval: true });
    expect((await commit()).statusCode).toBe(200);
    expect(await live('default')).toMatchObject({
      needs_vendor_approval: true,
      approval_status: 'pending',
      approval_at: null,
      discard_comment: null,
      vendor_approvals: [],
    });
    expect(await render(ws)).toEqual({
      ok: false,
      reason: "template 'shipped' has no whatsapp variant for this recipient (awaiting vendor approval: default)",
    });

    const sent = await approve('default', { ...APPROVED, approval_status: 'sent_for_approval' });
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toMatchObject({ approval_status: 'sent_for_approval', approval_at: null });
    expect((await render(ws)).ok).toBe(false);

    const approved = await approve('default');
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({
      channel: 'whatsapp',
      id: 'default',
      approval_status: 'approved',
      approval_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      discard_comment: null,
      action: null,
      vendor_approvals: [{ ...APPROVED, updated_at: expect.any(String) }],
    });
    expect(approved.json().vendor_approvals).toHaveLength(1);
    expect(await live('default')).toMatchObject({ approval_status: 'approved' });
    // The rendering cache keys on the approvals: the same process sees the approval at once.
    expect(await render(ws)).toMatchObject({ ok: true, content: { text: 'Order A-1 shipped' } });
  });

  it('a variant without needs_vendor_approval is auto-approved and sent at commit; it takes no approval', async () => {
    const { ws, variant, commit, approve, discard, live } = await client();
    await variant('default', 'Shipped');
    await commit();
    expect(await live('default')).toMatchObject({ approval_status: 'auto_approved', vendor_approvals: [] });
    expect(await render(ws)).toMatchObject({ ok: true });
    const refused = await approve('default');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 400,
      message: "variant 'whatsapp:default' does not need vendor approval",
    });
    expect((await discard('default')).statusCode).toBe(400);
  });

  it('an unapproved variant gives way to the next that fits: the approved default', async () => {
    const { ws, variant, commit, approve } = await client();
    await variant('default', 'Default text', { needs_vendor_approval: true });
    await variant('spanish', 'Texto', { needs_vendor_approval: true, locale: 'es' });
    await commit();
    await approve('default');
    expect(await render(ws, 'es')).toMatchObject({ ok: true, content: { text: 'Default text' } });
    await approve('spanish', { ...APPROVED, vendor_template_name: 'shipped_es' });
    expect(await render(ws, 'es')).toMatchObject({ ok: true, content: { text: 'Texto' } });
  });

  it('keeps one entry per vendor: approved by one vendor is approved, whatever another says', async () => {
    const { variant, commit, approve } = await client();
    await variant('default', 'Shipped', { needs_vendor_approval: true });
    await commit();
    await approve('default', {
      approval_status: 'rejected',
      vendor_slug: 'gupshup-whatsapp',
      vendor_uid: 'g-1',
      comment: 'Policy',
    });
    const rejected = await approve('default', {
      approval_status: 'rejected',
      vendor_slug: 'gupshup-whatsapp',
      vendor_uid: 'g-1',
      comment: 'Still policy',
    });
    expect(rejected.json()).toMatchObject({
      approval_status: 'rejected',
      vendor_approvals: [{ vendor_slug: 'gupshup-whatsapp', comment: 'Still policy' }],
    });
    const both = await approve('default');
    expect(both.json().approval_status).toBe('approved');
    expect(both.json().vendor_approvals.map((e: { vendor_slug: string }) => e.vendor_slug)).toEqual([
      'gupshup-whatsapp',
      'twilio-whatsapp',
    ]);
  });

  it('refuses an incomplete entry: approved without the vendor template, rejected without a comment', async () => {
    const { variant, commit, approve, live } = await client();
    await variant('default', 'Shipped', { needs_vendor_approval: true });
    await commit();
    const { vendor_template_name: _name, vendor_template_id: _id, ...bare } = APPROVED;
    const approved = await approve('default', bare);
    expect(approved.statusCode).toBe(400);
    expect(approved.json()).toMatchObject({
      code: 400,
      message:
        'vendor approval is incomplete: vendor_template_name is required when approved; vendor_template_id is required when approved',
      detail: { vendor_template_name: 'is required when approved', vendor_template_id: 'is required when approved' },
    });
    const rejected = await approve('default', { approval_status: 'rejected', vendor_slug: 'v', vendor_uid: 'u' });
    expect(rejected.statusCode).toBe(400);
    expect(rejected.json().detail).toEqual({ comment: 'is required when rejected' });
    expect((await approve('default', { ...APPROVED, approval_status: 'maybe' })).statusCode).toBe(400);
    expect((await approve('default', { approval_status: 'approved' })).statusCode).toBe(400);
    expect(await live('default')).toMatchObject({ approval_status: 'pending', vendor_approvals: [] });
  });

  it('discard withdraws a pending variant from the live version; the next commit submits it again', async () => {
    const { ws, inject, variant, commit, approve, discard, live } = await client();
    await variant('default', 'Shipped', { needs_vendor_approval: true });
    await commit();
    const discarded = await discard('default');
    expect(discarded.statusCode).toBe(200);
    expect(discarded.json()).toMatchObject({
      id: 'default',
      approval_status: 'pending',
      discard_comment: 'Content needs revision',
      vendor_approvals: [],
    });
    // Gone from the live version, back in the draft only, with the reason it was discarded.
    expect((await inject('GET', 'shipped/channel/whatsapp/variant/default/?mode=live')).statusCode).toBe(404);
    expect((await inject('GET', 'shipped/variant/?mode=live')).json().results).toEqual([]);
    expect((await inject('GET', 'shipped/channel/whatsapp/variant/default/')).json()).toMatchObject({
      action: 'Added',
      approval_status: 'pending',
      discard_comment: 'Content needs revision',
    });
    expect(await render(ws)).toMatchObject({ ok: false });
    // Neither approved nor discarded twice.
    expect((await approve('default')).json()).toMatchObject({
      code: 400,
      message: "variant 'whatsapp:default' was discarded: commit the draft to submit it again",
    });
    expect((await discard('default')).json()).toMatchObject({
      code: 400,
      message: "variant 'whatsapp:default' cannot be discarded: it is already discarded",
    });

    // The draft differs from live again, so it commits; the new version's variant awaits approval afresh.
    const recommitted = await commit();
    expect(recommitted.statusCode).toBe(200);
    expect(recommitted.json().version_no).toBe(2);
    expect(await live('default')).toMatchObject({ approval_status: 'pending', discard_comment: null });
    expect((await approve('default')).statusCode).toBe(200);
    const refused = await discard('default');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe(
      "variant 'whatsapp:default' cannot be discarded: it is approved: only a variant awaiting approval can be discarded",
    );
  });

  it('a commit keeps the approval of variants it leaves unchanged, and asks again for those it changes', async () => {
    const { inject, variant, commit, approve, live } = await client();
    await variant('default', 'Shipped', { needs_vendor_approval: true });
    await variant('second', 'Second', { needs_vendor_approval: true, locale: 'fr' });
    await commit();
    await approve('default');
    await approve('second', { ...APPROVED, vendor_template_name: 'second' });
    await inject('POST', 'shipped/', { name: 'Shipped', enabled_channels: ['whatsapp', 'email'] });
    await inject('POST', 'shipped/channel/email/variant/default/', {
      locale: 'en',
      content: { subject: 'Shipped', html: '<p>Your order shipped</p>', text: 'Your order shipped' },
    });
    await variant('second', 'Second, reworded', { needs_vendor_approval: true, locale: 'fr' });
    const second = await commit();
    expect(second.json()).toMatchObject({ version_no: 2 });
    expect(await live('default')).toMatchObject({
      approval_status: 'approved',
      vendor_approvals: [{ vendor_template_name: 'order_shipped_en_v1' }],
    });
    expect(await live('second')).toMatchObject({ approval_status: 'pending', vendor_approvals: [] });
    // The draft reads the live approval while the variant is unchanged.
    expect((await inject('GET', 'shipped/channel/whatsapp/variant/default/')).json()).toMatchObject({
      action: 'Unchanged',
      approval_status: 'approved',
    });
  });

  it('answers 404 for a template never committed or a variant not in the live version, 400 for another channel', async () => {
    const { inject, variant, approve, discard, commit } = await client();
    await variant('default', 'Shipped', { needs_vendor_approval: true });
    expect((await approve('default')).json()).toMatchObject({
      code: 404,
      message: "template (slug: 'shipped') has no live version: it was never committed",
    });
    await commit();
    expect((await discard('nope')).json()).toMatchObject({
      code: 404,
      message: "variant 'whatsapp:nope' of template 'shipped' not found in its live version",
    });
    const email = await inject('PATCH', 'shipped/channel/email/variant/default/discard/', { comment: 'x' });
    expect(email.statusCode).toBe(400);
    expect((await inject('PATCH', 'shipped/channel/whatsapp/variant/default/discard/', {})).statusCode).toBe(400);
    expect(
      (await inject('PATCH', 'shipped/channel/whatsapp/variant/default/discard/?mode=draft', { comment: 'x' }))
        .statusCode,
    ).toBe(400);
    expect((await inject('PATCH', 'missing/channel/sms/variant/default/discard/', { comment: 'x' })).statusCode).toBe(
      404,
    );
  });
});
