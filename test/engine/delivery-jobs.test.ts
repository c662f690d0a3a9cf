import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_FETCH, DELIVERY_JOB_MESSAGES, deliverySlots } from '../../src/engine/deliver.js';
import { deliveryQueue } from '../../src/engine/queue.js';
import { useTestApp } from '../support/app.js';
import { engineWorkspace, liveWorkflow, node, trigger } from '../support/engine-drivers.js';
import { messageCounts, subscribeUsers, until, webhookVendor } from '../support/faults.js';
import { liveTemplate } from '../support/templates.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'whsec-batch-0123456789abcdef';
const RECIPIENTS = 23;

/**
 * Delivery jobs per batch of messages (docs/engine.md, "Deliveries"): a run step queues one job per channel and
 * DELIVERY_JOB_MESSAGES of its new messages, each rendered by the step and recorded with its content, which the job
 * sends as stored; a job of the older shape (one `messageId`), and a message recorded without content, are still
 * delivered; a job run again sends only the messages whose attempt it has not recorded.
 */
describe('delivery jobs carry a batch of messages', () => {
  const t = useTestApp({}, { engine: { engine: { retryDelayScale: 0.002, deliveryTimeoutMs: 10_000 } } });
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(SECRET);
  });
  afterAll(() => receiver.close());

  const schema = () => t().engineRuntime!.schema;
  const emailJobs = async (ids: Set<string>) => {
    const { rows } = await sql<{ data: Record<string, unknown> }>`
      select data from ${sql.id(schema(), 'job')} where name = ${deliveryQueue('email')}`.execute(t().db);
    return rows
      .map((row) => row.data)
      .filter((data) =>
        ((data.messageIds as string[] | undefined) ?? [data.messageId as string]).some((id) => ids.has(id)),
      );
  };
  const atSink = (id: string) => receiver.received.filter((r) => r.body.message_id === id).length;
  /** Queues one job on the email queue, as a release before batches (or a retry) would, and waits for it to finish. */
  const runJob = async (data: object) => {
    const id = randomUUID();
    await t().engineRuntime!.queue.sendMany(t().db, deliveryQueue('email'), [{ data, options: { id } }]);
    await until(
      async () => {
        const { rows } = await sql<{ state: string }>`
          select state from ${sql.id(schema(), 'job')} where id = ${id}`.execute(t().db);
        return rows[0]?.state === 'completed';
      },
      30_000,
      'the job completed',
    );
  };

  it('holds about concurrency × 10 messages per delivery queue: half the slots, each of 20', () => {
    const held = (concurrency: number) => deliverySlots(concurrency) * DELIVERY_FETCH * DELIVERY_JOB_MESSAGES;
    expect(DELIVERY_FETCH * DELIVERY_JOB_MESSAGES).toBe(20);
    expect([1, 2, 4, 8].map(held)).toEqual([20, 20, 40, 80]);
  });

  let ws: Awaited<ReturnType<typeof engineWorkspace>>;
  let sent: string[] = [];

  it('a fan-out queues a job per DELIVERY_JOB_MESSAGES messages, and each message reaches the sink once', async () => {
    ws = await engineWorkspace(t);
    await liveTemplate(t, ws, 'crowd', ['email']);
    await webhookVendor(t, ws, 'email', receiver.url, SECRET);
    await liveWorkflow(t, ws, 'crowd', [node('send_email', { template: 'crowd' })]);
    await subscribeUsers(t, ws, 'all', RECIPIENTS);
    const accepted = await trigger(t, ws, { workflow: 'crowd', recipients: [{ object_type: 'crowd', id: 'all' }] });
    expect(accepted.statusCode).toBe(202);
    const executionId = accepted.json().message_id as string;
    await until(
      async () => {
        const counts = await messageCounts(t().db, executionId);
        return counts.total === RECIPIENTS + 1 && counts.pending === 0;
      },
      60_000,
      'every message settled',
    );
    const counts = await messageCounts(t().db, executionId);
    // The object itself has no email: refused, never queued.
    expect(counts.byStatus).toEqual({ sent_by_vendor: RECIPIENTS, not_to_be_triggered: 1 });
    const rows = await t()
      .db.selectFrom('messages')
      .select(['id', 'attempts'])
      .where('execution_id', '=', executionId)
      .where('status', '=', 'sent_by_vendor')
      .execute();
    sent = rows.map((row) => row.id);
    const jobs = await emailJobs(new Set(sent));
    // Every first attempt queued in the batch shape, none above the size, every message in exactly one of them (a
    // retry, if a loaded machine made one, is its own job of one message).
    const first = jobs.filter((job) => job.attempt === 1);
    expect(first.every((job) => Array.isArray(job.messageIds))).toBe(true);
    expect(first.every((job) => (job.messageIds as string[]).length <= DELIVERY_JOB_MESSAGES)).toBe(true);
    expect(first.flatMap((job) => job.messageIds as string[]).sort()).toEqual([...sent].sort());
    expect(first.length).toBeGreaterThanOrEqual(Math.ceil(RECIPIENTS / DELIVERY_JOB_MESSAGES));
    expect(first.length).toBeLessThan(RECIPIENTS);
    expect(jobs.filter((job) => job.attempt !== 1).every((job) => typeof job.messageId === 'string')).toBe(true);
    // At the sink: each at least once, and no more often than its attempts.
    expect(rows.every((row) => atSink(row.id) >= 1 && atSink(row.id) <= (row.attempts as unknown[]).length)).toBe(true);
  });

  it('delivers a job of the older shape (one messageId), and a batch job again sends only what it has not recorded', async () => {
    expect(sent.length).toBe(RECIPIENTS);
    const [again, alsoAgain, done] = sent as [string, string, string];
    // Two messages made deliverable again, as if their first attempt had not been made.
    await t()
      .db.updateTable('messages')
      .set({ status: 'to_be_triggered', attempts: JSON.stringify([]) })
      .where('id', 'in', [again, alsoAgain])
      .execute();
    const before = new Map(sent.map((id) => [id, atSink(id)]));
    await runJob({ messageId: again, attempt: 1 });
    expect(atSink(again)).toBe(before.get(again)! + 1);
    // A batch job run again (after a crash, say): the delivered messages are skipped, the other one is sent.
    await runJob({ messageIds: [again, alsoAgain, done], attempt: 1 });
    expect(atSink(again)).toBe(before.get(again)! + 1);
    expect(atSink(alsoAgain)).toBe(before.get(alsoAgain)! + 1);
    expect(atSink(done)).toBe(before.get(done));
    const settled = await t()
      .db.selectFrom('messages')
      .select(['id', 'status', 'attempts'])
      .where('id', 'in', [again, alsoAgain])
      .execute();
    expect(settled.map((m) => [m.status, (m.attempts as unknown[]).length])).toEqual([
      ['sent_by_vendor', 1],
      ['sent_by_vendor', 1],
    ]);
  });

  it('sends the content its step stored, and renders a message recorded without content (a release before)', async () => {
    const [, , , stored, bare] = sent as [string, string, string, string, string];
    const { template } = await t()
      .db.selectFrom('messages')
      .select(['template'])
      .where('id', '=', stored)
      .executeTakeFirstOrThrow();
    expect(template).toMatchObject({ slug: 'crowd', version_no: 1 });
    const { content: rendered } = await t()
      .db.selectFrom('messages')
      .select(['content'])
      .where('id', '=', bare)
      .executeTakeFirstOrThrow();
    expect(rendered).not.toBeNull();
    // What the step stored is sent as it is: the delivery renders nothing again.
    const kept = { subject: 'as stored', html: '<p>as stored</p>' };
    await t()
      .db.updateTable('messages')
      .set({ status: 'to_be_triggered', attempts: JSON.stringify([]), content: JSON.stringify(kept) })
      .where('id', '=', stored)
      .execute();
    // A message recorded with its template's slug only, as steps did before they rendered provider messages.
    await t()
      .db.updateTable('messages')
      .set({
        status: 'to_be_triggered',
        attempts: JSON.stringify([]),
        content: null,
        template: JSON.stringify({ slug: 'crowd' }),
      })
      .where('id', '=', bare)
      .execute();
    const count = receiver.received.length;
    await runJob({ messageIds: [stored, bare], attempt: 1 });
    const bodies = receiver.received.slice(count).map((r) => r.body);
    expect(bodies.find((b) => b.message_id === stored)?.content).toEqual(kept);
    expect(bodies.find((b) => b.message_id === bare)?.content).toEqual(rendered);
    const after = await t()
      .db.selectFrom('messages')
      .select(['id', 'status', 'content', 'template'])
      .where('id', 'in', [stored, bare])
      .orderBy('id')
      .execute();
    expect(Object.fromEntries(after.map((m) => [m.id, [m.status, m.content, m.template]]))).toEqual({
      [stored]: ['sent_by_vendor', kept, template],
      [bare]: ['sent_by_vendor', rendered, template],
    });
  });

  it('records a provider message whose template cannot render as failed in its step, and queues no job for it', async () => {
    // The test renderer fails the template `broken`, as one that cannot render.
    await liveWorkflow(t, ws, 'unrenderable', [node('send_email', { template: 'broken' })]);
    const { message_id } = (
      await trigger(t, ws, {
        workflow: 'unrenderable',
        recipients: [{ distinct_id: 'ren', $email: ['ren@example.com'] }],
      })
    ).json();
    await until(async () => (await messageCounts(t().db, message_id)).total === 1, 30_000, 'the message recorded');
    const message = await t()
      .db.selectFrom('messages')
      .select(['id', 'status', 'reason', 'attempts'])
      .where('execution_id', '=', message_id)
      .executeTakeFirstOrThrow();
    expect(message).toMatchObject({ status: 'trigger_failed', reason: 'render_failed', attempts: [] });
    expect(await emailJobs(new Set([message.id]))).toEqual([]);
  });
});
