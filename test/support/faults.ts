import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { TestApp } from './app.js';
import type { WorkspaceFixture } from './fixtures.js';
import { configClient } from './config.js';
import { liveWorkflow, node, trigger } from './engine-drivers.js';

/** Drivers shared by the engine fault tests: templates, webhook vendors, subscribers, and counts straight from the tables. */

/** Fault tests run at a size that fits a minute on a shared two-core machine; FAULTS_FULL=1 runs the size. */
export const faultSize = (small: number, full: number) =>
  Number(process.env.FAULTS_RECIPIENTS ?? (process.env.FAULTS_FULL ? full : small));

/** The workspace's default vendor for a channel: the webhook provider, to a local receiver. */
export async function webhookVendor(
  t: () => TestApp,
  ws: WorkspaceFixture,
  channel: string,
  url: string,
  secret: string,
) {
  const response = await configClient(t, ws).inject('POST', '/vendor/', {
    channel,
    provider: 'webhook',
    nickname: `${channel} hook`,
    is_default: true,
    config: { url, secret },
  });
  if (response.statusCode !== 201) throw new Error(`vendor: ${response.body}`);
}

/** `count` users with an email and a phone, subscribed to one object, 100 per request. */
export async function subscribeUsers(t: () => TestApp, ws: WorkspaceFixture, object: string, count: number) {
  const call = (url: string, payload: object) => t().app.inject({ method: 'POST', url, headers: ws.base, payload });
  const created = await call(`/v1/object/crowd/${object}/`, {});
  if (created.statusCode >= 300) throw new Error(`object: ${created.body}`);
  for (let from = 0; from < count; from += 100) {
    const recipients = Array.from({ length: Math.min(100, count - from) }, (_, i) => {
      const id = `member-${from + i}`;
      return { distinct_id: id, $email: [`${id}@example.com`], $sms: [`+1555${String(from + i).padStart(7, '0')}`] };
    });
    const response = await call(`/v1/object/crowd/${object}/subscription/`, { recipients });
    if (response.statusCode !== 200) throw new Error(`subscribe: ${response.body}`);
  }
}

/** A trigger's messages by status, and how many (run, step, channel) keys were written more than once. */
export async function messageCounts(db: Db, executionId: string) {
  const { rows } = await sql<{ status: string; n: number }>`
    select status, count(*)::int as n from messages where execution_id = ${executionId} group by status`.execute(db);
  const byStatus = Object.fromEntries(rows.map((row) => [row.status, row.n]));
  const total = rows.reduce((sum, row) => sum + row.n, 0);
  const pending = (byStatus.to_be_triggered ?? 0) + (byStatus.triggered ?? 0);
  const doubled = await sql<{ n: number }>`
    select count(*)::int as n from (select run_id, node_ref, channel from messages where execution_id = ${executionId}
      group by 1, 2, 3 having count(*) > 1) d`.execute(db);
  return { byStatus, total, pending, doubled: doubled.rows[0]!.n };
}

export async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A Twilio-compatible Messages API on 127.0.0.1 answering each call after the delay set for it (`delays[i]` for the
 * i-th call, the last one for every later call; 201 with a message SID); records when each call came and closed.
 */
export async function startSlowSmsApi(delays: number[]) {
  const calls: { at: number; closedAt?: number; answered: boolean }[] = [];
  const server = http.createServer((request, response) => {
    const call: (typeof calls)[number] = { at: Date.now(), answered: false };
    const delay = delays[Math.min(calls.length, delays.length - 1)] ?? 0;
    calls.push(call);
    request.resume();
    response.on('close', () => (call.closedAt = Date.now()));
    setTimeout(() => {
      if (response.destroyed) return;
      call.answered = true;
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sid: `SM${calls.indexOf(call)}`, status: 'queued' }));
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A live workflow `sms` sending through a Twilio vendor at `baseUrl` whose calls may take `timeoutMs`. */
export async function slowSmsWorkflow(t: () => TestApp, ws: WorkspaceFixture, baseUrl: string, timeoutMs: number) {
  const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
    channel: 'sms',
    provider: 'twilio',
    nickname: 'slow sms',
    is_default: true,
    config: {
      account_sid: 'AC0123456789',
      auth_token: 'twilio-token-0123456789',
      from: '+15550000000',
      base_url: baseUrl,
      timeout_ms: timeoutMs,
    },
  });
  if (vendor.statusCode !== 201) throw new Error(`vendor: ${vendor.body}`);
  await liveWorkflow(t, ws, 'sms', [node('send_sms', { template: 'note' })]);
  return async () => {
    const accepted = await trigger(t, ws, {
      workflow: 'sms',
      recipients: [{ distinct_id: 'slow-user', $sms: ['+15551230000'] }],
    });
    if (accepted.statusCode !== 202) throw new Error(`trigger: ${accepted.body}`);
    return accepted.json().message_id as string;
  };
}

/** The SMS message of a trigger: its status and attempts. */
export async function smsMessage(db: Db, executionId: string) {
  const { rows } = await sql<{ status: string; attempts: { outcome: string; reason?: string }[] }>`
    select status, attempts from messages where execution_id = ${executionId} and channel = 'sms'`.execute(db);
  return rows[0];
}
