import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { feedClient, inboxRenderer, inboxWorkspace } from '../support/inbox.js';
import { baseCall, liveWorkflow, messages, node, inbox, trigger, waitFor } from '../support/engine-drivers.js';

describe('merging users moves their messages', () => {
  const t = useTestApp({}, { engine: { engine: { render: inboxRenderer } } });

  it('moves the merged user’s messages, inbox feed and runs still to come to the primary user, in the merge’s transaction', async () => {
    const box = await inboxWorkspace(t);
    const { ws } = box;
    const call = baseCall(t, ws);
    await call('POST', '/v1/user/primary/', {});
    await call('POST', '/v1/user/secondary/', {});
    const [ofPrimary] = await box.notify(['primary'], { text: 'to primary' });
    const [ofSecondary] = await box.notify(['secondary'], { text: 'to secondary' });
    // A run of the secondary user waiting in a delay: its send comes after the merge.
    await liveWorkflow(t, ws, 'later', [node('delay', { delay_type: 'fixed', duration: '2s' }), inbox('later')]);
    const waiting = (await trigger(t, ws, { workflow: 'later', recipients: ['secondary'] })).json().message_id;
    await waitFor(
      async () =>
        (await t().db.selectFrom('workflow_runs').select('status').where('execution_id', '=', waiting).execute())[0]
          ?.status === 'waiting',
      10_000,
      'the waiting run',
    );

    const merged = await call('POST', '/v1/user/primary/merge/', { from_user_id: 'secondary' });
    expect(merged.statusCode).toBe(201);

    const ofUser = async (id: string) =>
      (await messages(t, ws, `?recipient_id=${id}&limit=100`)).results.map((m) => m.message_id as string).sort();
    expect(await ofUser('secondary')).toEqual([]);
    expect(await ofUser('primary')).toEqual([ofPrimary, ofSecondary].sort());
    expect((await call('GET', `/v1/message/${ofSecondary}/`)).json()).toMatchObject({
      recipient: { $type: 'user', distinct_id: 'primary' },
    });
    // The primary user's feed now holds both notifications.
    const feed = feedClient(t, box.publicKey, await box.mint('primary'));
    const page = (await feed('GET', '/v1/feed/notifications?distinct_id=primary&tenant_id=default')).json();
    expect(page.results.map((n: { n_id: string }) => n.n_id).sort()).toEqual([ofPrimary, ofSecondary].sort());

    // The run that was waiting delivers to the primary user.
    const later = await waitFor(
      async () => {
        const page = await messages(t, ws, `?execution_id=${waiting}`);
        return page.results.find((m) => m.status === 'delivered');
      },
      10_000,
      'the delayed delivery',
    );
    expect(later.recipient).toEqual({ $type: 'user', distinct_id: 'primary' });
    expect(await ofUser('secondary')).toEqual([]);
  });

  it('moves nothing when the merge is refused', async () => {
    const box = await inboxWorkspace(t);
    const call = baseCall(t, box.ws);
    await call('POST', '/v1/user/secondary/', {});
    const [kept] = await box.notify(['secondary']);
    const refused = await call('POST', '/v1/user/ghost/merge/', { from_user_id: 'secondary' });
    expect(refused.statusCode).toBe(404);
    expect((await call('GET', `/v1/message/${kept}/`)).json()).toMatchObject({
      recipient: { distinct_id: 'secondary' },
    });
  });
});
