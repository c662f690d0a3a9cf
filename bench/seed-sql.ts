import { sql, type RawBuilder } from 'kysely';
import { encodeTime } from 'ulid';
import type { Db } from '../src/db/database.js';

/** Rows per statement: large enough to be fast, small enough for the embedded engine's memory. */
const CHUNK = 100_000;

async function inChunks(total: number, insert: (from: number, to: number) => Promise<unknown>) {
  for (let from = 0; from < total; from += CHUNK) await insert(from, Math.min(total, from + CHUNK) - 1);
}

const entry = (value: RawBuilder<unknown>, extra: RawBuilder<unknown> = sql``) =>
  sql`jsonb_build_object('value', ${value}, 'status', 'active', 'perma_status', 'active'${extra})`;

/**
 * Users `<prefix><i>` for i in [0, count): every one has an email; two in three an SMS number;
 * one in three an inbox. Locales and plans are spread so that a selective segment filter
 * (locale pt-BR and plan enterprise) matches about 1 user in 600.
 */
export async function seedUsers(db: Db, workspaceId: number, prefix: string, count: number) {
  await inChunks(count, (from, to) =>
    sql`
      insert into users (workspace_id, distinct_id, properties, channels, created_at, updated_at)
      select ${workspaceId}::int, ${prefix}::text || i,
        jsonb_build_object(
          '$locale', case when i % 47 = 5 then 'pt-BR' else (array['en-US','en-GB','fr-FR','de-DE','es-ES','hi-IN','ja-JP'])[1 + i % 7] end,
          '$timezone', (array['America/New_York','Europe/London','Europe/Paris','Asia/Kolkata','Asia/Tokyo','America/Sao_Paulo'])[1 + i % 6],
          'name', 'User ' || i,
          'plan', case when i % 13 = 3 then 'enterprise' when i % 3 = 0 then 'pro' else 'free' end,
          'signup_source', (array['web','ios','android','referral'])[1 + i % 4],
          'orders', i % 37
        ),
        jsonb_build_object('$email', jsonb_build_array(${entry(sql`${prefix}::text || i || '@example.com'`)}))
          || case when i % 3 >= 1
               then jsonb_build_object('$sms', jsonb_build_array(${entry(sql`'+1555' || lpad((i % 10000000)::text, 7, '0')`)}))
               else '{}'::jsonb end
          || case when i % 3 = 2
               then jsonb_build_object('$inbox', jsonb_build_array(${entry(sql`'inbox-' || i`, sql`, 'id_provider', 'herald'`)}))
               else '{}'::jsonb end,
        now() - (i % 365) * interval '1 day' - (i % 86400) * interval '1 second',
        now() - (i % 30) * interval '1 day'
      from generate_series(${from}::int, ${to}::int) as i
    `.execute(db),
  );
}

/**
 * Events spread over the last 90 days across the users `<prefix><i>`, three in ten of them on the
 * most active 1% of users; ten event names with a realistic skew (page views common, purchases rare).
 */
export async function seedEvents(db: Db, workspaceId: number, prefix: string, users: number, count: number) {
  const active = Math.max(1, Math.floor(users / 100));
  await inChunks(count, (from, to) =>
    sql`
      insert into events (workspace_id, distinct_id, event, properties, tenant_id, insert_id, created_at, received_at)
      select ${workspaceId}::int,
        ${prefix}::text || (case when i % 10 < 3 then (i::bigint * 7919) % ${active}::bigint else (i::bigint * 7919) % ${users}::bigint end),
        case when i % 100 < 40 then 'page_viewed' when i % 100 < 60 then 'item_viewed' when i % 100 < 72 then 'added_to_cart'
             when i % 100 < 80 then 'checkout_started' when i % 100 < 85 then 'checkout_completed' when i % 100 < 90 then 'login'
             when i % 100 < 94 then 'password_reset_requested' when i % 100 < 97 then 'invite_sent'
             when i % 100 < 99 then 'subscription_renewed' else 'account_deleted' end,
        jsonb_build_object('amount', (i % 500) + 0.99, 'currency', 'USD', 'source', (array['web','ios','android'])[1 + i % 3]),
        'default',
        'ev-' || i,
        now() - (i % 129600) * interval '1 minute',
        now() - (i % 129600) * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) as i
    `.execute(db),
  );
}

export async function analyze(db: Db) {
  await sql`analyze users`.execute(db);
  await sql`analyze events`.execute(db);
}

/** Rows seeded by `seedExpired`, per table, for `total` rows in all: one run and one message per trigger, two events per trigger. */
export const expiredShape = (total: number) => {
  const triggers = Math.max(1, Math.floor(total / 5));
  return { executions: triggers, workflow_runs: triggers, messages: triggers, events: 2 * triggers };
};

/**
 * What a retention purge finds after a long while (issue #29, point 5): about `total` rows made before
 * `before`, of triggers whose one run finished and whose one inbox message was delivered, and events
 * received then. Ids are ULIDs of their time (src/ids.ts), so they sit at the primary keys' oldest end as
 * real ones do; events, whose ids are a sequence, take negative ones for the same reason. Times are spread
 * over a day before `before`, one ULID time per chunk of rows.
 */
export async function seedExpired(db: Db, workspaceId: number, total: number, before: Date) {
  const shape = expiredShape(total);
  const at = (from: number) => new Date(before.getTime() - 86_400_000 + (from / shape.executions) * 86_000_000);
  const ulid = (tag: string, from: number) =>
    sql`${`${encodeTime(at(from).getTime(), 10)}${tag}`}::text || lpad(i::text, 15, '0')`;
  await inChunks(shape.executions, async (from, to) => {
    const time = at(from);
    const range = sql`generate_series(${from}::int, ${to}::int) as i`;
    await sql`
      insert into executions (id, workspace_id, workflow_slug, version_no, category, tenant_id, recipients, source, status, created_at)
      select ${ulid('E', from)}, ${workspaceId}::int, 'expired-digest', 1, 'transactional', 'default',
        jsonb_build_array('user-' || i), 'api', 'accepted', ${time}::timestamptz
      from ${range}`.execute(db);
    // A run's foreign-key check keeps the plan of its connection's first use until executions' statistics change:
    // planned on a nearly empty table it scans the table for every run (bench/scenarios-engine.ts, warmEngineTables).
    await sql`analyze executions`.execute(db);
    await sql`
      insert into workflow_runs (id, execution_id, workspace_id, recipient_key, recipient_type, distinct_id, status,
        position, steps, created_at, updated_at)
      select ${ulid('R', from)}, ${ulid('E', from)}, ${workspaceId}::int, 'user:user-' || i, 'user', 'user-' || i,
        'completed', '[1]'::jsonb, '[{"ref":"send","outcome":"done"}]'::jsonb, ${time}::timestamptz, ${time}::timestamptz
      from ${range}`.execute(db);
    await sql`
      insert into messages (id, workspace_id, run_id, execution_id, node_ref, workflow_slug, version_no, recipient_type,
        distinct_id, channel, tenant_id, category, status, template, content, created_at, triggered_at, delivered_at)
      select ${ulid('M', from)}, ${workspaceId}::int, ${ulid('R', from)}, ${ulid('E', from)}, 'send', 'expired-digest', 1,
        'user', 'user-' || i, 'inbox', 'default', 'transactional', 'delivered',
        jsonb_build_object('slug', 'expired-digest', 'version', 1),
        jsonb_build_object('header', 'Your digest ' || i, 'text', 'Three things happened while you were away, user ' || i || '.'),
        ${time}::timestamptz, ${time}::timestamptz, ${time}::timestamptz
      from ${range}`.execute(db);
  });
  await inChunks(shape.events, (from, to) =>
    sql`
      insert into events (id, workspace_id, distinct_id, event, properties, tenant_id, insert_id, created_at, received_at)
      overriding system value select -(${from}::bigint + i + 1) - 1000000000000, ${workspaceId}::int, 'user-' || (i % 1000), 'page_viewed',
        '{"source":"web"}'::jsonb, 'default', 'expired-' || (${from}::bigint + i), ${at(from / 2)}::timestamptz, ${at(from / 2)}::timestamptz
      from generate_series(0, ${to - from}::int) as i
    `.execute(db),
  );
}

/**
 * Takes away every row `seedExpired` made (and whatever else is older than `before`) and the dead rows
 * that leaves, so each measured run starts from the same tables.
 */
export async function clearExpired(db: Db, before: Date) {
  const first = `${encodeTime(before.getTime(), 10)}0000000000000000`;
  await sql`delete from messages where id < ${first}`.execute(db);
  await sql`delete from workflow_runs where id < ${first}`.execute(db);
  await sql`delete from executions where id < ${first}`.execute(db);
  await sql`delete from events where id < 0`.execute(db);
  await sql`vacuum analyze messages, workflow_runs, executions, events`.execute(db);
}
