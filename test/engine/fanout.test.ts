import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { fanOutPage } from '../../src/engine/recipients.js';
import { insertExecutions } from '../../src/repositories/executions.js';
import { newUlid } from '../../src/ids.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  messages,
  newExecution,
  settledMessages,
  trigger,
} from '../support/engine-drivers.js';

async function subscribe(
  t: () => TestApp,
  ws: WorkspaceFixture,
  object: string,
  recipients: unknown[],
  properties?: object,
) {
  const call = baseCall(t, ws);
  const [type, id] = object.split('/');
  await call('POST', `/v1/object/${type}/${id}/`, {});
  const response = await call('POST', `/v1/object/${type}/${id}/subscription/`, {
    recipients,
    ...(properties ? { properties } : {}),
  });
  if (response.statusCode !== 200) throw new Error(`subscribe failed: ${response.body}`);
}

describe('recipients and fan-out', () => {
  const t = useTestApp({}, { engine: {} });

  it('notifies an object, its subscribers and its child objects’ subscribers (depth 2), each user once', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'team-news', [inbox('news')]);
    await baseCall(t, ws)('POST', '/v1/object/squad/deep/', {});
    await subscribe(t, ws, 'squad/deep', ['too-deep']);
    await subscribe(t, ws, 'squad/alpha', ['u2', 'u3', { object_type: 'squad', id: 'deep' }]);
    await subscribe(t, ws, 'team/core', ['u1'], { role: 'admin' });
    await subscribe(t, ws, 'team/core', ['u2', { object_type: 'squad', id: 'alpha' }]);
    const response = await trigger(t, ws, {
      workflow: 'team-news',
      recipients: [{ object_type: 'team', id: 'core' }, 'u1'],
    });
    expect(response.statusCode).toBe(202);
    const settled = await settledMessages(t, ws, response.json().message_id, 5);
    const who = settled
      .map((m) =>
        m.recipient.$type === 'user' ? m.recipient.distinct_id : `${m.recipient.object_type}/${m.recipient.id}`,
      )
      .sort();
    expect(who).toEqual(['squad/alpha', 'team/core', 'u1', 'u2', 'u3']);
    for (const m of settled.filter((m) => m.recipient.$type === 'user')) expect(m.status).toBe('delivered');
    // Objects have no inbox identity of their own: refused by the first rule.
    for (const m of settled.filter((m) => m.recipient.$type === 'object'))
      expect(m).toMatchObject({ status: 'not_to_be_triggered', reason: 'no_channel' });
    // u1 was named directly and is also a subscriber: whichever run came first, one message.
    expect(settled.filter((m) => m.recipient.distinct_id === 'u2')).toHaveLength(1);
    const u3 = settled.find((m) => m.recipient.distinct_id === 'u3')!;
    expect(u3.parent_execution_id).toBe(response.json().message_id);
  });

  it('shows each subscriber’s run its subscription properties', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'sub-props', [inbox('sub')]);
    await subscribe(t, ws, 'board/b1', ['member'], { seat: 'chair' });
    const { message_id } = (
      await trigger(t, ws, { workflow: 'sub-props', recipients: [{ object_type: 'board', id: 'b1' }] })
    ).json();
    const settled = await settledMessages(t, ws, message_id, 2);
    const member = settled.find((m) => m.recipient.distinct_id === 'member');
    expect(member?.content).toMatchObject({ subscription: { seat: 'chair' } });
  });

  it('pages through subscribers with a fixed number of statements per page, whatever the fan-out', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'count', [inbox()]);
    const counts: number[] = [];
    for (const [name, size] of [
      ['small', 3],
      ['large', 40],
    ] as const) {
      await subscribe(
        t,
        ws,
        `crowd/${name}`,
        Array.from({ length: size }, (_, i) => `${name}-${i}`),
      );
      // An execution written without its trigger job: only the pages run by hand below touch it.
      const message_id = newUlid();
      const workflow = await t()
        .db.selectFrom('workflows')
        .select('id')
        .where('workspace_id', '=', ws.workspaceId)
        .where('slug', '=', 'count')
        .executeTakeFirstOrThrow();
      await insertExecutions(t().db, ws.workspaceId, [
        newExecution({ id: message_id, workflow_id: workflow.id, workflow_slug: 'count' }),
      ]);
      const object = await t()
        .db.selectFrom('objects')
        .select('id')
        .where('workspace_id', '=', ws.workspaceId)
        .where('object_id', '=', name)
        .executeTakeFirstOrThrow();
      const queue = t().engineRuntime!.queue;
      t().queries.reset();
      await t()
        .db.transaction()
        .execute((trx) =>
          fanOutPage(
            trx,
            queue,
            { executionId: message_id, workspaceId: ws.workspaceId, objectId: object.id, depth: 1, after: 0 },
            50,
          ),
        );
      counts.push(t().queries.count);
      // Paging again is harmless: every run exists already, nothing new is enqueued.
      await t()
        .db.transaction()
        .execute((trx) =>
          fanOutPage(
            trx,
            queue,
            { executionId: message_id, workspaceId: ws.workspaceId, objectId: object.id, depth: 1, after: 0 },
            50,
          ),
        );
      await settledMessages(t, ws, message_id, size);
      expect((await messages(t, ws, `?execution_id=${message_id}&limit=100`)).meta.count).toBe(size);
    }
    expect(counts[0]).toBe(counts[1]);
    expect(counts[0]).toBeLessThanOrEqual(9);
  });
});
