import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { sdkFor } from '../support/sdk.js';

describe('@suprsend/node-sdk subscriber lists, list memberships and the old add_slack_email against Herald', () => {
  const t = useTestApp();

  it('creates, fills, syncs and deletes a list through every SDK list method', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const lists = sdk.subscriber_lists;
    const created = await lists.create({
      list_id: 'sdk-list',
      list_name: 'SDK list',
      list_description: 'from the SDK',
    });
    expect(created).toMatchObject({ list_id: 'sdk-list', list_name: 'SDK list', subscribers_count: 0 });
    expect(await lists.add('sdk-list', ['a', 'b', 'c'])).toEqual({ success: true, affected_count: 3 });
    expect(await lists.remove('sdk-list', ['c'])).toEqual({ success: true, affected_count: 1 });
    expect(await lists.get('sdk-list')).toMatchObject({ subscribers_count: 2, drafts: null });
    const all = await lists.get_all({ limit: 10, offset: 0 });
    expect(all.meta).toEqual({ count: 1, limit: 10, offset: 0 });
    expect(all.results.map((l: { list_id: string }) => l.list_id)).toEqual(['sdk-list']);

    const lists_of_a = await sdk.users.get_lists_subscribed_to('a', { limit: 5 });
    expect(lists_of_a.results.map((r: { list: { list_id: string } }) => r.list.list_id)).toEqual(['sdk-list']);

    const version = await lists.start_sync('sdk-list');
    expect(version).toMatchObject({ status: 'draft', subscribers_count: 0 });
    const id = version.version_id as string;
    expect(await lists.add_to_version('sdk-list', id, ['b', 'd', 'e'])).toEqual({ success: true, affected_count: 3 });
    expect(await lists.remove_from_version('sdk-list', id, ['e'])).toEqual({ success: true, affected_count: 1 });
    expect(await lists.get_version('sdk-list', id)).toMatchObject({ version_id: id, subscribers_count: 2 });
    expect(await lists.finish_sync('sdk-list', id)).toMatchObject({ status: 'active', subscribers_count: 2 });
    const afterSync = await sdk.users.get_lists_subscribed_to('a');
    expect(afterSync.results).toEqual([]);

    const dropped = (await lists.start_sync('sdk-list')).version_id as string;
    expect(await lists.delete_version('sdk-list', dropped)).toEqual({ success: true });
    await expect(lists.get_version('sdk-list', dropped)).rejects.toThrow(
      `version_id ${dropped} not found for list_id sdk-list`,
    );

    expect(await lists.delete('sdk-list')).toEqual({ success: true });
    await expect(lists.get('sdk-list')).rejects.toThrow('list_id: sdk-list not found');
  });

  it('accepts the deprecated add_slack_email, which sends $slack with an email and no token', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const user = sdk.user.get_instance('slack-user');
    user.add_slack_email('Ada@Example.com');
    const answer = await user.save();
    expect(answer).toMatchObject({ success: true });
    const stored = await sdk.users.get('slack-user');
    expect(stored.$slack).toEqual([{ value: { email: 'Ada@Example.com' }, status: 'active', perma_status: 'active' }]);
  });
});
