import http from 'node:http';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ORGANIZATION, randomInts, userId } from './data.js';
import { runLoad, send, type LoadFigures, type RequestSpec } from './load.js';
import { cycle, measure, missingSeed, notRun, probe, type ScenarioContext, type ScenarioResult } from './measure.js';
import { cpuBetween, cpuMs, type Server } from './processes.js';
import { base, management, seedObjects, seedSubscribers, type ApiContext } from './seed-api.js';
import { clearExpired, seedExpired } from './seed-sql.js';
import { eventsNote, eventsSettled, type EventReceiver } from './status-webhooks.js';
import { ConfigSchema } from '../src/config.js';
import { createDatabase, type Db } from '../src/db/database.js';
import { QUEUES, Queue } from '../src/engine/queue.js';
import { purgeExpired, RETENTION_BATCH_SIZE, type PurgeCounts } from '../src/engine/retention.js';

/**
 * The engine's scenarios (issue #19): Herald's API and worker(s) as separate processes on
 * PostgreSQL (one process on the embedded engine). Each figure is taken from outside, as a user
 * would see it: the 202, then the messages as they settle. CPU per delivery adds the API's, the
 * workers' and the database backends' CPU over the whole fan-out, divided by the messages written.
 */

/** What the engine scenarios need beyond the request scenarios' context. */
export interface EngineContext extends ScenarioContext {
  embedded: boolean;
  /** Worker processes (PostgreSQL): make `count` of them run; on the embedded engine a no-op. */
  workers(count: number): Promise<void>;
  /** Every process doing engine work now (the API's and the workers'). */
  enginePids(): number[];
  /** Peak RSS (sampled) of each worker since its last reset, MB. */
  workerPeaks(reset?: boolean): number[];
  /** A second API process (PostgreSQL only), for the 2 × API + 2 × worker step. */
  secondApi(): Promise<Server | undefined>;
  /** The stats connection (PostgreSQL only): its own CPU is not counted. */
  query?: <R>(text: string, values?: unknown[]) => Promise<{ rows: R[] }>;
  /** A LISTEN on herald_inbox (PostgreSQL only). */
  listen?: (onPayload: (payload: string) => void) => Promise<() => Promise<void>>;
  /** The database Herald runs on and the main workspace's id there (PostgreSQL only): scenario 15 seeds and purges it. */
  database?: { url: string; mainWorkspaceId: number };
  /**
   * With `--status-webhooks`: the receiver of the workspace's delivery-status webhook endpoint. A scenario then waits
   * for its messages' events before taking the CPU, so their outbox, relay and POSTs are in the figures.
   */
  events?: EventReceiver;
}

/** Figures of one engine run, as the report prints them. */
export interface EngineFigures {
  what: string;
  messages?: number;
  seconds?: number;
  perSecond?: number;
  cpuUsPerMessage?: { api: number; workers: number; database?: number };
  p50?: number;
  p99?: number;
  apiPeakRssMb?: number;
  workerPeakRssMb?: number;
  note?: string;
}

export const ENGINE_TEMPLATE = 'bench-note';
export const WORKFLOWS = { inbox: 'bench-inbox', email: 'bench-email' } as const;
const SINK_SECRET = 'bench-sink-secret-0123456789';

/** A local receiver for the webhook provider: counts every POST and when the last one came. */
export async function startSink() {
  let delayMs = 0;
  let count = 0;
  let last = 0;
  const ids = new Set<string>();
  let duplicates = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      count += 1;
      last = Date.now();
      try {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message_id?: string }).message_id ?? '';
        if (ids.has(id)) duplicates += 1;
        else ids.add(id);
      } catch {
        // counted anyway
      }
      const answer = () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    stats: () => ({ count, last, duplicates }),
    /** How long the sink takes to answer each POST, as a provider's API does (scenario 13). */
    setDelay: (ms: number) => {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ok = (status: number) => status >= 200 && status < 300;

/** The template, the two workflows and the email vendor (webhook to the sink), through Herald's API. */
export async function seedEngine(api: ApiContext, sinkUrl: string): Promise<string | undefined> {
  const v2 = (method: RequestSpec['method'], path: string, body?: unknown) =>
    send(api.url, {
      ...management(api, method, path, body),
      path: `${api.managementPrefix}/v2/${api.workspace}${path}`,
    });
  const steps: [string, () => Promise<{ status: number; body: unknown }>][] = [
    [
      'template',
      () => v2('POST', `/template/${ENGINE_TEMPLATE}/`, { name: 'Bench', enabled_channels: ['inbox', 'email'] }),
    ],
    [
      'inbox variant',
      () =>
        v2('POST', `/template/${ENGINE_TEMPLATE}/channel/inbox/variant/default/`, {
          locale: 'en',
          content: { header: 'Hello', text: 'Hi {{$recipient.distinct_id}}, order {{order}} is on its way' },
        }),
    ],
    [
      'email variant',
      () =>
        v2('POST', `/template/${ENGINE_TEMPLATE}/channel/email/variant/default/`, {
          locale: 'en',
          content: {
            subject: 'Order {{order}}',
            html: '<p>Hi {{$recipient.distinct_id}}, order {{order}} is on its way</p>',
            text: 'Hi {{$recipient.distinct_id}}, order {{order}} is on its way',
          },
        }),
    ],
    ['template commit', () => v2('PATCH', `/template/${ENGINE_TEMPLATE}/commit/`, {})],
    [
      'email vendor',
      () =>
        send(
          api.url,
          management(api, 'POST', '/vendor/', {
            channel: 'email',
            provider: 'webhook',
            nickname: 'sink',
            is_default: true,
            config: { url: sinkUrl, secret: SINK_SECRET },
          }),
        ),
    ],
  ];
  for (const [slug, nodeType] of [
    [WORKFLOWS.inbox, 'send_inbox'],
    [WORKFLOWS.email, 'send_email'],
  ] as const) {
    steps.push(
      [
        `workflow ${slug}`,
        () =>
          send(
            api.url,
            management(api, 'POST', `/workflow/${slug}/`, {
              name: slug,
              category: 'order-updates',
              trigger_type: 'api',
              tree: { nodes: [{ name: nodeType, node_type: nodeType, template: ENGINE_TEMPLATE }] },
            }),
          ),
      ],
      [`workflow ${slug} commit`, () => send(api.url, management(api, 'PATCH', `/workflow/${slug}/commit/`))],
    );
  }
  for (const [what, step] of steps) {
    const result = await step();
    if (!ok(result.status)) return `${what}: ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`;
  }
  return undefined;
}

const triggerSpec = (api: ApiContext, workflow: string, recipients: unknown[], data: object = { order: 'A-1' }) =>
  base(api, 'POST', '/trigger/', { workflow, recipients, data });

/** How far one trigger's messages are: written, still pending, and when the last one settled. */
async function progress(ctx: EngineContext, executionId: string) {
  if (ctx.query) {
    const { rows } = await ctx.query<{ total: number; pending: number; last: Date | null }>(
      `select count(*)::int as total,
              count(*) filter (where status in ('to_be_triggered', 'triggered'))::int as pending,
              max(greatest(delivered_at, sent_at, created_at)) as last
         from messages where execution_id = $1`,
      [executionId],
    );
    const row = rows[0]!;
    return { total: row.total, pending: row.pending, last: row.last ? row.last.getTime() : undefined };
  }
  const count = async (query: string) => {
    const result = await send(
      ctx.main.url,
      base(ctx.main, 'GET', `/v1/message/?execution_id=${executionId}&limit=1${query}`),
    );
    return (result.body as { meta?: { count?: number } }).meta?.count ?? 0;
  };
  return {
    total: await count(''),
    pending: await count('&status[]=to_be_triggered&status[]=triggered'),
    last: undefined,
  };
}

/**
 * Every accepted job done. PostgreSQL: pg-boss's table is empty of pending jobs, and the webhook outbox of pending events. Embedded (no second
 * connection into the process's database): a sentinel trigger, accepted after everything before it,
 * has its message, so the trigger backlog ahead of it has been taken.
 */
async function drain(ctx: EngineContext, boundSeconds: number): Promise<number | undefined> {
  const started = Date.now();
  if (!ctx.query) {
    const sentinel = await send(ctx.main.url, triggerSpec(ctx.main, WORKFLOWS.inbox, [userId(0)]));
    if (sentinel.status !== 202) return undefined;
    const executionId = (sentinel.body as { message_id: string }).message_id;
    while (Date.now() - started < boundSeconds * 1000) {
      const state = await progress(ctx, executionId).catch(() => undefined);
      if (state && state.total >= 1 && state.pending === 0) return (Date.now() - started) / 1000;
      await sleep(1000);
    }
    return undefined;
  }
  while (Date.now() - started < boundSeconds * 1000) {
    if ((await pendingWork(ctx)) === 0) return (Date.now() - started) / 1000;
    await sleep(500);
  }
  return undefined;
}

/**
 * PostgreSQL: the jobs not done and the delivery-status events not yet posted (with --status-webhooks: their outbox
 * rows wait for the relay). A few ms, where counting a fan-out's 100,000 messages takes ~0.1 s of PostgreSQL's CPU.
 */
async function pendingWork(ctx: EngineContext) {
  const { rows } = await ctx.query!<{ n: number }>(
    `select ((select count(*) from pgboss.job where state in ('created', 'retry', 'active') and name like 'herald-%')
          + (select count(*) from webhook_deliveries where status = 'pending'))::int as n`,
  );
  return rows[0]!.n;
}

/**
 * A warm-up of the engine's tables, then the ANALYZE autovacuum would make of them: PostgreSQL keeps a
 * foreign-key check's plan for the life of a connection until the table's statistics change, so a
 * check first planned while executions was nearly empty seq-scans it on every run inserted, ever
 * slower as it grows (1 ms a run at 20,000 executions). With autovacuum on, as a server ships, the
 * table's first ANALYZE replaces that plan; this machine runs PostgreSQL with autovacuum off.
 */
async function warmEngineTables(ctx: EngineContext, requests: RequestSpec[]) {
  await runLoad({ url: ctx.herald.url, connections: 10, duration: 1, next: cycle(requests) });
  await drain(ctx, 30);
  await ctx.query?.('analyze executions, workflow_runs, messages');
}

interface CpuSnapshot {
  pids: Map<number, number>;
  database?: Map<number, number>;
}
async function snapshot(ctx: EngineContext): Promise<CpuSnapshot> {
  return {
    pids: new Map(ctx.enginePids().map((pid) => [pid, cpuMs(pid)])),
    ...(ctx.databaseCpu ? { database: await ctx.databaseCpu() } : {}),
  };
}
async function cpuSince(
  ctx: EngineContext,
  before: CpuSnapshot,
  apiPids: number[],
  messages: number,
  otherBackends: number[] = [],
) {
  const per = (ms: number) => (ms * 1000) / Math.max(1, messages);
  let api = 0;
  let workers = 0;
  for (const [pid, ms] of before.pids) {
    const used = cpuMs(pid) - ms;
    if (apiPids.includes(pid)) api += used;
    else workers += used;
  }
  const after = before.database && ctx.databaseCpu ? await ctx.databaseCpu() : undefined;
  for (const pid of otherBackends) after?.delete(pid);
  const database = before.database && after ? cpuBetween(before.database, after) : undefined;
  return { api: per(api), workers: per(workers), ...(database === undefined ? {} : { database: per(database) }) };
}

/** Work run beside a fan-out from just before its trigger until its last message settled (scenario 15's purge). */
interface Beside {
  /** Its own PostgreSQL backends, left out of the fan-out's database CPU. */
  backends: number[];
  stop(): Promise<void>;
}

/**
 * One trigger on the large object, timed from the 202 to the last message settled. The fan-out
 * writes one message per subscriber and one for the object itself (which has no inbox or email).
 */
async function fanOut(
  ctx: EngineContext,
  workflow: string,
  expected: number,
  timeoutSeconds: number,
  sink?: Awaited<ReturnType<typeof startSink>>,
  object: { type: string; id: string } = ORGANIZATION,
  beside?: () => Promise<Beside>,
): Promise<EngineFigures & { error?: string }> {
  const apiPids = [ctx.herald.pid];
  ctx.sampler.reset();
  ctx.workerPeaks(true);
  const before = await snapshot(ctx);
  const alongside = await beside?.();
  const sinkBefore = sink?.stats().count ?? 0;
  const eventsBefore = ctx.events?.counts();
  const sent = Date.now();
  const accepted = await send(
    ctx.main.url,
    triggerSpec(ctx.main, workflow, [{ object_type: object.type, id: object.id }]),
  );
  const acceptedAt = Date.now();
  if (accepted.status !== 202)
    return { what: workflow, error: `trigger answered ${accepted.status}: ${JSON.stringify(accepted.body)}` };
  const executionId = (accepted.body as { message_id: string }).message_id;
  let state = await progress(ctx, executionId);
  let doneAt = 0;
  while (Date.now() - acceptedAt < timeoutSeconds * 1000) {
    // The messages are counted once the queue is done: counting them every 250 ms took a third of a core from the
    // run it measured (the figures' time comes from the messages' and the sink's own timestamps, not from here).
    if (ctx.query && (await pendingWork(ctx)) > 0) {
      await sleep(250);
      continue;
    }
    state = await progress(ctx, executionId);
    if (state.total >= expected && state.pending === 0) {
      doneAt = Date.now();
      break;
    }
    await sleep(ctx.query ? 250 : 1000);
  }
  const eventsWaited =
    ctx.events && eventsBefore ? await eventsSettled(ctx.events, eventsBefore, state.total, timeoutSeconds) : undefined;
  await alongside?.stop();
  const cpu = await cpuSince(ctx, before, apiPids, state.total, alongside?.backends);
  const last = sink ? sink.stats().last : (state.last ?? doneAt);
  const seconds = doneAt ? (last - acceptedAt) / 1000 : (Date.now() - acceptedAt) / 1000;
  const delivered = sink ? sink.stats().count - sinkBefore : state.total;
  return {
    what: workflow,
    messages: state.total,
    seconds,
    perSecond: delivered / Math.max(0.001, seconds),
    cpuUsPerMessage: cpu,
    apiPeakRssMb: ctx.sampler.peak(),
    workerPeakRssMb: Math.max(0, ...ctx.workerPeaks()),
    note: [
      `202 in ${acceptedAt - sent} ms`,
      doneAt
        ? ''
        : `**not finished in ${timeoutSeconds} s: ${state.total} of ${expected} written, ${state.pending} pending**`,
      sink ? `${delivered} POSTs at the sink, ${sink.stats().duplicates} duplicates` : '',
      ctx.events && eventsBefore
        ? `${eventsNote(ctx.events, eventsBefore, state.total)}; ${eventsWaited === undefined ? `**events not all in ${timeoutSeconds} s after the messages**` : `the last event ${((Date.now() - acceptedAt) / 1000).toFixed(1)} s after the 202`}`
        : '',
    ]
      .filter(Boolean)
      .join('; '),
  };
}

const SCENARIO_TITLES = {
  '8': 'POST /trigger/, one recipient (send_inbox), API + worker',
  '9': 'fan-out: trigger on an object, send_inbox, one worker',
  '10': 'fan-out through the webhook provider to a local sink (send_email), one worker',
  '11': 'trigger → inbox message delivered, idle system, one at a time',
  '12': 'two API + two worker processes: trigger accept across both APIs, fan-out on both workers',
  '13': 'a second worker when deliveries wait on the provider: webhook fan-out to a sink answering in 100 ms',
  '14': 'sustained end to end: single-recipient triggers (send_inbox) offered at a fixed rate, API + one worker',
  '15': "scenario 9's fan-out without and with a retention purge of old rows beside it, alternating",
} as const;

const engineResult = (
  id: keyof typeof SCENARIO_TITLES,
  connections: number,
  engine: EngineFigures[],
  series: ScenarioResult['series'] = [],
  notes: string[] = [],
): ScenarioResult => ({
  id,
  title: SCENARIO_TITLES[id],
  connections,
  status: 'measured',
  series,
  engine,
  notes,
});

/** Scenario 8: trigger accept at 50 connections, against the GET-user baseline in the same run. */
export async function triggerAccept(ctx: EngineContext): Promise<ScenarioResult> {
  const scenario = { id: '8', title: SCENARIO_TITLES['8'], connections: 50 };
  const users = randomInts(5000, ctx.sizes.users, 8).map(userId);
  const requests = users.map((id) => triggerSpec(ctx.main, WORKFLOWS.inbox, [id]));
  const check = await probe(ctx.herald, requests[0]!, 'POST /trigger/');
  if (!check.ok) return notRun(scenario, check);
  await ctx.workers(1);
  await warmEngineTables(ctx, requests);
  const paths = users.map((id) => ({ method: 'GET', path: `/v1/user/${id}/` }) as RequestSpec);
  const baseline = await measure(ctx, ctx.baseline, 50, () => cycle(paths));
  const before = await snapshot(ctx);
  const eventsBefore = ctx.events?.counts();
  const figures = await measure(ctx, ctx.herald, 50, () => cycle(requests));
  const drained = await drain(ctx, ctx.sizes.duration * 20);
  const accepted = figures.requests - figures.non2xx;
  const eventsWaited =
    ctx.events && eventsBefore ? await eventsSettled(ctx.events, eventsBefore, accepted, 120) : undefined;
  const cpu = await cpuSince(ctx, before, [ctx.herald.pid], accepted);
  return engineResult(
    '8',
    50,
    [
      {
        what: 'accept + process single-recipient triggers',
        messages: accepted,
        perSecond: figures.requestsPerSec,
        cpuUsPerMessage: cpu,
        p50: figures.latency.p50,
        p99: figures.latency.p99,
        apiPeakRssMb: figures.peakRssMb,
        workerPeakRssMb: Math.max(0, ...ctx.workerPeaks()),
        note: [
          drained === undefined
            ? 'backlog not drained within the bound'
            : `backlog drained ${drained.toFixed(1)} s after the load stopped; CPU per trigger includes the worker's run and delivery`,
          ctx.events && eventsBefore
            ? `${eventsNote(ctx.events, eventsBefore, accepted)}; ${eventsWaited === undefined ? '**events not all in 120 s**' : `events all in ${eventsWaited.toFixed(1)} s after the drain`}`
            : '',
        ]
          .filter(Boolean)
          .join('; '),
      },
    ],
    [
      { label: 'Herald', server: 'Herald', figures },
      { label: 'baseline (GET user)', server: 'baseline', figures: baseline },
    ],
    [`ratio to the GET-user baseline: ${(figures.requestsPerSec / Math.max(1, baseline.requestsPerSec)).toFixed(2)}`],
  );
}

const fanoutSize = (ctx: EngineContext) => {
  const seed = ctx.seeds.find((s) => s.what.startsWith(`subscribers of ${ORGANIZATION.type}`));
  return seed?.reached ?? 0;
};
const fanoutTimeout = (subscribers: number) => Math.max(60, subscribers / 200);

/** Scenarios 9 and 10: the large object's subscribers, to the inbox and through the webhook provider. */
export async function fanOuts(
  ctx: EngineContext,
  run: { inbox: boolean; webhook: boolean },
  sink: Awaited<ReturnType<typeof startSink>>,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const seeded = missingSeed(ctx, /^subscribers of /);
  const subscribers = fanoutSize(ctx);
  for (const [id, workflow, wanted] of [
    ['9', WORKFLOWS.inbox, run.inbox],
    ['10', WORKFLOWS.email, run.webhook],
  ] as const) {
    if (!wanted) continue;
    if (!seeded.ok) {
      results.push(notRun({ id, title: SCENARIO_TITLES[id], connections: 1 }, seeded));
      continue;
    }
    await ctx.workers(1);
    await drain(ctx, 60);
    const figures = await fanOut(
      ctx,
      workflow,
      subscribers + 1,
      fanoutTimeout(subscribers),
      id === '10' ? sink : undefined,
    );
    results.push(
      figures.error
        ? { id, title: SCENARIO_TITLES[id], connections: 1, status: 'failed', reason: figures.error, series: [] }
        : engineResult(id, 1, [{ ...figures, what: `${subscribers.toLocaleString('en-US')} subscribers` }]),
    );
  }
  return results;
}

/** Scenario 11: one trigger at a time on an idle system, from the request to the inbox message stored. */
export async function idleLatency(ctx: EngineContext): Promise<ScenarioResult> {
  const count = ctx.sizes.users >= 100_000 ? 200 : 40;
  await ctx.workers(1);
  await drain(ctx, 60);
  const samples: number[] = [];
  const waiting = new Map<string, (at: number) => void>();
  const stop = await ctx.listen?.((payload) => {
    const event = JSON.parse(payload) as { u?: string; e?: string };
    if (event.e === 'new_notification' && event.u) waiting.get(event.u)?.(Date.now());
  });
  try {
    const users = randomInts(count, ctx.sizes.users, 11).map(userId);
    for (const id of users) {
      const heard = new Promise<number>((resolve) => waiting.set(id, resolve));
      const start = Date.now();
      const accepted = await send(ctx.main.url, triggerSpec(ctx.main, WORKFLOWS.inbox, [id]));
      if (accepted.status !== 202) throw new Error(`trigger answered ${accepted.status}`);
      let at: number;
      if (stop) at = await Promise.race([heard, sleep(10_000).then(() => NaN)]);
      else {
        const executionId = (accepted.body as { message_id: string }).message_id;
        for (;;) {
          const state = await progress(ctx, executionId);
          if (state.total >= 1 && state.pending === 0) break;
          await sleep(5);
        }
        at = Date.now();
      }
      waiting.delete(id);
      samples.push(at - start);
      await sleep(50);
    }
  } finally {
    await stop?.();
  }
  const sorted = samples.filter(Number.isFinite).sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return engineResult('11', 1, [
    {
      what: `${count} triggers, one at a time`,
      messages: sorted.length,
      p50: pick(0.5),
      p99: pick(0.99),
      note: `${samples.length - sorted.length} not heard within 10 s; ${stop ? 'heard by LISTEN on the inbox channel' : 'polled through the API every 5 ms'}`,
    },
  ]);
}

/** Scenario 12: two API processes and two workers on one database. */
export async function twoByTwo(ctx: EngineContext, single: EngineFigures | undefined): Promise<ScenarioResult> {
  const scenario = { id: '12', title: SCENARIO_TITLES['12'], connections: 50 };
  if (ctx.embedded)
    return notRun(scenario, { ok: false, status: 'unavailable', reason: 'the embedded database serves one process' });
  const seeded = missingSeed(ctx, /^subscribers of /);
  if (!seeded.ok) return notRun(scenario, seeded);
  const second = await ctx.secondApi();
  if (!second) return notRun(scenario, { ok: false, status: 'failed', reason: 'the second API did not start' });
  await ctx.workers(2);
  await drain(ctx, 60);
  const subscribers = fanoutSize(ctx);
  const fan = await fanOut(ctx, WORKFLOWS.inbox, subscribers + 1, fanoutTimeout(subscribers));
  // Trigger accept spread over both APIs, 25 connections each.
  const users = randomInts(5000, ctx.sizes.users, 12).map(userId);
  const requests = users.map((id) => triggerSpec(ctx.main, WORKFLOWS.inbox, [id]));
  const both = await Promise.all(
    [ctx.herald, second].map((server) =>
      runLoad({ url: server.url, connections: 25, duration: ctx.sizes.duration, next: cycle(requests) }),
    ),
  );
  await drain(ctx, ctx.sizes.duration * 20);
  const duplicates = ctx.query
    ? (
        await ctx.query<{ n: number }>(
          `select count(*)::int as n from (select run_id, node_ref, channel from messages group by 1, 2, 3 having count(*) > 1) d`,
        )
      ).rows[0]!.n
    : NaN;
  const combined: LoadFigures = {
    ...both[0]!,
    requestsPerSec: both[0]!.requestsPerSec + both[1]!.requestsPerSec,
    requests: both[0]!.requests + both[1]!.requests,
    non2xx: both[0]!.non2xx + both[1]!.non2xx,
    latency: { ...both[0]!.latency, p99: Math.max(both[0]!.latency.p99, both[1]!.latency.p99) },
  };
  const ratio = single?.perSecond && fan.perSecond ? fan.perSecond / single.perSecond : undefined;
  return engineResult(
    '12',
    50,
    [
      { ...fan, what: `fan-out, ${subscribers.toLocaleString('en-US')} subscribers, two workers` },
      {
        what: 'trigger accept over two APIs (25 connections each)',
        messages: combined.requests - combined.non2xx,
        perSecond: combined.requestsPerSec,
        p50: both[0]!.latency.p50,
        p99: combined.latency.p99,
      },
    ],
    [{ label: 'two APIs', server: 'Herald', figures: combined }],
    [
      ratio === undefined
        ? 'no one-worker figure to compare with'
        : `deliveries/s, two workers ÷ one: ${ratio.toFixed(2)}`,
      `(run, step, channel) written twice over the whole run: ${duplicates}`,
    ],
  );
}

/** Scenario 13's object and how long its provider takes to answer. */
const PROVIDER_BOUND = { object: { type: ORGANIZATION.type, id: 'acme-provider-bound' }, delayMs: 100 };

/**
 * Scenario 13: the webhook fan-out of 10 to a sink that answers in 100 ms, as a provider's API does
 * (an email or SMS API answers in 100–300 ms), with one worker and then with two. A worker holds a
 * bounded number of provider calls in flight (WORKER_CONCURRENCY jobs of up to 10 calls per channel),
 * so with a provider's latency its deliveries/s are bounded by those calls, not by the cores, and a
 * second worker process adds its own. Scenario 12's inbox fan-out, bounded by the two cores, cannot
 * show that on this machine.
 */
export async function providerBoundWorkers(
  ctx: EngineContext,
  sink: Awaited<ReturnType<typeof startSink>>,
): Promise<ScenarioResult> {
  const scenario = { id: '13', title: SCENARIO_TITLES['13'], connections: 1 };
  if (ctx.embedded)
    return notRun(scenario, { ok: false, status: 'unavailable', reason: 'the embedded database serves one process' });
  const count = Math.min(ctx.sizes.users, ctx.sizes.users >= 100_000 ? 10_000 : 2_000);
  const { object } = PROVIDER_BOUND;
  const made = await seedObjects(ctx.main, object.type, [object.id], `object ${object.type}/${object.id}`);
  if (made.reached !== 1) return notRun(scenario, { ok: false, status: 'failed', reason: made.note ?? 'no object' });
  const seeded = await seedSubscribers(ctx.main, object, count, userId, 120, `subscribers of ${object.id}`);
  if (seeded.reached !== count)
    return notRun(scenario, { ok: false, status: 'failed', reason: seeded.note ?? 'subscribers not seeded' });
  sink.setDelay(PROVIDER_BOUND.delayMs);
  const rows: EngineFigures[] = [];
  try {
    for (const workers of [1, 2]) {
      await ctx.workers(workers);
      await drain(ctx, 60);
      const figures = await fanOut(ctx, WORKFLOWS.email, count + 1, Math.max(120, count / 20), sink, object);
      if (figures.error)
        return { ...scenario, status: 'failed', reason: figures.error, series: [] } satisfies ScenarioResult;
      rows.push({
        ...figures,
        what: `${count.toLocaleString('en-US')} subscribers, ${workers === 1 ? 'one worker' : 'two workers'}`,
      });
    }
  } finally {
    sink.setDelay(0);
  }
  const [one, two] = rows;
  const ratio = one?.perSecond && two?.perSecond ? two.perSecond / one.perSecond : undefined;
  return engineResult(
    '13',
    1,
    rows,
    [],
    [
      ratio === undefined ? 'no ratio' : `deliveries/s, two workers ÷ one: ${ratio.toFixed(2)}`,
      `the sink answers every POST after ${PROVIDER_BOUND.delayMs} ms`,
    ],
  );
}

/** Triggers accepted and inbox messages written since `since` (the database's clock), of the inbox workflow. */
async function endToEnd(ctx: EngineContext, since: Date) {
  const { rows } = await ctx.query!<{ accepted: number; delivered: number }>(
    `select (select count(*)::int from executions where workflow_slug = $1 and created_at >= $2) as accepted,
            (select count(*)::int from messages where workflow_slug = $1 and created_at >= $2
               and status = 'delivered') as delivered`,
    [WORKFLOWS.inbox, since],
  );
  return rows[0]!;
}

/**
 * Offers `rate` triggers a second for `seconds`, open loop: every 10 ms the requests due by then go out, whatever
 * the answers so far (at most `inFlight` unanswered: beyond that a request is counted as not offered, and the rate
 * cannot be offered on this machine). Answers with the 202s and their latencies.
 */
async function offer(ctx: EngineContext, next: () => RequestSpec, rate: number, seconds: number) {
  const agent = new Agent({ connections: 128 });
  const inFlight = 1000;
  const latencies: number[] = [];
  let pending = 0;
  let accepted = 0;
  let refused = 0;
  let skipped = 0;
  let sent = 0;
  const started = Date.now();
  const calls: Promise<void>[] = [];
  const one = async (spec: RequestSpec) => {
    const at = performance.now();
    pending += 1;
    try {
      const answer = await request(`${ctx.main.url}${spec.path}`, {
        method: spec.method,
        headers: spec.headers,
        body: spec.body,
        dispatcher: agent,
      });
      await answer.body.dump();
      if (answer.statusCode === 202) {
        accepted += 1;
        latencies.push(performance.now() - at);
      } else refused += 1;
    } catch {
      refused += 1;
    } finally {
      pending -= 1;
    }
  };
  while (Date.now() - started < seconds * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    for (; sent < due; sent += 1) {
      if (pending >= inFlight) skipped += 1;
      else calls.push(one(next()));
    }
    await sleep(10);
  }
  await Promise.all(calls);
  await agent.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { accepted, refused, skipped, p50: at(0.5), p99: at(0.99) };
}

/**
 * Scenario 14 (issue #30, point 2): single-recipient triggers offered at a fixed rate for a while, API and one
 * worker, stepping the rate up. Per rate: accepted/s, delivered/s over the same window, the backlog (accepted, not
 * yet delivered) at the end of the window, and the CPU per trigger of the API, the worker and PostgreSQL from the
 * first request to the backlog drained. A rate holds when the backlog at the end is under two seconds of it; the
 * stepping stops at the first rate that does not hold.
 */
export async function sustained(ctx: EngineContext): Promise<ScenarioResult> {
  const scenario = { id: '14', title: SCENARIO_TITLES['14'], connections: 0 };
  if (!ctx.query)
    return notRun(scenario, { ok: false, status: 'unavailable', reason: 'counted through a connection of its own' });
  const quick = ctx.sizes.users < 100_000;
  const seconds = quick ? 10 : 60;
  const rates = ctx.sizes.rates ?? (quick ? [250, 500, 1000, 2000, 4000] : [500, 1000, 2000, 3000, 4000, 5000, 6000]);
  const users = randomInts(5000, ctx.sizes.users, 14).map(userId);
  const requests = users.map((id) => triggerSpec(ctx.main, WORKFLOWS.inbox, [id]));
  const check = await probe(ctx.herald, requests[0]!, 'POST /trigger/');
  if (!check.ok) return notRun(scenario, check);
  await ctx.workers(1);
  await warmEngineTables(ctx, requests);
  const rows: EngineFigures[] = [];
  const notes: string[] = [];
  let best: number | undefined;
  for (const rate of rates) {
    await drain(ctx, 60);
    ctx.sampler.reset();
    ctx.workerPeaks(true);
    const since = (await ctx.query<{ now: Date }>('select now() as now')).rows[0]!.now;
    const before = await snapshot(ctx);
    const eventsBefore = ctx.events?.counts();
    const offered = await offer(ctx, cycle(requests), rate, seconds);
    const atEnd = await endToEnd(ctx, since);
    const drained = await drain(ctx, 120);
    const eventsWaited =
      ctx.events && eventsBefore ? await eventsSettled(ctx.events, eventsBefore, offered.accepted, 120) : undefined;
    const cpu = await cpuSince(ctx, before, [ctx.herald.pid], offered.accepted);
    const backlog = atEnd.accepted - atEnd.delivered;
    const holds = offered.skipped === 0 && offered.refused === 0 && backlog <= 2 * rate;
    if (holds) best = rate;
    const total = cpu.workers + cpu.api + (cpu.database ?? 0);
    rows.push({
      what: `offered ${rate.toLocaleString('en-US')}/s for ${seconds} s`,
      messages: offered.accepted,
      seconds,
      perSecond: offered.accepted / seconds,
      cpuUsPerMessage: cpu,
      p50: offered.p50,
      p99: offered.p99,
      apiPeakRssMb: ctx.sampler.peak(),
      workerPeakRssMb: Math.max(0, ...ctx.workerPeaks()),
      note: [
        `delivered ${Math.round(atEnd.delivered / seconds).toLocaleString('en-US')}/s in the window`,
        `backlog at the end ${backlog.toLocaleString('en-US')}`,
        drained === undefined ? 'not drained in 120 s' : `drained ${drained.toFixed(1)} s later`,
        `CPU per trigger in all ${Math.round(total).toLocaleString('en-US')} µs`,
        offered.refused + offered.skipped ? `${offered.refused} refused, ${offered.skipped} not offered` : '',
        ctx.events && eventsBefore
          ? `${eventsNote(ctx.events, eventsBefore, offered.accepted)}${eventsWaited === undefined ? ', **not all in 120 s after the drain**' : ''}`
          : '',
        holds ? 'holds' : '**backlog grows**',
      ]
        .filter(Boolean)
        .join('; '),
    });
    if (!holds) break;
  }
  notes.push(
    best === undefined
      ? 'no offered rate held (the backlog grew at the lowest)'
      : `highest offered rate with a flat backlog: ${best.toLocaleString('en-US')} triggers/s`,
  );
  return engineResult('14', 0, rows, [], notes);
}

/** What the purge beside a fan-out did: rows deleted per table, in how long, and its backend's CPU. */
interface PurgeFigures {
  counts: PurgeCounts;
  rows: number;
  seconds: number;
  databaseCpuMs: number;
}

/**
 * The real hourly pass (engine/retention.ts, `purgeExpired` with the real clock and the configured days) on a
 * connection of its own, started before the trigger and aborted once the fan-out settled: the fan-out's own rows
 * are newer than the cutoff and never purged.
 */
async function purgeBeside(db: Db, queue: Queue, days: number, report: (figures: PurgeFigures) => void) {
  const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
  const cpuBefore = cpuMs(pid);
  const controller = new AbortController();
  const started = performance.now();
  let ended = 0;
  const pass = purgeExpired({ db, queue, now: Date.now, days, signal: controller.signal }).finally(() => {
    ended = performance.now();
  });
  return {
    backends: [pid],
    stop: async () => {
      controller.abort();
      const counts = await pass;
      const rows = Object.values(counts).reduce((sum, n) => sum + n, 0);
      report({ counts, rows, seconds: (ended - started) / 1000, databaseCpuMs: cpuMs(pid) - cpuBefore });
    },
  };
}

/** RETENTION_DAYS as the bench's workers read it (they get the harness's environment). */
const retentionDays = () => Number(process.env.RETENTION_DAYS ?? ConfigSchema.properties.RETENTION_DAYS.default);

/**
 * Scenario 15 (issue #29, point 5): scenario 9's fan-out, one worker, `pairs` times without and with a retention
 * purge beside it, alternating (without first in odd pairs, with first in even ones). Before every run the tables
 * are brought to the same state: what an earlier run left of the old rows deleted and vacuumed away, then
 * `sizes.expiredRows` rows older than RETENTION_DAYS seeded by SQL (bench/seed-sql.ts, `seedExpired`) and analyzed.
 * The workers' own hourly pass is unscheduled for the scenario, so no run has a purge it did not ask for.
 */
export async function fanOutBesidePurge(ctx: EngineContext, pairs: number): Promise<ScenarioResult> {
  const scenario = { id: '15', title: SCENARIO_TITLES['15'], connections: 1 };
  const days = retentionDays();
  if (!ctx.database || !ctx.query)
    return notRun(scenario, {
      ok: false,
      status: 'unavailable',
      reason: 'the harness seeds and purges beside Herald through connections of its own (PostgreSQL only)',
    });
  if (days <= 0) return notRun(scenario, { ok: false, status: 'unavailable', reason: 'RETENTION_DAYS=0: no purge' });
  const seeded = missingSeed(ctx, /^subscribers of /);
  if (!seeded.ok) return notRun(scenario, seeded);
  const { url, mainWorkspaceId } = ctx.database;
  const subscribers = fanoutSize(ctx);
  const expired = ctx.sizes.expiredRows;
  const seeding = createDatabase({ url, poolSize: 2 });
  const purgeUrl = new URL(url);
  purgeUrl.searchParams.set('application_name', 'herald-bench-purge');
  // One connection: the pass's statements all run on the backend whose CPU is counted apart.
  const purging = createDatabase({ url: purgeUrl.toString(), poolSize: 1 });
  // Never started: the pass only asks it for its job table's statement, run on `purging`.
  const queue = new Queue({ url });
  const runs: { purge: boolean; figures: EngineFigures; purged?: PurgeFigures }[] = [];
  try {
    await ctx.workers(1);
    await ctx.query('delete from pgboss.schedule where name = $1', [QUEUES.retention]);
    for (let pair = 0; pair < pairs; pair += 1) {
      for (const purge of pair % 2 === 0 ? [false, true] : [true, false]) {
        const drained = await drain(ctx, 60);
        const cutoff = new Date(Date.now() - days * 86_400_000);
        const t0 = Date.now();
        await clearExpired(seeding.db, cutoff);
        const t1 = Date.now();
        await seedExpired(seeding.db, mainWorkspaceId, expired, new Date(cutoff.getTime() - 86_400_000));
        await ctx.query('analyze messages, workflow_runs, executions, events');
        ctx.log(
          `  pair ${pair + 1}, ${purge ? 'with' : 'without'} the purge: ${drained === undefined ? 'queue not drained in 60 s; ' : ''}old rows cleared in ${((t1 - t0) / 1000).toFixed(0)} s, ${expired.toLocaleString('en-US')} seeded in ${((Date.now() - t1) / 1000).toFixed(0)} s`,
        );
        let purged: PurgeFigures | undefined;
        const figures = await fanOut(
          ctx,
          WORKFLOWS.inbox,
          subscribers + 1,
          fanoutTimeout(subscribers),
          undefined,
          ORGANIZATION,
          purge
            ? () =>
                purgeBeside(purging.db, queue, days, (figures) => {
                  purged = figures;
                })
            : undefined,
        );
        if (figures.error) return { ...scenario, status: 'failed', reason: figures.error, series: [] };
        runs.push({ purge, figures, purged });
      }
    }
  } finally {
    await seeding.db.destroy();
    await purging.db.destroy();
  }
  const rows = runs.map(({ purge, figures, purged }, index): EngineFigures => {
    const perRow =
      purged && purged.rows > 0 ? ` (${Math.round((purged.databaseCpuMs * 1000) / purged.rows)} µs a row)` : '';
    return {
      ...figures,
      what: `${subscribers.toLocaleString('en-US')} subscribers, ${purge ? 'purge beside' : 'no purge'} (pair ${Math.floor(index / 2) + 1})`,
      note: [
        figures.note,
        purged
          ? `purge: ${purged.rows.toLocaleString('en-US')} rows in ${purged.seconds.toFixed(1)} s, ${Math.round(purged.rows / Math.max(0.001, purged.seconds)).toLocaleString('en-US')} rows/s (${Object.entries(
              purged.counts,
            )
              .filter(([, n]) => n > 0)
              .map(([table, n]) => `${table} ${n.toLocaleString('en-US')}`)
              .join(', ')}); its backend ${(purged.databaseCpuMs / 1000).toFixed(1)} CPU s${perRow}, not in DB µs/msg`
          : '',
      ]
        .filter(Boolean)
        .join('; '),
    };
  });
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const side = (purge: boolean, pick: (f: EngineFigures) => number | undefined) =>
    median(runs.filter((run) => run.purge === purge).map((run) => pick(run.figures) ?? NaN));
  const ratio = (pick: (f: EngineFigures) => number | undefined) => (side(true, pick) / side(false, pick)).toFixed(2);
  const purgedRuns = runs.flatMap((run) => (run.purged ? [run.purged] : []));
  return engineResult(
    '15',
    1,
    rows,
    [],
    [
      `with ÷ without (medians of ${pairs} pair${pairs === 1 ? '' : 's'}): duration ${ratio((f) => f.seconds)}, deliveries/s ${ratio((f) => f.perSecond)}, worker CPU µs/msg ${ratio((f) => f.cpuUsPerMessage?.workers)}, PostgreSQL CPU µs/msg (the fan-out's backends) ${ratio((f) => f.cpuUsPerMessage?.database)}`,
      `purge beside the fan-out: ${purgedRuns.map((p) => Math.round(p.rows / Math.max(0.001, p.seconds)).toLocaleString('en-US')).join(', ')} rows/s; ${expired.toLocaleString('en-US')} old rows seeded before every run, RETENTION_DAYS=${days}, batches of ${RETENTION_BATCH_SIZE.toLocaleString('en-US')}`,
    ],
  );
}

export type { LoadFigures };
