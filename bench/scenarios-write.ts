import { CATEGORY_SLUGS, memberId, random, sample, SCALE_OBJECTS, TEAM_TYPE, teamId, userId } from './data.js';
import type { RequestSpec } from './load.js';
import { scaleExtra } from './options.js';
import {
  cycle,
  measure,
  missingSeed,
  notRun,
  probe,
  type ScenarioContext,
  type ScenarioResult,
  type Series,
} from './measure.js';
import { base } from './seed-api.js';

/** Prepared request bodies per scenario: the harness spends its CPU on load, not on JSON. */
const PREPARED = 500;

const TIMEZONES = ['America/New_York', 'Europe/London', 'Europe/Paris', 'Asia/Kolkata'];

/** Scenario 2: add 100 inline recipients (users identified and updated in the same call) to a random team. */
export async function addSubscriptions(ctx: ScenarioContext): Promise<ScenarioResult> {
  const scenario = {
    id: '2',
    title: 'POST /v1/object/{type}/{id}/subscription/, 100 inline recipients',
    connections: 10,
  };
  const seeded = missingSeed(ctx, /^objects /);
  if (!seeded.ok) return notRun(scenario, seeded);
  const next = random(2);
  const requests: RequestSpec[] = Array.from({ length: PREPARED }, () => {
    const team = teamId(Math.floor(next() * ctx.sizes.objects));
    const recipients = sample(next, 100, ctx.sizes.users).map((i) => ({
      distinct_id: userId(i),
      $email: [`${userId(i)}@example.com`],
      $locale: 'en-US',
      $timezone: TIMEZONES[i % TIMEZONES.length],
    }));
    return base(ctx.main, 'POST', `/v1/object/${TEAM_TYPE}/${team}/subscription/`, {
      recipients,
      properties: { role: 'member', source: 'bench' },
    });
  });
  const check = await probe(ctx.herald, requests[0] as RequestSpec, 'POST …/subscription/');
  if (!check.ok) return notRun(scenario, check);
  const figures = await measure(ctx, ctx.herald, scenario.connections, () => cycle(requests));
  return { ...scenario, status: 'measured', series: [{ label: 'Herald', server: 'Herald', figures }] };
}

/** Scenario 3: 100 users × 3 categories + 2 channel preferences per request. */
export async function bulkPreferences(ctx: ScenarioContext): Promise<ScenarioResult> {
  const scenario = {
    id: '3',
    title: 'PATCH /v1/bulk/user/preference/, 100 users × 3 categories + 2 channels',
    connections: 10,
  };
  const next = random(3);
  const requests: RequestSpec[] = Array.from({ length: PREPARED }, () => {
    const optIn = next() < 0.5;
    return base(ctx.main, 'PATCH', '/v1/bulk/user/preference/', {
      distinct_ids: sample(next, 100, ctx.sizes.users).map(userId),
      channel_preferences: [
        { channel: 'email', is_restricted: false },
        { channel: 'sms', is_restricted: next() < 0.3 },
      ],
      categories: sample(next, 3, CATEGORY_SLUGS.length).map((c) => ({
        category: CATEGORY_SLUGS[c],
        preference: optIn ? 'opt_in' : 'opt_out',
        opt_out_channels: optIn ? ['sms'] : [],
        opt_in_channels: optIn ? ['email'] : [],
      })),
    });
  });
  const check = await probe(ctx.herald, requests[0] as RequestSpec, 'PATCH /v1/bulk/user/preference/');
  if (!check.ok) {
    const seeded = missingSeed(ctx, /preference category/);
    return notRun(scenario, check.status === 'failed' && !seeded.ok ? seeded : check);
  }
  const figures = await measure(ctx, ctx.herald, scenario.connections, () => cycle(requests));
  return { ...scenario, status: 'measured', series: [{ label: 'Herald', server: 'Herald', figures }] };
}

/** The two segment queries of scenario 4: a selective filter on users, and a join on events. */
export const SEGMENT_QUERIES = {
  selective:
    "select distinct_id, active_emails from users where locale = 'pt-BR' and user_properties->>'plan' = 'enterprise'",
  join:
    'select u.distinct_id, count(*) as purchases from users u join events e on e.distinct_id = u.distinct_id ' +
    "where e.event = 'checkout_completed' and e.created_at > now() - interval '7 days' group by u.distinct_id having count(*) >= 2",
};

/** Scenario 4: segment dry runs. */
export async function segmentDryRun(ctx: ScenarioContext): Promise<ScenarioResult> {
  const scenario = { id: '4', title: 'POST /v1/subscriber_list/~/dry_run/', connections: 4 };
  const series: Series[] = [];
  const failures: string[] = [];
  for (const [name, query] of Object.entries(SEGMENT_QUERIES)) {
    const spec = base(ctx.main, 'POST', '/v1/subscriber_list/~/dry_run/', { query });
    const check = await probe(ctx.herald, spec, `dry run (${name})`);
    if (!check.ok) {
      if (check.status === 'unavailable') return notRun(scenario, check);
      failures.push(check.reason);
      continue;
    }
    ctx.log(`  ${name}`);
    series.push({
      label: name === 'selective' ? 'selective filter on users' : 'join on events',
      server: 'Herald',
      figures: await measure(ctx, ctx.herald, scenario.connections, () => () => spec),
    });
  }
  const notes = [`selective: \`${SEGMENT_QUERIES.selective}\``, `join: \`${SEGMENT_QUERIES.join}\``, ...failures];
  if (series.length === 0) return { ...scenario, status: 'failed', reason: failures.join('; '), notes, series };
  return { ...scenario, status: 'measured', notes, series };
}

/**
 * Scenario 7: adding 100 recipients to an object with no subscriptions versus to one with the
 * scale workspace's million; new recipients each request. The cost must not grow with the count.
 * One connection: the figure is what a request costs. With several, requests on the one large
 * object also queue behind each other on that object's row, which the empty side (many objects)
 * does not: that measures contention on a hot object, not the object's size.
 */
export async function subscriptionScaling(ctx: ScenarioContext): Promise<ScenarioResult> {
  const big = ctx.seeds.find((seed) => seed.what.includes('scenario 7') && seed.what.startsWith('subscribers'));
  const scenario = {
    id: '7',
    title: `add 100 recipients: object with 0 subscriptions vs ${(big?.reached ?? ctx.sizes.scaleSubscribers).toLocaleString('en-US')}`,
    connections: 1,
  };
  const seeded = missingSeed(ctx, /scenario 7/);
  if (!seeded.ok) return notRun(scenario, seeded);
  const extra = scaleExtra(ctx.sizes);
  const batch = (k: number) =>
    Array.from({ length: 100 }, (_, j) => memberId(ctx.sizes.scaleSubscribers + ((k * 100 + j) % extra)));
  const requestsFor = (objectOf: (k: number) => string) =>
    Array.from({ length: Math.floor(extra / 100) }, (_, k) =>
      base(ctx.scale, 'POST', `/v1/object/${SCALE_OBJECTS.type}/${objectOf(k)}/subscription/`, {
        recipients: batch(k),
        properties: { role: 'member' },
      }),
    );
  const empty = requestsFor((k) => SCALE_OBJECTS.empty(k % SCALE_OBJECTS.emptyCount));
  const large = requestsFor(() => SCALE_OBJECTS.big);
  const check = await probe(ctx.herald, empty[0] as RequestSpec, 'POST …/subscription/ (scale workspace)');
  if (!check.ok) return notRun(scenario, check);
  ctx.log('  empty objects');
  const emptyFigures = await measure(ctx, ctx.herald, scenario.connections, () => cycle(empty));
  ctx.log('  large object');
  const largeFigures = await measure(ctx, ctx.herald, scenario.connections, () => cycle(large));
  return {
    ...scenario,
    status: 'measured',
    notes: [
      `empty side: ${SCALE_OBJECTS.emptyCount} objects in turn, so each has at most a few hundred subscriptions; large side: ${big?.reached ?? 0} seeded subscribers`,
      'ratio = mean latency (large) ÷ mean latency (empty)',
    ],
    series: [
      { label: '0 subscriptions', server: 'Herald', figures: emptyFigures },
      {
        label: `${(big?.reached ?? 0).toLocaleString('en-US')} subscriptions`,
        server: 'Herald',
        figures: largeFigures,
      },
    ],
  };
}
