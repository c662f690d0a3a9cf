import { sql, type RawBuilder } from 'kysely';
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
