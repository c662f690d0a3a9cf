import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { HttpPeer } from '../support/http-peer.js';
import { createPrivateDatabase } from '../support/private-database.js';
import {
  prepareHeraldProcesses,
  processCallers,
  publishInboxWorkflow,
  startServer,
  type ServerProcess,
} from '../support/server-process.js';
import { waitFor } from '../support/engine-drivers.js';
import { DEFINITION } from '../support/preferences.js';

const RECIPIENTS = 5;

/** What the receiver answers an event's attempts before the kill, in order; 'hang' holds one until the kill. */
type Plan = (number | 'hang')[];

/**
 * Delivery-status webhooks across a worker killed (SIGKILL) while attempts are held at the receiver, with the queue
 * settings users get; the next process takes the lost attempts over. Counted at the receiver: every event arrives
 * and is answered 200, under one `webhook-id` for all of its attempts, each attempt signed, with the same body.
 */
describe('a worker killed mid-retry of delivery-status webhooks', () => {
  // Each event's first attempt is answered 500, its retry (a job of its own) is held and the process killed.
  it(
    'loses no event: the next worker delivers each one, under the same webhook-id',
    () => killWhileHeld([500, 'hang']),
    600_000,
  );
});

describe('a worker killed mid-job of first attempts of delivery-status webhooks', () => {
  // The events' first attempts, queued together in one job (engine/status-webhooks.ts), are all held and the process
  // killed: the next worker takes the job over and posts each event again, under its id, with its body.
  it(
    'loses no event: the next worker delivers each one, under the same webhook-id',
    () => killWhileHeld(['hang']),
    600_000,
  );
});

async function killWhileHeld(plan: Plan) {
  const database = await createPrivateDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-webhook-kill-'));
  const receiver = await HttpPeer.start();
  const herald = await prepareHeraldProcesses(database, {
    dataDir,
    slug: 'hook',
    env: { LOG_LEVEL: 'info', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' },
  });
  const env = herald.env;
  // Per webhook-id: the attempts the plan names answered so (a held one only until the kill), any later one succeeds.
  let killed = false;
  const seen = new Map<string, number>();
  const answered: { id: string; status: number | 'hang' }[] = [];
  receiver.answerAlways((recorded) => {
    const id = recorded.headers['webhook-id'] ?? '';
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    const planned = plan[n - 1];
    const status = planned === undefined || (planned === 'hang' && killed) ? 200 : planned;
    answered.push({ id, status });
    return status === 'hang' ? 'hang' : { status };
  });
  let server: ServerProcess | undefined;
  try {
    server = await startServer(env, 180_000);
    const { call, management } = await processCallers(() => server!.port, herald.credentials(server));
    expect((await management('POST', '/preference_category/?commit=true', DEFINITION)).status).toBe(200);
    const endpoint = await management('POST', '/webhook_endpoint/', {
      url: `${receiver.url}/events`,
      events: ['message.delivered'],
    });
    expect(endpoint.status).toBe(201);
    const secret = (endpoint.body as { secret: string }).secret;
    await publishInboxWorkflow({ management }, 'note');
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `reader-${i}`);
    expect((await call('POST', '/trigger/', { workflow: 'note', recipients })).status).toBe(202);

    // Every event's held attempt is in flight at the receiver: the worker dies with them.
    await waitFor(
      async () => answered.filter((a) => a.status === 'hang').length === RECIPIENTS,
      60_000,
      'every held attempt at the receiver',
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}: answered ${JSON.stringify(answered)}; output ${server!
          .output()
          .split('\n')
          .filter((l) => !l.includes('request completed') && !l.includes('incoming request'))
          .slice(-30)
          .join('\n')
          .slice(-3000)}`,
      );
    });
    killed = true;
    server.child.kill('SIGKILL');
    await server.exited;

    server = await startServer(env, 180_000);
    await waitFor(
      async () => new Set(answered.filter((a) => a.status === 200).map((a) => a.id)).size === RECIPIENTS,
      120_000,
      'every event answered 200 after the restart',
    );
    // Anything sent twice would surface now.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const ids = new Set(answered.map((a) => a.id));
    expect(ids.size).toBe(RECIPIENTS);
    for (const id of ids) {
      const attempts = answered.filter((a) => a.id === id).map((a) => a.status);
      // The plan's answers (the last, the attempt lost with the worker), then a success: the lost one taken over.
      expect(attempts.slice(0, plan.length)).toEqual(plan);
      expect(attempts.slice(plan.length)).toContain(200);
    }
    const bodies = new Map<string, Set<string>>();
    for (const recorded of receiver.requests) {
      const id = recorded.headers['webhook-id']!;
      const event = new Webhook(secret).verify(recorded.text, recorded.headers) as { type: string; data: object };
      expect(event.type).toBe('message.delivered');
      bodies.set(id, (bodies.get(id) ?? new Set()).add(recorded.text));
    }
    // Each event's attempts carried the same body.
    expect([...bodies.values()].map((set) => set.size)).toEqual(Array(RECIPIENTS).fill(1));
    const messageIds = [...bodies.values()].map(
      (set) => (JSON.parse([...set][0]!) as { data: { message_id: string } }).data.message_id,
    );
    expect(new Set(messageIds).size).toBe(RECIPIENTS);
  } finally {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    await database.drop();
  }
}
