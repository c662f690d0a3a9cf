import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

describe('subscriber lists', () => {
  const t = useTestApp();

  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });
  const members = async (ws: WorkspaceFixture, listId: string) =>
    (await call(ws, 'GET', `/v1/subscriber_list/${listId}/subscriber/?limit=1000`))
      .json()
      .results.map((r: { distinct_id: string }) => r.distinct_id);
  const listEvents = (ws: WorkspaceFixture) =>
    t()
      .db.selectFrom('events')
      .select(['event', 'distinct_id', 'properties'])
      .where('workspace_id', '=', ws.workspaceId)
      .orderBy('event')
      .orderBy('distinct_id')
      .execute();

  it('creates, reads, updates, lists and deletes a list', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await call(ws, 'POST', '/v1/subscriber_list/', {
      list_id: 'product_updates',
      list_name: 'Product updates',
      list_description: 'Users who asked for news',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      list_id: 'product_updates',
      list_name: 'Product updates',
      list_description: 'Users who asked for news',
      list_type: 'static_list',
      subscribers_count: 0,
      source: null,
      is_readonly: false,
      status: 'active',
      track_user_entry: false,
      track_user_exit: false,
      requested_for_delete: false,
      created_at: expect.stringMatching(/\+00:00$/),
      updated_at: expect.stringMatching(/\+00:00$/),
      version_id: null,
      drafts: null,
    });
    const updated = await call(ws, 'POST', '/v1/subscriber_list/', {
      list_id: 'product_updates',
      track_user_entry: true,
    });
    expect(updated.json()).toMatchObject({
      list_name: 'Product updates',
      list_description: 'Users who asked for news',
      track_user_entry: true,
      created_at: created.json().created_at,
    });
    expect(updated.json().updated_at > created.json().updated_at).toBe(true);
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'second' });
    expect((await call(ws, 'GET', '/v1/subscriber_list/product_updates/')).json()).toEqual(updated.json());

    const page = await call(ws, 'GET', '/v1/subscriber_list/?limit=1&offset=1');
    expect(page.json()).toEqual({
      meta: { count: 2, limit: 1, offset: 1 },
      results: [expect.objectContaining({ list_id: 'second', list_name: 'second' })],
    });

    const deleted = await call(ws, 'PATCH', '/v1/subscriber_list/second/delete/', {});
    expect([deleted.statusCode, deleted.json()]).toEqual([200, { success: true }]);
    const gone = await call(ws, 'GET', '/v1/subscriber_list/second/');
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({
      code: 404,
      error_code: 'not_found',
      type: 'NotFound',
      message: 'list_id: second not found',
      detail: null,
    });
    expect((await call(ws, 'PATCH', '/v1/subscriber_list/second/delete/', {})).statusCode).toBe(404);
  });

  it('refuses a list without list_id or with unknown fields', async () => {
    const ws = await createWorkspaceFixture(t());
    const missing = await call(ws, 'POST', '/v1/subscriber_list/', { list_name: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toEqual({ list_id: 'is required' });
    const spaced = await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'has space' });
    expect(spaced.statusCode).toBe(400);
  });

  it('adds users (creating unknown ones), removes them, pages members and counts them', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/user/known/', { plan: 'pro' });
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'l' });
    const added = await call(ws, 'POST', '/v1/subscriber_list/l/subscriber/add/', {
      distinct_ids: ['known', 'new-1', 'new-2', 'new-1'],
    });
    expect([added.statusCode, added.json()]).toEqual([201, { success: true, affected_count: 3 }]);
    const again = await call(ws, 'POST', '/v1/subscriber_list/l/subscriber/add/', { distinct_ids: ['known', 'new-3'] });
    expect(again.json()).toEqual({ success: true, affected_count: 1 });
    expect((await call(ws, 'GET', '/v1/user/new-2/')).statusCode).toBe(200);
    expect((await call(ws, 'GET', '/v1/user/known/')).json().properties).toEqual({ plan: 'pro' });

    const first = (await call(ws, 'GET', '/v1/subscriber_list/l/subscriber/?limit=2')).json();
    expect(first.meta).toMatchObject({ count: 4, limit: 2, has_prev: false, has_next: true });
    expect(first.results.map((r: { distinct_id: string }) => r.distinct_id)).toEqual(['known', 'new-1']);
    expect(first.results[0]).toEqual({ id: expect.any(String), distinct_id: 'known', created_at: expect.any(String) });
    const second = (
      await call(ws, 'GET', `/v1/subscriber_list/l/subscriber/?limit=2&after=${first.meta.after}`)
    ).json();
    expect(second.results.map((r: { distinct_id: string }) => r.distinct_id)).toEqual(['new-2', 'new-3']);
    expect(second.meta).toMatchObject({ has_prev: true, has_next: false });

    const removed = await call(ws, 'POST', '/v1/subscriber_list/l/subscriber/remove/', {
      distinct_ids: ['new-1', 'nobody', 'new-3'],
    });
    expect([removed.statusCode, removed.json()]).toEqual([201, { success: true, affected_count: 2 }]);
    expect(await members(ws, 'l')).toEqual(['known', 'new-2']);
    expect((await call(ws, 'GET', '/v1/subscriber_list/l/')).json().subscribers_count).toBe(2);

    // Deleting a user takes it out of its lists.
    await t().app.inject({ method: 'DELETE', url: '/v1/user/known/', headers: ws.base });
    expect(await members(ws, 'l')).toEqual(['new-2']);
  });

  it('answers 404 for an unknown list on every member route, in the full error shape', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const [method, url, body] of [
      ['POST', '/v1/subscriber_list/nope/subscriber/add/', { distinct_ids: ['a'] }],
      ['POST', '/v1/subscriber_list/nope/subscriber/add/', { distinct_ids: [] }],
      ['POST', '/v1/subscriber_list/nope/subscriber/remove/', { distinct_ids: ['a'] }],
      ['GET', '/v1/subscriber_list/nope/subscriber/', undefined],
      ['POST', '/v1/subscriber_list/nope/start_sync/', {}],
    ] as const) {
      const answer = await call(ws, method, url, body);
      expect([answer.statusCode, answer.json().message], url).toEqual([404, 'list_id: nope not found']);
    }
    // A failed add created no user.
    expect((await call(ws, 'GET', '/v1/user/a/')).statusCode).toBe(404);
  });

  it('records entry and exit events only where the list tracks them', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/subscriber_list/', {
      list_id: 'tracked',
      track_user_entry: true,
      track_user_exit: true,
    });
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'quiet' });
    await call(ws, 'POST', '/v1/subscriber_list/tracked/subscriber/add/', { distinct_ids: ['a', 'b'] });
    await call(ws, 'POST', '/v1/subscriber_list/tracked/subscriber/add/', { distinct_ids: ['a'] });
    await call(ws, 'POST', '/v1/subscriber_list/tracked/subscriber/remove/', { distinct_ids: ['b', 'never'] });
    await call(ws, 'POST', '/v1/subscriber_list/quiet/subscriber/add/', { distinct_ids: ['a'] });
    await call(ws, 'POST', '/v1/subscriber_list/quiet/subscriber/remove/', { distinct_ids: ['a'] });
    expect(await listEvents(ws)).toEqual([
      { event: '$USER_ENTERED_LIST - tracked', distinct_id: 'a', properties: { list_id: 'tracked' } },
      { event: '$USER_ENTERED_LIST - tracked', distinct_id: 'b', properties: { list_id: 'tracked' } },
      { event: '$USER_EXITED_LIST - tracked', distinct_id: 'b', properties: { list_id: 'tracked' } },
    ]);
  });

  it('replaces the live members atomically at finish_sync, keeping the ones in both', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 's', track_user_entry: true, track_user_exit: true });
    await call(ws, 'POST', '/v1/subscriber_list/s/subscriber/add/', { distinct_ids: ['stays', 'leaves'] });
    const stayedSince = (await call(ws, 'GET', '/v1/subscriber_list/s/subscriber/'))
      .json()
      .results.find((r: { distinct_id: string }) => r.distinct_id === 'stays');

    const started = await call(ws, 'POST', '/v1/subscriber_list/s/start_sync/', {});
    expect(started.statusCode).toBe(201);
    const version = started.json();
    expect(version).toMatchObject({ list_id: 's', status: 'draft', subscribers_count: 0 });
    expect(version.version_id).toMatch(/^[0-9A-Z]{26}$/);
    const at = `/v1/subscriber_list/s/version/${version.version_id}`;

    expect(
      (await call(ws, 'POST', `${at}/subscriber/add/`, { distinct_ids: ['stays', 'joins', 'dropped'] })).json(),
    ).toEqual({ success: true, affected_count: 3 });
    expect((await call(ws, 'POST', `${at}/subscriber/remove/`, { distinct_ids: ['dropped'] })).json()).toEqual({
      success: true,
      affected_count: 1,
    });
    // The draft is invisible to the live list until finished.
    expect(await members(ws, 's')).toEqual(['leaves', 'stays']);
    expect((await call(ws, 'GET', `${at}/`)).json()).toMatchObject({ status: 'draft', subscribers_count: 2 });
    expect((await call(ws, 'GET', '/v1/subscriber_list/s/')).json().drafts).toEqual([
      { version_id: version.version_id, subscribers_count: 2, created_at: expect.any(String) },
    ]);
    await t().db.deleteFrom('events').where('workspace_id', '=', ws.workspaceId).execute();

    const finished = await call(ws, 'PATCH', `${at}/finish_sync/`, {});
    expect(finished.statusCode).toBe(201);
    expect(finished.json()).toMatchObject({ list_id: 's', status: 'active', subscribers_count: 2, drafts: null });
    const live = (await call(ws, 'GET', '/v1/subscriber_list/s/subscriber/')).json().results;
    expect(live.map((r: { distinct_id: string }) => r.distinct_id)).toEqual(['stays', 'joins']);
    expect(live[0]).toEqual(stayedSince);
    expect(await listEvents(ws)).toEqual([
      { event: '$USER_ENTERED_LIST - s', distinct_id: 'joins', properties: { list_id: 's' } },
      { event: '$USER_EXITED_LIST - s', distinct_id: 'leaves', properties: { list_id: 's' } },
    ]);
    // The draft is gone.
    const again = await call(ws, 'PATCH', `${at}/finish_sync/`, {});
    expect([again.statusCode, again.json().message]).toEqual([
      404,
      `version_id ${version.version_id} not found for list_id s`,
    ]);
  });

  it('finishing an empty draft empties the list; deleting a draft leaves the list alone', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'e' });
    await call(ws, 'POST', '/v1/subscriber_list/e/subscriber/add/', { distinct_ids: ['a', 'b'] });
    const dropped = (await call(ws, 'POST', '/v1/subscriber_list/e/start_sync/', {})).json().version_id;
    await call(ws, 'POST', `/v1/subscriber_list/e/version/${dropped}/subscriber/add/`, { distinct_ids: ['c'] });
    const deleted = await call(ws, 'PATCH', `/v1/subscriber_list/e/version/${dropped}/delete/`, {});
    expect([deleted.statusCode, deleted.json()]).toEqual([200, { success: true }]);
    expect((await call(ws, 'GET', `/v1/subscriber_list/e/version/${dropped}/`)).statusCode).toBe(404);
    expect(await members(ws, 'e')).toEqual(['a', 'b']);

    const empty = (await call(ws, 'POST', '/v1/subscriber_list/e/start_sync/', {})).json().version_id;
    expect((await call(ws, 'PATCH', `/v1/subscriber_list/e/version/${empty}/finish_sync/`, {})).json()).toMatchObject({
      subscribers_count: 0,
    });
    expect(await members(ws, 'e')).toEqual([]);
    // Events are recorded only for lists that track them.
    expect(await listEvents(ws)).toEqual([]);
  });

  it('a version of another list is not found through this one', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'one' });
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'two' });
    const version = (await call(ws, 'POST', '/v1/subscriber_list/one/start_sync/', {})).json().version_id;
    for (const [method, suffix] of [
      ['POST', 'subscriber/add/'],
      ['POST', 'subscriber/remove/'],
      ['PATCH', 'finish_sync/'],
      ['PATCH', 'delete/'],
      ['GET', ''],
    ] as const) {
      const answer = await call(
        ws,
        method,
        `/v1/subscriber_list/two/version/${version}/${suffix}`,
        method === 'GET' ? undefined : { distinct_ids: ['x'] },
      );
      expect(answer.statusCode, suffix).toBe(404);
    }
  });

  it('lists the lists a user belongs to, in the short error shape', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'news', list_name: 'News', list_description: 'd' });
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'other' });
    await call(ws, 'POST', '/v1/subscriber_list/news/subscriber/add/', { distinct_ids: ['u', 'v'] });
    await call(ws, 'POST', '/v1/subscriber_list/other/subscriber/add/', { distinct_ids: ['v'] });
    // A draft membership is not a membership.
    const version = (await call(ws, 'POST', '/v1/subscriber_list/other/start_sync/', {})).json().version_id;
    await call(ws, 'POST', `/v1/subscriber_list/other/version/${version}/subscriber/add/`, { distinct_ids: ['u'] });
    const answer = await call(ws, 'GET', '/v1/user/u/subscribed_to/list/');
    expect(answer.json()).toEqual({
      meta: { count: 1, limit: 10, has_prev: false, before: null, has_next: false, after: null },
      results: [
        {
          list: {
            list_id: 'news',
            list_name: 'News',
            list_description: 'd',
            list_type: 'static_list',
            source: null,
            subscribers_count: 2,
            updated_at: expect.any(String),
          },
          created_at: expect.any(String),
        },
      ],
    });
    const missing = await call(ws, 'GET', '/v1/user/nobody/subscribed_to/list/');
    expect([missing.statusCode, missing.json()]).toEqual([
      404,
      { code: 404, message: "user [distinct_id: 'nobody'] not found" },
    ]);
  });
});
