/**
 * SMTP connections per vendor (issue 29, point 4): 1,000 mails of one broadcast's delivery step through the smtp
 * provider, side by side as a worker sends a fetched batch (8 at a time), to a local SMTP server (`smtp-server`, in a
 * child process so its CPU is not counted), one connection per mail and the pool per vendor alternately. Reports wall
 * time and the sending process's CPU per mail (user + system, process.cpuUsage), the median of `runs` rounds per side
 * after one warm-up round each.
 *
 *   npx tsx bench/smtp-pool.ts [mails=1000] [runs=3] [concurrency=8]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { closeProviders } from '../src/channels/registry.js';
import { closeSmtpPools, smtpPoolSettings, smtpProvider } from '../src/channels/providers/smtp.js';

const [mails = 1000, runs = 3, concurrency = 8] = process.argv.slice(2).map(Number);

if (process.argv[2] === 'sink') {
  const { SMTPServer } = await import('smtp-server');
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN'],
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => callback(null, 'queued'));
    },
  });
  server.on('error', () => {});
  server.listen(0, '127.0.0.1', () => process.send!((server.server.address() as { port: number }).port));
} else {
  const sink = fork(fileURLToPath(import.meta.url), ['sink'], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => sink.once('message', (m) => resolve(m as number)));
  const vendor = {
    id: 'vnd_bench',
    provider: 'smtp',
    nickname: null,
    config: { host: '127.0.0.1', port, username: 'bench', password: 'bench-password', from_email: 'from@example.com' },
  };
  const send = (i: number) =>
    smtpProvider.send(
      vendor,
      {
        messageId: `msg_${i}`,
        executionId: 'exe_bench',
        channel: 'email',
        recipient: { distinct_id: `user-${i}` },
        channelIdentity: `user-${i}@example.com`,
        tenantId: 'default',
        workflow: { slug: 'broadcast', version_id: '1', node_ref: 'email' },
        content: { subject: 'News', html: `<p>Hello user ${i}</p>`, text: `Hello user ${i}` },
      },
      new AbortController().signal,
    );
  async function round() {
    const cpu = process.cpuUsage();
    const started = performance.now();
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < mails) if ((await send(next++)).kind !== 'sent') failed++;
      }),
    );
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { wallMs: wall, cpuMsPerMail: (used.user + used.system) / 1000 / mails, failed };
  }
  // One warm-up round per side, then `runs` rounds per side, alternately: one connection per mail, then the pool.
  const results: Record<'perMail' | 'pooled', Awaited<ReturnType<typeof round>>[]> = { perMail: [], pooled: [] };
  for (let i = -1; i < runs; i++)
    for (const side of ['perMail', 'pooled'] as const) {
      smtpPoolSettings.pooled = side === 'pooled';
      await closeSmtpPools();
      const result = await round();
      if (i >= 0) results[side].push(result);
    }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const summary = (side: 'perMail' | 'pooled') => ({
    runs: results[side],
    median: {
      wallMs: Math.round(median(results[side].map((r) => r.wallMs))),
      cpuMsPerMail: Number(median(results[side].map((r) => r.cpuMsPerMail)).toFixed(3)),
    },
  });
  console.log(JSON.stringify({ mails, concurrency, perMail: summary('perMail'), pooled: summary('pooled') }));
  await closeProviders();
  sink.kill();
}
