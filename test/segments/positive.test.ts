import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { dryRun, OTHER_WORKSPACE_MARKERS, useSegmentWorkspaces } from '../support/segment-seed.js';

const fillers = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ distinct_id: `user-${String(from + i).padStart(2, '0')}` }));

/** [what it finds, the query, the rows expected, in order]. */
const SEGMENTS: [string, string, Record<string, unknown>[]][] = [
  [
    'users on a plan',
    "select distinct_id from users where user_properties->>'plan' = 'pro' order by distinct_id",
    [{ distinct_id: 'alice' }, { distinct_id: 'carol' }],
  ],
  [
    'users reachable by email, with their addresses',
    "select distinct_id, active_emails from users where 'email' = any(active_channels) order by distinct_id",
    [
      { distinct_id: 'alice', active_emails: ['alice@x.com'] },
      { distinct_id: 'carol', active_emails: ['carol@x.com'] },
    ],
  ],
  [
    'users with a phone number, deduplicated across sms and whatsapp',
    'select distinct_id, active_phone_numbers from users where cardinality(active_phone_numbers) > 0 order by distinct_id',
    [
      { distinct_id: 'alice', active_phone_numbers: ['+33600000001'] },
      { distinct_id: 'bob', active_phone_numbers: ['+15550000002'] },
      { distinct_id: 'eve', active_phone_numbers: ['+441100000005', '+441100000006'] },
    ],
  ],
  [
    'active channels per user',
    "select distinct_id, active_channels from users where distinct_id in ('alice', 'bob', 'carol', 'dave') order by 1",
    [
      { distinct_id: 'alice', active_channels: ['email', 'sms'] },
      { distinct_id: 'bob', active_channels: ['whatsapp'] },
      { distinct_id: 'carol', active_channels: ['email', 'inbox'] },
      { distinct_id: 'dave', active_channels: [] },
    ],
  ],
  [
    'language, locale and timezone',
    'select distinct_id, language, locale, timezone from users where locale is not null order by distinct_id',
    [
      { distinct_id: 'alice', language: 'fr', locale: 'fr_FR', timezone: 'Europe/Paris' },
      { distinct_id: 'bob', language: 'en', locale: 'en_US', timezone: 'America/New_York' },
      { distinct_id: 'carol', language: 'de', locale: 'de_DE', timezone: null },
    ],
  ],
  [
    'buyers, joined with events',
    "select distinct u.distinct_id from users u join events e on e.distinct_id = u.distinct_id where e.event = 'purchase' order by 1",
    [{ distinct_id: 'alice' }, { distinct_id: 'carol' }],
  ],
  [
    'repeat buyers, HAVING',
    "select distinct_id, count(*) as purchases from events where event = 'purchase' group by distinct_id having count(*) >= 2",
    [{ distinct_id: 'alice', purchases: 3 }],
  ],
  [
    'spend per buyer, largest first',
    "select distinct_id, sum((properties->>'amount')::numeric) as total from events where event = 'purchase' group by 1 order by total desc",
    [
      { distinct_id: 'carol', total: 100 },
      { distinct_id: 'alice', total: 60 },
    ],
  ],
  [
    'LIMIT below 10',
    'select distinct_id from users order by distinct_id limit 3',
    [{ distinct_id: 'alice' }, { distinct_id: 'bob' }, { distinct_id: 'carol' }],
  ],
  [
    'LIMIT above 10 still returns the top 10',
    'select distinct_id from users order by distinct_id limit 50',
    [
      { distinct_id: 'alice' },
      { distinct_id: 'bob' },
      { distinct_id: 'carol' },
      { distinct_id: 'dave' },
      { distinct_id: 'eve' },
      ...fillers(1, 5),
    ],
  ],
  [
    'no LIMIT, more than 10 matches',
    "select distinct_id from users where user_properties->>'plan' = 'trial' order by distinct_id",
    fillers(1, 10),
  ],
  [
    'ORDER BY descending with OFFSET',
    "select distinct_id from users where user_properties->>'plan' = 'trial' order by distinct_id desc offset 9",
    fillers(1, 3).reverse(),
  ],
  [
    'a numeric property, ordered',
    "select distinct_id, (user_properties->>'age')::int as age from users where user_properties ? 'age' order by age desc",
    [
      { distinct_id: 'carol', age: 45 },
      { distinct_id: 'alice', age: 34 },
      { distinct_id: 'eve', age: 29 },
      { distinct_id: 'bob', age: 22 },
    ],
  ],
  [
    'buyers through a CTE',
    "with buyers as (select distinct_id from events where event = 'purchase') select u.distinct_id from users u where u.distinct_id in (select distinct_id from buyers) order by 1",
    [{ distinct_id: 'alice' }, { distinct_id: 'carol' }],
  ],
  [
    'paying users who never did anything, NOT EXISTS',
    "select distinct_id from users u where not exists (select 1 from events e where e.distinct_id = u.distinct_id) and user_properties->>'plan' not in ('free', 'trial')",
    [{ distinct_id: 'dave' }],
  ],
  [
    'jsonb containment',
    `select distinct_id from users where user_properties @> '{"tags": ["vip"]}'`,
    [{ distinct_id: 'dave' }],
  ],
  [
    'array elements through a lateral function',
    "select u.distinct_id, t.tag from users u cross join lateral jsonb_array_elements_text(u.user_properties->'tags') as t(tag) order by t.tag",
    [
      { distinct_id: 'dave', tag: 'beta' },
      { distinct_id: 'dave', tag: 'vip' },
    ],
  ],
  [
    'array elements with a default, and the elements of a stored array column',
    "select u.distinct_id, t.tag from users u, jsonb_array_elements_text(coalesce(u.user_properties->'tags', '[]'::jsonb)) as t(tag) left join lateral unnest(u.active_channels) as c on true order by t.tag",
    [
      { distinct_id: 'dave', tag: 'beta' },
      { distinct_id: 'dave', tag: 'vip' },
    ],
  ],
  [
    'signed up before a date',
    "select distinct_id from users where created_at < '2025-03-15' order by created_at",
    [{ distinct_id: 'alice' }, { distinct_id: 'bob' }, { distinct_id: 'carol' }],
  ],
  [
    'last seen, timestamps as ISO strings',
    'select distinct_id, max(created_at) as last_seen from events group by 1 order by last_seen desc limit 2',
    [
      { distinct_id: 'bob', last_seen: '2025-07-05T10:00:00+00:00' },
      { distinct_id: 'carol', last_seen: '2025-06-10T10:00:00+00:00' },
    ],
  ],
  [
    'UNION of a property filter and an event filter',
    "select distinct_id from users where user_properties->>'plan' = 'enterprise' union select distinct_id from events where event = 'signup' order by 1",
    [{ distinct_id: 'dave' }, { distinct_id: 'eve' }],
  ],
  [
    'CASE buckets',
    "select distinct_id, case when (user_properties->>'age')::int >= 30 then 'senior' else 'junior' end as bucket from users where user_properties ? 'age' order by 1",
    [
      { distinct_id: 'alice', bucket: 'senior' },
      { distinct_id: 'bob', bucket: 'junior' },
      { distinct_id: 'carol', bucket: 'senior' },
      { distinct_id: 'eve', bucket: 'junior' },
    ],
  ],
  [
    'ILIKE over an array column',
    "select distinct_id from users where exists (select 1 from unnest(active_emails) m where m ilike '%@X.COM') order by 1",
    [{ distinct_id: 'alice' }, { distinct_id: 'carol' }],
  ],
  [
    'EXTRACT and an event window',
    "select distinct_id from events where event = 'login' and extract(month from created_at) = 7 and created_at >= now() - interval '100 years'",
    [{ distinct_id: 'bob' }],
  ],
  [
    'a window function',
    'select distinct_id, rank() over (order by count(*) desc) as rank from events group by distinct_id order by rank, distinct_id limit 2',
    [
      { distinct_id: 'alice', rank: 1 },
      { distinct_id: 'bob', rank: 2 },
    ],
  ],
  [
    'events of a tenant',
    "select distinct_id, tenant_id, count(*) as logins from events where tenant_id = 'acme' group by 1, 2",
    [{ distinct_id: 'bob', tenant_id: 'acme', logins: 2 }],
  ],
  [
    'a distinct_id shared with another workspace',
    "select distinct_id, user_properties->>'plan' as plan from users where distinct_id = 'alice'",
    [{ distinct_id: 'alice', plan: 'pro' }],
  ],
  [
    'a trailing semicolon and comment',
    "select distinct_id from users where distinct_id = 'bob'; -- the end",
    [{ distinct_id: 'bob' }],
  ],
  [
    'a comment inside, and an upper-case query',
    "SELECT Distinct_Id /* who */ FROM Users WHERE User_Properties->>'plan' = 'enterprise'",
    [{ distinct_id: 'dave' }],
  ],
  [
    'every events column',
    "select * from events where event = 'signup'",
    [
      {
        distinct_id: 'eve',
        event: 'signup',
        properties: { source: 'ads' },
        created_at: '2025-05-01T00:00:00+00:00',
        tenant_id: null,
      },
    ],
  ],
];

describe('POST /v1/subscriber_list/~/dry_run/ answers realistic segment queries', () => {
  const t = useTestApp();
  const seed = useSegmentWorkspaces(t);

  it('holds at least 20 segment queries', () => {
    expect(SEGMENTS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(SEGMENTS)('%s', async (_name, query, expected) => {
    const response = await dryRun(t(), seed().ws, query);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: expected });
    for (const marker of OTHER_WORKSPACE_MARKERS) expect(response.body).not.toContain(marker);
  });

  it('returns every users column with its natural JSON type', async () => {
    const response = await dryRun(t(), seed().ws, "select * from users where distinct_id = 'carol'");
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual([
      {
        distinct_id: 'carol',
        created_at: '2025-03-01T00:00:00+00:00',
        updated_at: '2025-03-01T00:00:00+00:00',
        language: 'de',
        locale: 'de_DE',
        timezone: null,
        user_properties: { plan: 'pro', age: 45, $locale: 'de_DE' },
        active_channels: ['email', 'inbox'],
        active_emails: ['carol@x.com'],
        active_phone_numbers: [],
      },
    ]);
    expect(Object.keys(response.json().data[0])).toEqual([
      'distinct_id',
      'created_at',
      'updated_at',
      'language',
      'locale',
      'timezone',
      'user_properties',
      'active_channels',
      'active_emails',
      'active_phone_numbers',
    ]);
  });

  it('keeps numbers, booleans, nulls and nested jsonb as JSON', async () => {
    const query =
      "select distinct_id, 1.5 as ratio, true as flag, null as nothing, jsonb_build_object('n', 1, 'a', array[1, 2]) as doc from users where distinct_id = 'alice'";
    const response = await dryRun(t(), seed().ws, query);
    expect(response.json()).toEqual({
      data: [{ distinct_id: 'alice', ratio: 1.5, flag: true, nothing: null, doc: { n: 1, a: [1, 2] } }],
    });
  });

  it('lets the database stop after 10 rows: the 11th row is never computed', async () => {
    // Row 11 would divide by zero; only a query that stops at 10 rows succeeds.
    const query =
      'select distinct_id from (select distinct_id, row_number() over (order by distinct_id) as n from users) s where 1.0 / (11 - n) > 0';
    const response = await dryRun(t(), seed().ws, query);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toHaveLength(10);
  });

  it('answers an empty result with an empty list', async () => {
    const response = await dryRun(
      t(),
      seed().ws,
      "select distinct_id from users where user_properties->>'plan' = 'stolen'",
    );
    expect(response.json()).toEqual({ data: [] });
  });

  it('sees only the other workspace in the other workspace', async () => {
    const response = await dryRun(
      t(),
      seed().other,
      "select distinct_id, user_properties->>'plan' as plan from users order by distinct_id",
    );
    expect(response.json()).toEqual({
      data: [
        { distinct_id: 'alice', plan: 'stolen' },
        { distinct_id: 'other-secret-1', plan: 'pro' },
        { distinct_id: 'other-secret-2', plan: 'pro' },
      ],
    });
  });
});
