import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { sdkFor } from '../support/sdk.js';

describe('@suprsend/node-sdk objects and subscriptions against Herald', () => {
  const t = useTestApp();

  it('upserts, gets, edits, lists and deletes objects', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const created = await sdk.objects.upsert('teams', 'front end', { name: 'Frontend', $email: ['fe@x.com'] });
    expect(created).toMatchObject({
      object_type: 'teams',
      id: 'front end',
      subscriptions_count: 0,
      properties: { name: 'Frontend' },
    });
    const edit = sdk.objects.get_edit_instance('teams', 'front end');
    edit.set('lead', 'Ada');
    edit.increment('size', 3);
    edit.add_sms('+14155550123');
    edit.remove_email('fe@x.com');
    const edited = await sdk.objects.edit(edit);
    expect(edited).toEqual({
      object_type: 'teams',
      id: 'front end',
      subscriptions_count: 0,
      properties: { name: 'Frontend', lead: 'Ada', size: 3 },
      created_at: created.created_at,
      updated_at: expect.any(String),
      $sms: [{ value: '+14155550123', status: 'active', perma_status: 'active' }],
    });
    expect(await sdk.objects.get('teams', 'front end')).toEqual(edited);
    await sdk.objects.upsert('teams', 'backend', {});
    const page = await sdk.objects.list('teams', { limit: 1 });
    expect(page.results.map((o: { id: string }) => o.id)).toEqual(['front end']);
    expect(
      (await sdk.objects.list('teams', { limit: 1, after: page.meta.after })).results.map((o: { id: string }) => o.id),
    ).toEqual(['backend']);
    expect(await sdk.objects.delete('teams', 'front end')).toEqual({ success: true, status_code: 204 });
    await expect(sdk.objects.get('teams', 'front end')).rejects.toThrow("404: object 'teams/front end' not found");
    expect(await sdk.objects.bulk_delete('teams', { object_ids: ['backend'] })).toEqual({
      success: true,
      status_code: 204,
    });
    expect((await sdk.objects.list('teams')).results).toEqual([]);
  });

  it('creates, reads and deletes subscriptions, and lists what is subscribed to what', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    await sdk.objects.upsert('orgs', 'acme', {});
    await sdk.objects.upsert('teams', 'core', {});
    const added = await sdk.objects.create_subscriptions('orgs', 'acme', {
      recipients: ['ada', { distinct_id: 'bob', $email: ['bob@x.com'] }, { object_type: 'teams', id: 'core' }],
      properties: { role: 'member' },
    });
    expect(added.results.map((r: { user: { distinct_id: string } | null }) => r.user?.distinct_id ?? null)).toEqual([
      'ada',
      'bob',
      null,
    ]);
    expect(added.results[2].child_object).toMatchObject({ object_type: 'teams', id: 'core' });
    expect(added.results[2].object).toMatchObject({ object_type: 'orgs', id: 'acme', subscriptions_count: 3 });

    const subs = await sdk.objects.get_subscriptions('orgs', 'acme', { limit: 2 });
    expect(subs.meta).toMatchObject({ count: 3, limit: 2, has_next: true });
    expect(
      subs.results.every((r: { properties: unknown }) => JSON.stringify(r.properties) === '{"role":"member"}'),
    ).toBe(true);

    const ofUser = await sdk.users.get_objects_subscribed_to('ada');
    expect(ofUser.results.map((r: { object: { id: string } }) => r.object.id)).toEqual(['acme']);
    const ofObject = await sdk.objects.get_objects_subscribed_to('teams', 'core');
    expect(ofObject.results.map((r: { object: { id: string } }) => r.object.id)).toEqual(['acme']);

    expect(
      await sdk.objects.delete_subscriptions('orgs', 'acme', {
        recipients: ['ada', { object_type: 'teams', id: 'core' }],
      }),
    ).toEqual({ success: true, status_code: 204 });
    expect((await sdk.objects.get('orgs', 'acme')).subscriptions_count).toBe(1);
    await expect(sdk.objects.create_subscriptions('orgs', 'ghost', { recipients: ['ada'] })).rejects.toThrow(
      "404: object 'orgs/ghost' not found",
    );
  });
});
