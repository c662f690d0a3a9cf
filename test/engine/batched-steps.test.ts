import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { renderTemplate } from '../../src/channels/rendering.js';
import { DEFAULT_OUTBOUND } from '../../src/channels/outbound.js';
import { providers } from '../../src/channels/registry.js';
import { prepareDeliveries, sendDeliveries, type Renderer } from '../../src/engine/deliver.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { webhookVendor } from '../support/faults.js';
import { liveTemplate } from '../support/templates.js';
import { fanOutPage } from '../../src/engine/recipients.js';
import { stepRuns } from '../../src/engine/runner.js';
import type { StepRenderer } from '../../src/engine/run-scope.js';
import { insertExecutions } from '../../src/repositories/executions.js';
import { newUlid } from '../../src/ids.js';
import { baseCall, engineWorkspace, liveWorkflow, messages, newExecution, node } from '../support/engine-drivers.js';

/**
 * A batch of run steps (src/engine/runner.ts `stepRuns`) sends a fixed number of statements whatever
 * its size: runs, users, tenants, preferences and the template read once for the batch, the messages,
 * their feed events and the runs' progress written once. So does a batch of provider deliveries
 * (src/engine/deliver.ts): the messages (rendered by their steps) and the vendor read once, every
 * outcome written in one statement.
 */
describe('batched run steps and deliveries', () => {
  // No worker: the fan-out's run-batch jobs wait, and the test steps their runs by hand.
  const t = useTestApp({}, { engine: { worker: false, renderer: 'templates' } });

  async function template(ws: WorkspaceFixture) {
    const management = (method: 'POST' | 'PATCH', path: string, body: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}${path}`,
        headers: ws.management,
        payload: body as object,
      });
    await management('POST', '/template/note/', { name: 'Note', enabled_channels: ['inbox'] });
    await management('POST', '/template/note/channel/inbox/variant/default/', {
      locale: 'en',
      content: { header: 'Order {{order}}', text: 'Hi {{$recipient.distinct_id}}' },
    });
    const commit = await management('PATCH', '/template/note/commit/', {});
    if (commit.statusCode >= 300) throw new Error(`template not committed: ${commit.body}`);
  }

  /** An execution of `slug` on an object with `size` subscribers, paged into runs (not yet stepped). */
  async function pendingRuns(
    t: () => TestApp,
    ws: WorkspaceFixture,
    slug: string,
    object: string,
    size: number,
    withEmail = false,
  ) {
    const call = baseCall(t, ws);
    await call('POST', `/v1/object/crowd/${object}/`, {});
    const recipients = Array.from({ length: size }, (_, i) =>
      withEmail ? { distinct_id: `${object}-${i}`, $email: [`${object}-${i}@example.com`] } : `${object}-${i}`,
    );
    const subscribed = await call('POST', `/v1/object/crowd/${object}/subscription/`, { recipients });
    if (subscribed.statusCode !== 200) throw new Error(`subscribe failed: ${subscribed.body}`);
    const workflow = await t()
      .db.selectFrom('workflows')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow();
    const executionId = newUlid();
    await insertExecutions(t().db, ws.workspaceId, [
      newExecution({
        id: executionId,
        workflow_id: workflow.id,
        workflow_slug: slug,
        data: { order: 'A-1' },
      }),
    ]);
    const objectRow = await t()
      .db.selectFrom('objects')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .where('object_id', '=', object)
      .executeTakeFirstOrThrow();
    await t()
      .db.transaction()
      .execute((trx) =>
        fanOutPage(
          trx,
          t().engineRuntime!.queue,
          { executionId, workspaceId: ws.workspaceId, objectId: objectRow.id, depth: 1, after: 0 },
          100,
        ),
      );
    const runs = await t()
      .db.selectFrom('workflow_runs')
      .select('id')
      .where('execution_id', '=', executionId)
      .orderBy('id')
      .execute();
    return { executionId, runIds: runs.map((r) => r.id) };
  }

  it('steps 3 runs and 40 runs with the same number of statements, one inbox message each', async () => {
    const ws = await engineWorkspace(t);
    await template(ws);
    await liveWorkflow(t, ws, 'note', [node('send_inbox', { template: 'note' })]);
    const deps = {
      db: t().db,
      queue: t().engineRuntime!.queue,
      now: Date.now,
      httpTimeoutMs: 1000,
      outbound: DEFAULT_OUTBOUND,
      log: { error: () => undefined },
      render: ((request, db, memo) => renderTemplate(db, request, memo)) satisfies StepRenderer,
    };
    const counts: number[] = [];
    // The first batch also reads what a worker caches per database (the tree, the compiled template).
    for (const [object, size] of [
      ['warm', 2],
      ['few', 3],
      ['many', 40],
    ] as const) {
      const { executionId, runIds } = await pendingRuns(t, ws, 'note', object, size);
      expect(runIds).toHaveLength(size);
      t().queries.reset();
      const rest = await stepRuns(
        deps,
        runIds.map((runId) => ({ runId, job: { id: runId } })),
      );
      counts.push(t().queries.count);
      for (const runId of runIds) await rest(runId);
      const sent = await messages(t, ws, `?execution_id=${executionId}&limit=100`);
      expect(sent.meta.count).toBe(size);
      expect(sent.results.every((m) => m.status === 'delivered')).toBe(true);
      expect(sent.results.find((m) => m.recipient.distinct_id === `${object}-0`)?.content).toMatchObject({
        header: 'Order A-1',
        text: `Hi ${object}-0`,
      });
    }
    expect(counts[2]).toBe(counts[1]);
  });

  describe('deliveries', () => {
    const SECRET = 'whsec-batch-0123456789abcdef';
    let sink: Awaited<ReturnType<typeof startWebhookReceiver>>;
    beforeAll(async () => {
      sink = await startWebhookReceiver(SECRET);
      // As the engine does when it starts (src/engine/engine.ts): the deliveries below are made by hand.
      await Promise.all([...providers.values()].map((provider) => provider.warm?.()));
    });
    afterAll(async () => {
      await sink.close();
    });

    it('delivers 3 and 12 email messages with the same number of statements, one call each', async () => {
      const ws = await engineWorkspace(t);
      await liveTemplate(t, ws, 'mail', ['email']);
      await webhookVendor(t, ws, 'email', sink.url, SECRET);
      await liveWorkflow(t, ws, 'mail', [node('send_email', { template: 'mail' })]);
      const steps = {
        db: t().db,
        queue: t().engineRuntime!.queue,
        now: Date.now,
        httpTimeoutMs: 1000,
        outbound: DEFAULT_OUTBOUND,
        log: { error: () => undefined },
        render: ((request, db, memo) => renderTemplate(db, request, memo)) satisfies StepRenderer,
      };
      const deps = {
        ...steps,
        secretBox: t().secretBox,
        render: ((request, db, memo) => renderTemplate(db ?? t().db, request, memo)) satisfies Renderer,
        providers,
        outbound: DEFAULT_OUTBOUND,
        deliveryTimeoutMs: 2000,
        retryDelayScale: 0.01,
      };
      const counts: number[] = [];
      for (const [object, size] of [
        ['mail-warm', 2],
        ['mail-few', 3],
        ['mail-many', 12],
      ] as const) {
        const { executionId, runIds } = await pendingRuns(t, ws, 'mail', object, size, true);
        const rest = await stepRuns(
          steps,
          runIds.map((runId) => ({ runId, job: { id: runId } })),
        );
        for (const runId of runIds) await rest(runId);
        const queued = await t()
          .db.selectFrom('messages')
          .select('id')
          .where('execution_id', '=', executionId)
          .where('status', '=', 'to_be_triggered')
          .execute();
        expect(queued).toHaveLength(size);
        const jobs = queued.map((m) => ({ messageId: m.id, attempt: 1 }));
        t().queries.reset();
        const prepared = await prepareDeliveries(deps, [...jobs, jobs[0]!]);
        await sendDeliveries(deps, prepared);
        counts.push(t().queries.count);
        const sent = await messages(t, ws, `?execution_id=${executionId}&limit=100`);
        expect(sent.results.map((m) => m.status)).toEqual(Array(size).fill('sent_by_vendor'));
        expect(sent.results.every((m) => m.attempts === 1 && m.vendor?.name === 'webhook')).toBe(true);
        // A job fetched twice in one batch is delivered once.
        const ids = new Set(queued.map((m) => m.id));
        expect(sink.received.filter((r) => ids.has(r.body.message_id as string))).toHaveLength(size);
        // Delivered already: the same jobs again send nothing.
        const again = await prepareDeliveries(deps, jobs);
        expect(again.calls).toHaveLength(0);
      }
      expect(counts[2]).toBe(counts[1]);
      // The step stored each message's content: the messages (with their runs' status), the vendors, the template's
      // mark (no marks kept in these deps) and the outcomes. No run, user, tenant or template read again.
      expect(counts[1]).toBe(4);
    });
  });
});
