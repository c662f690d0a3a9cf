import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSmtpPools } from '../../src/channels/providers/smtp.js';
import { useTestApp } from '../support/app.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { configClient } from '../support/config.js';
import { liveTemplate } from '../support/templates.js';
import { baseCall, engineWorkspace, listOf, settledMessages } from '../support/engine-drivers.js';

const USER = 'herald';
const PASSWORD = 'smtp-password-3a9e71';
const MEMBERS = 120;

/**
 * A broadcast by email through the worker's pooled SMTP connections, with the deadline users have (no engine cap on
 * a provider call, as test/support/console.ts runs it): every member gets the mail exactly once, however many sends
 * the pool carries side by side.
 */
describe('a broadcast by email over pooled SMTP connections', () => {
  const t = useTestApp({}, { engine: { renderer: 'templates', engine: { deliveryTimeoutMs: undefined } } });
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await SmtpSink.start({ username: USER, password: PASSWORD });
  });
  afterAll(async () => {
    await closeSmtpPools();
    await sink?.close();
  });

  it(`delivers ${MEMBERS} mails, each exactly once, over reused connections`, { timeout: 180_000 }, async () => {
    const ws = await engineWorkspace(t);
    await configClient(t, ws).addSmtpVendor(sink.port, { username: USER, password: PASSWORD });
    await liveTemplate(t, ws, 'news', ['email']);

    const call = baseCall(t, ws);
    const members = Array.from({ length: MEMBERS }, (_, i) => `member-${i}`);
    for (const id of members) {
      const created = await call('POST', `/v1/user/${id}/`, { $email: [`${id}@example.org`] });
      expect(created.statusCode, created.body).toBeLessThan(300);
    }
    await listOf(t, ws, 'readers', members);
    const connectionsBefore = sink.connections;

    const accepted = await call('POST', `/${ws.workspaceKey}/broadcast/`, {
      list_id: 'readers',
      template: 'news',
      notification_category: 'order-updates',
      channels: ['email'],
      data: {},
    });
    expect(accepted.statusCode, accepted.body).toBe(202);
    const settled = await settledMessages(t, ws, accepted.json().message_id, MEMBERS, 150_000);
    expect(settled.map((m) => m.status)).toEqual(Array(MEMBERS).fill('sent_by_vendor'));
    // A late second copy would come after the messages settled: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const recipients = sink.mails.map((m) => m.envelope.to[0]).sort();
    expect(recipients).toEqual(members.map((id) => `${id}@example.org`).sort());
    // Fewer connections than mails: the pool carried several mails on each.
    expect(sink.connections - connectionsBefore).toBeLessThan(MEMBERS);
  });
});
