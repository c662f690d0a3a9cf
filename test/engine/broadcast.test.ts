import { SubscriberListBroadcast } from '@suprsend/node-sdk';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { sdkFor } from '../support/sdk.js';
import { listFanOutPage } from '../../src/engine/recipients.js';
import { insertExecutions } from '../../src/repositories/executions.js';
import { newUlid } from '../../src/ids.js';
import {
  baseCall,
  engineWorkspace,
  listOf,
  messages,
  newExecution,
  settledMessages,
  triggerJobsOf,
  waitFor,
} from '../support/engine-drivers.js';

const broadcast = (t: () => TestApp, ws: WorkspaceFixture, body: unknown, key = ws.workspaceKey) =>
  baseCall(t, ws)('POST', `/${key}/broadcast/`, body);
const cancel = (t: () => TestApp, ws: WorkspaceFixture, body: unknown) =>
  baseCall(t, ws)('POST', '/v1/broadcast_run/cancel/', body);

const executionsOf = (t: () => TestApp, ws: WorkspaceFixture) =>
  t()
    .db.selectFrom('executions')
    .select(['id', 'status', 'source', 'list_id'])
    .where('workspace_id', '=', ws.workspaceId)
    .execute();

/** The broadcast's trigger job, as the queue holds it (a broadcast starts later: a job of its own). */
async function triggerJob(t: () => TestApp, executionId: string) {
  const [row, ...more] = await triggerJobsOf(t(), [executionId]);
  expect(more).toEqual([]);
  if (row) expect(row.executions).toBe(1);
  return row;
}

describe('broadcasts', () => {
  const t = useTestApp({}, { engine: {} });

  it('sends the template to every live member, each through the delivery decision, one message per member and channel', async () => {
    const ws = await engineWorkspace(t);
    const call = baseCall(t, ws);
    await call('POST', '/v1/user/with-email/', { $email: ['w@example.com'] });
    await listOf(t, ws, 'everyone', ['ada', 'bob', 'opted-out', 'with-email']);
    await call('PATCH', '/v1/user/opted-out/preference/category/order-updates/', { preference: 'opt_out' });

    const response = await broadcast(t, ws, {
      list_id: 'everyone',
      template: 'news',
      notification_category: 'order-updates',
      channels: ['inbox', 'email'],
      data: { text: 'big news' },
    });
    expect(response.statusCode).toBe(202);
    const accepted = response.json();
    expect(accepted).toEqual({ status: 'success', message: 'Accepted - OK', message_id: expect.any(String) });

    const settled = await settledMessages(t, ws, accepted.message_id, 8);
    expect(settled).toHaveLength(8);
    const by = (id: string, channel: string) =>
      settled.find((m) => m.recipient.distinct_id === id && m.channel === channel)!;
    for (const id of ['ada', 'bob', 'with-email']) {
      expect(by(id, 'inbox')).toMatchObject({
        status: 'delivered',
        content: { text: 'big news' },
        category: 'order-updates',
        parent_execution_id: accepted.message_id,
        workflow: { slug: 'broadcast:everyone' },
      });
    }
    // §4 in order: no address, then the member's preference, then no vendor for the channel.
    expect(by('ada', 'email')).toMatchObject({ status: 'not_to_be_triggered', reason: 'no_channel' });
    expect(by('opted-out', 'inbox')).toMatchObject({ status: 'not_to_be_triggered', reason: 'user_opt_out' });
    expect(by('with-email', 'email')).toMatchObject({ status: 'not_to_be_triggered', reason: 'no_provider' });
    expect(await executionsOf(t, ws)).toEqual([
      { id: accepted.message_id, status: 'accepted', source: 'broadcast', list_id: 'everyone' },
    ]);
  });

  it('without channels uses every channel each member has, inbox excepted', async () => {
    const ws = await engineWorkspace(t);
    await baseCall(t, ws)('POST', '/v1/user/reachable/', { $email: ['r@example.com'] });
    await listOf(t, ws, 'mixed', ['reachable', 'silent']);
    const response = await broadcast(t, ws, {
      list_id: 'mixed',
      template: 't',
      notification_category: 'order-updates',
    });
    expect(response.statusCode).toBe(202);
    const [only] = await settledMessages(t, ws, response.json().message_id, 1);
    expect(only).toMatchObject({ channel: 'email', recipient: { distinct_id: 'reachable' }, reason: 'no_provider' });
    expect(only!.is_campaign).toBe(true);
    expect((await messages(t, ws, '?is_campaign=true')).results.map((m) => m.message_id)).toEqual([only!.message_id]);
    expect((await messages(t, ws, '?is_campaign=false')).meta.count).toBe(0);
    // A member with no channel gets no message at all: there was nothing to decide.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await messages(t, ws, `?execution_id=${response.json().message_id}`)).meta.count).toBe(1);
  });

  it('refuses bad requests with a clear 4xx and records nothing', async () => {
    const ws = await engineWorkspace(t);
    await listOf(t, ws, 'known', ['ada']);
    const ok = { list_id: 'known', template: 't', notification_category: 'order-updates' };
    const cases: [unknown, number, string][] = [
      [{ template: 't', notification_category: 'order-updates' }, 400, 'list_id is required'],
      [{ list_id: 'known', notification_category: 'order-updates' }, 400, 'template is required'],
      [{ list_id: 'known', template: 't' }, 400, 'notification_category is required'],
      [{ ...ok, channels: ['pigeon'] }, 400, 'channels.0'],
      [{ ...ok, delay: 'soon' }, 400, 'delay must be a duration'],
      [{ ...ok, trigger_at: 'tomorrow' }, 400, 'trigger_at must be an ISO 8601 date-time'],
      [{ ...ok, delay: '367d' }, 400, 'delay must be at most 366 days'],
      [{ ...ok, delay: 1e300 }, 400, 'delay must be at most 366 days'],
      [{ ...ok, trigger_at: '+275760-09-13T00:00:00Z' }, 400, 'trigger_at must be at most 366 days ahead'],
      [{ ...ok, list_id: 'ghost' }, 404, 'list_id: ghost not found'],
      [{ ...ok, tenant_id: 'acme' }, 404, "tenant 'acme' not found"],
    ];
    for (const [body, status, message] of cases) {
      const response = await broadcast(t, ws, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json()).toEqual({ status: 'fail', message: expect.stringContaining(message) });
    }
    const wrongKey = await broadcast(t, ws, ok, 'not-this-workspace');
    expect(wrongKey.statusCode).toBe(404);
    expect(wrongKey.json()).toEqual({ status: 'fail', message: 'workspace key not found' });
    expect(await executionsOf(t, ws)).toEqual([]);
  });

  it('answers a repeated $idempotency_key with the first broadcast, also when requests race', async () => {
    const ws = await engineWorkspace(t);
    await listOf(t, ws, 'once', ['ada', 'bob']);
    const body = {
      list_id: 'once',
      template: 't',
      notification_category: 'order-updates',
      channels: ['inbox'],
      $idempotency_key: 'b-1',
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => broadcast(t, ws, body)));
    const ids = new Set(answers.map((a) => (expect(a.statusCode).toBe(202), a.json().message_id)));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    await settledMessages(t, ws, id!, 2);
    expect(await executionsOf(t, ws)).toHaveLength(1);
  });

  it('starts after its delay or at trigger_at: the trigger job waits in the queue', async () => {
    const ws = await engineWorkspace(t);
    await listOf(t, ws, 'later', ['ada']);
    const base = { list_id: 'later', template: 't', notification_category: 'order-updates', channels: ['inbox'] };
    const before = Date.now();
    const delayed = (await broadcast(t, ws, { ...base, delay: '1h30m' })).json().message_id;
    const job = await triggerJob(t, delayed);
    expect(job!.start_after.getTime()).toBeGreaterThanOrEqual(before + 90 * 60_000 - 1000);
    expect(job!.start_after.getTime()).toBeLessThanOrEqual(Date.now() + 90 * 60_000 + 1000);
    const at = new Date(Date.now() + 2 * 86_400_000);
    const scheduled = (await broadcast(t, ws, { ...base, delay: 5, trigger_at: at.toISOString() })).json().message_id;
    expect((await triggerJob(t, scheduled))!.start_after.getTime()).toBe(at.getTime());
    const inSeconds = (await broadcast(t, ws, { ...base, delay: 2 })).json().message_id;
    const started = Date.now();
    await settledMessages(t, ws, inSeconds, 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect((await messages(t, ws, `?execution_id=${delayed}`)).meta.count).toBe(0);
  });

  it('cancel: 400 without a filter; matches broadcasts only, ANDs the filters, and stops members not yet processed', async () => {
    const ws = await engineWorkspace(t);
    await listOf(t, ws, 'big', ['ada', 'bob']);
    await listOf(t, ws, 'small', ['cy']);
    const empty = await cancel(t, ws, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual({
      code: 400,
      message: 'at least one filter is required: execution_id, list_id, idempotency_key',
    });
    expect((await cancel(t, ws, { list_id: 'big', extra: 1 })).statusCode).toBe(400);

    const base = { template: 't', notification_category: 'order-updates', channels: ['inbox'], delay: '1h' };
    const big = (await broadcast(t, ws, { ...base, list_id: 'big', $idempotency_key: 'k-big' })).json().message_id;
    const small = (await broadcast(t, ws, { ...base, list_id: 'small' })).json().message_id;
    // ANDed: the list matches but the key does not.
    expect((await cancel(t, ws, { list_id: 'small', idempotency_key: 'k-big' })).json()).toEqual({ execution_ids: [] });
    // The workflow cancel does not reach broadcasts, nor the broadcast cancel workflow runs.
    expect((await baseCall(t, ws)('POST', '/v1/workflow_run/cancel/', { execution_id: big })).json()).toEqual({
      execution_ids: [],
    });
    expect((await cancel(t, ws, { list_id: 'big' })).json()).toEqual({ execution_ids: [big] });
    expect((await cancel(t, ws, { execution_id: big })).json()).toEqual({ execution_ids: [] });
    expect((await cancel(t, ws, { idempotency_key: 'k-big' })).json()).toEqual({ execution_ids: [] });

    // The cancelled broadcast's start comes: it finds itself cancelled and makes no run. The other runs.
    const schema = t().engineRuntime!.schema;
    const jobIds = (await triggerJobsOf(t(), [big, small])).map((row) => row.id);
    expect(jobIds).toHaveLength(2);
    await sql`update ${sql.id(schema, 'job')} set start_after = now()
      where name = 'herald-trigger' and id = any(${jobIds}::uuid[])`.execute(t().db);
    await settledMessages(t, ws, small, 1);
    await waitFor(async () => (await triggerJob(t, big))?.state === 'completed', 10_000, 'the trigger job');
    expect((await messages(t, ws, `?execution_id=${big}`)).meta.count).toBe(0);
    const runs = await t().db.selectFrom('workflow_runs').select('id').where('execution_id', '=', big).execute();
    expect(runs).toEqual([]);
  });

  it('pages members with a fixed number of statements per page; a page done twice (a killed worker) duplicates nothing; a cancelled broadcast’s page makes nothing', async () => {
    const ws = await engineWorkspace(t);
    const queue = t().engineRuntime!.queue;
    const counts: number[] = [];
    for (const [name, size] of [
      ['small', 3],
      ['large', 40],
    ] as const) {
      await listOf(
        t,
        ws,
        name,
        Array.from({ length: size }, (_, i) => `${name}-${i}`),
      );
      // A broadcast written without its trigger job: only the pages run by hand below touch it.
      const id = newUlid();
      await insertExecutions(t().db, ws.workspaceId, [
        newExecution({
          id,
          tree: { nodes: [{ name: 'b', node_type: 'send_multi_channel', template: 't', channels: ['inbox'] }] },
          workflow_slug: `broadcast:${name}`,
          version_no: 0,
          source: 'broadcast',
          list_id: name,
        }),
      ]);
      const list = await t()
        .db.selectFrom('subscriber_lists')
        .select('id')
        .where('workspace_id', '=', ws.workspaceId)
        .where('list_id', '=', name)
        .executeTakeFirstOrThrow();
      const job = { executionId: id, workspaceId: ws.workspaceId, listPk: list.id, after: 0 };
      t().queries.reset();
      await t()
        .db.transaction()
        .execute((trx) => listFanOutPage(trx, queue, job, 50));
      counts.push(t().queries.count);
      await t()
        .db.transaction()
        .execute((trx) => listFanOutPage(trx, queue, job, 50));
      await settledMessages(t, ws, id, size);
      expect((await messages(t, ws, `?execution_id=${id}&limit=100`)).meta.count).toBe(size);
    }
    expect(counts[0]).toBe(counts[1]);
    expect(counts[0]).toBeLessThanOrEqual(6);

    // A page of a cancelled broadcast (the job was already queued when the cancel came) makes no run.
    await listOf(t, ws, 'paged', ['p-1', 'p-2']);
    const response = await broadcast(t, ws, {
      list_id: 'paged',
      template: 't',
      notification_category: 'order-updates',
      channels: ['inbox'],
      delay: '1h',
    });
    const id = response.json().message_id;
    expect((await cancel(t, ws, { execution_id: id })).json()).toEqual({ execution_ids: [id] });
    const list = await t()
      .db.selectFrom('subscriber_lists')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .where('list_id', '=', 'paged')
      .executeTakeFirstOrThrow();
    await t()
      .db.transaction()
      .execute((trx) =>
        listFanOutPage(trx, queue, { executionId: id, workspaceId: ws.workspaceId, listPk: list.id, after: 0 }, 10),
      );
    expect(await t().db.selectFrom('workflow_runs').select('id').where('execution_id', '=', id).execute()).toEqual([]);
  });

  it('works with the official SDK: subscriber_lists.broadcast over a signed request', async () => {
    const ws = await engineWorkspace(t);
    await listOf(t, ws, 'sdk-list', ['sdk-a', 'sdk-b']);
    const supr = await sdkFor(t(), ws);
    const answer = await supr.subscriber_lists.broadcast(
      new SubscriberListBroadcast(
        {
          list_id: 'sdk-list',
          template: 'sdk-template',
          notification_category: 'order-updates',
          channels: ['inbox'],
          data: { text: 'from the sdk' },
        },
        { idempotency_key: 'sdk-broadcast-1', tenant_id: 'default' },
      ),
    );
    expect(answer).toMatchObject({ success: true, status: 'success', status_code: 202 });
    const execution = await t()
      .db.selectFrom('executions')
      .select(['id', 'idempotency_key', 'tenant_id'])
      .where('workspace_id', '=', ws.workspaceId)
      .executeTakeFirstOrThrow();
    expect(execution).toMatchObject({ idempotency_key: 'sdk-broadcast-1', tenant_id: 'default' });
    const settled = await settledMessages(t, ws, execution.id, 2);
    expect(settled.map((m) => m.recipient.distinct_id).sort()).toEqual(['sdk-a', 'sdk-b']);
    expect(settled.every((m) => m.content.text === 'from the sdk')).toBe(true);

    const refused = await supr.subscriber_lists.broadcast(
      new SubscriberListBroadcast({
        list_id: 'no-such-list',
        template: 'tt',
        notification_category: 'order-updates',
        data: {},
      }),
    );
    expect(refused).toMatchObject({ success: false, status: 'fail', status_code: 404 });
  });
});
