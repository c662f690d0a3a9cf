/**
 * A broadcast by email end to end (issue 29, point 4): the broadcast request, the list's fan-out, the runs and the
 * deliveries through the real queue and one worker (concurrency 4), to a local SMTP server (`smtp-server`, in a child
 * process so its CPU is not counted). Rounds alternate one connection per mail and the pool per vendor
 * (`smtpPoolSettings.pooled`), each a fresh broadcast to the same list. Reports, per round, the wall time from the
 * request to the last mail at the server and this process's CPU per mail (API and worker, user + system).
 * PostgreSQL only (the database is one of yours: it adds a workspace and a pg-boss schema it drops after).
 *
 *   DATABASE_URL=postgres://… npx tsx bench/smtp-broadcast.ts [mails=1000] [rounds per side=2]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { ulid } from 'ulid';
import { buildApp } from '../src/app.js';
import { closeSmtpPools, smtpPoolSettings } from '../src/channels/providers/smtp.js';
import { providers } from '../src/channels/registry.js';
import { renderTemplate } from '../src/channels/rendering.js';
import { loadConfig } from '../src/config.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { Engine } from '../src/engine/engine.js';
import { Queue } from '../src/engine/queue.js';
import type { TestApp } from '../test/support/app.js';
import { configClient } from '../test/support/config.js';
import { liveTemplate } from '../test/support/templates.js';
import { baseCall, engineWorkspace, listOf } from '../test/support/engine-drivers.js';

const [mails = 1000, rounds = 2] = process.argv.slice(2).map(Number);

if (process.argv[2] === 'sink') {
  const { SMTPServer } = await import('smtp-server');
  let received = 0;
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received++;
        callback(null, 'queued');
      });
    },
  });
  server.on('error', () => {});
  process.on('message', () => process.send!({ received }));
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.server.address() as { port: number }).port }));
} else {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL (PostgreSQL) is required');
  const sink = fork(fileURLToPath(import.meta.url), ['sink'], { execArgv: process.execArgv });
  const ask = () =>
    new Promise<{ received?: number; port?: number }>((resolve) => {
      sink.once('message', (m) => resolve(m as { received?: number; port?: number }));
      sink.send('count');
    });
  const { port } = await new Promise<{ port: number }>((resolve) => sink.once('message', (m) => resolve(m as never)));

  const SECRET_KEY = 'test-secret-key-test-secret-key-0123456789';
  const config = loadConfig({ SECRET_KEY, DATABASE_URL: url, LOG_LEVEL: 'error', RATE_LIMIT_MAX: '0' });
  const handle = createDatabase({ url, poolSize: 10 });
  await migrateToLatest(handle.db);
  const secretBox = new SecretBox(SECRET_KEY);
  const schema = `pgboss_bench_${ulid().toLowerCase()}`;
  const queue = new Queue({ url, schema, pollingIntervalSeconds: 0.5 });
  await queue.start();
  const log = { error: (o: object, m: string) => console.error(m, o) };
  await new Engine({
    db: handle.db,
    queue,
    secretBox,
    render: (request, db, memo) => renderTemplate(db ?? handle.db, request, memo),
    providers,
    log,
    concurrency: 4,
  }).start();
  const app = await buildApp({ config, db: handle.db, databaseKind: 'postgres', secretBox, queue });
  await app.ready();
  const t = () => ({ app, db: handle.db, secretBox }) as unknown as TestApp;

  const ws = await engineWorkspace(t);
  await configClient(t, ws).addSmtpVendor(port, { username: 'bench', password: 'bench-password' });
  await liveTemplate(t, ws, 'news', ['email']);
  const members = Array.from({ length: mails }, (_, i) => `member-${i}`);
  for (const id of members) await baseCall(t, ws)('POST', `/v1/user/${id}/`, { $email: [`${id}@example.org`] });
  await listOf(t, ws, 'readers', members);

  const results: { pooled: boolean; wallMs: number; cpuMsPerMail: number }[] = [];
  for (let round = 0; round < rounds * 2; round++) {
    const pooled = round % 2 === 1;
    smtpPoolSettings.pooled = pooled;
    await closeSmtpPools();
    const before = (await ask()).received!;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const accepted = await baseCall(t, ws)('POST', `/${ws.workspaceKey}/broadcast/`, {
      list_id: 'readers',
      template: 'news',
      notification_category: 'order-updates',
      channels: ['email'],
      data: {},
    });
    if (accepted.statusCode !== 202) throw new Error(`broadcast: ${accepted.body}`);
    for (;;) {
      const { received } = await ask();
      if (received! - before >= mails) break;
      if (performance.now() - started > 170_000) throw new Error(`only ${received! - before} of ${mails} mails`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    results.push({
      pooled,
      wallMs: Math.round(wallMs),
      cpuMsPerMail: Number(((used.user + used.system) / 1000 / mails).toFixed(2)),
    });
    console.log(JSON.stringify(results.at(-1)));
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  console.log(JSON.stringify({ mails, results }));
  await closeSmtpPools();
  await app.close();
  await queue.stop(5000);
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
  await handle.db.destroy();
  sink.kill();
  process.exit(0);
}
