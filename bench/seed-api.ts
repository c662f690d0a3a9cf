import {
  CATEGORY_SLUGS,
  memberId,
  ORGANIZATION,
  PREFERENCE_DEFINITION,
  SCALE_OBJECTS,
  TEAM_TYPE,
  teamId,
  userId,
} from './data.js';
import { messageOf, routeMissing, send, type ProbeResult, type RequestSpec } from './load.js';

/** How a workspace is reached through Herald's API. */
export interface ApiContext {
  url: string;
  workspace: string;
  apiKey: string;
  serviceToken: string;
  managementPrefix: string;
}

/** What one seeding step reached; `available: false` when the build lacks the route. */
export interface SeedOutcome {
  what: string;
  target: number;
  reached: number;
  available: boolean;
  note?: string;
  seconds?: number;
}

const json = (method: RequestSpec['method'], path: string, auth: string, body?: unknown): RequestSpec => ({
  method,
  path,
  headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

export const base = (ctx: ApiContext, method: RequestSpec['method'], path: string, body?: unknown) =>
  json(method, path, `Bearer ${ctx.apiKey}`, body);
export const management = (ctx: ApiContext, method: RequestSpec['method'], path: string, body?: unknown) =>
  json(method, `${ctx.managementPrefix}/v1/${ctx.workspace}${path}`, `ServiceToken ${ctx.serviceToken}`, body);

const ok = (result: ProbeResult) => result.status >= 200 && result.status < 300;
const describe = (result: ProbeResult) => `${result.status}: ${messageOf(result)}`;

/** Runs `task(i)` for i in [0, count) with `concurrency` in flight; starts none after `deadline`. */
async function pool(count: number, concurrency: number, deadline: number, task: (i: number) => Promise<void>) {
  let nextIndex = 0;
  let done = 0;
  const worker = async () => {
    while (nextIndex < count && Date.now() < deadline) {
      const i = nextIndex++;
      await task(i);
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return done;
}

/** Creates `ids` as objects of `type`; the first request doubles as the probe for the route. */
export async function seedObjects(ctx: ApiContext, type: string, ids: string[], what: string): Promise<SeedOutcome> {
  const create = (id: string) =>
    send(ctx.url, base(ctx, 'POST', `/v1/object/${type}/${encodeURIComponent(id)}/`, { name: id }));
  const first = await create(ids[0] as string);
  if (routeMissing(first))
    return { what, target: ids.length, reached: 0, available: false, note: `POST /v1/object/… ${describe(first)}` };
  if (!ok(first))
    return {
      what,
      target: ids.length,
      reached: 0,
      available: true,
      note: `POST /v1/object/… failed, ${describe(first)}`,
    };
  let failure: string | undefined;
  const reached = await pool(ids.length - 1, 4, Infinity, async (i) => {
    const result = await create(ids[i + 1] as string);
    if (!ok(result)) failure ??= describe(result);
  });
  return {
    what,
    target: ids.length,
    reached: reached + 1,
    available: true,
    ...(failure ? { note: `some failed, ${failure}` } : {}),
  };
}

/** Subscribes `count` recipients (named by `recipient(i)`) to one object, 100 per request, within `budgetSeconds`. */
export async function seedSubscribers(
  ctx: ApiContext,
  object: { type: string; id: string },
  count: number,
  recipient: (i: number) => string,
  budgetSeconds: number,
  what: string,
): Promise<SeedOutcome> {
  const path = `/v1/object/${object.type}/${object.id}/subscription/`;
  const batch = (b: number) =>
    send(
      ctx.url,
      base(ctx, 'POST', path, {
        recipients: Array.from({ length: Math.min(100, count - b * 100) }, (_, k) => recipient(b * 100 + k)),
        properties: { role: b % 10 === 0 ? 'admin' : 'member' },
      }),
    );
  const batches = Math.ceil(count / 100);
  const first = await batch(0);
  if (routeMissing(first))
    return { what, target: count, reached: 0, available: false, note: `POST ${path} ${describe(first)}` };
  if (!ok(first))
    return { what, target: count, reached: 0, available: true, note: `POST ${path} failed, ${describe(first)}` };
  let failure: string | undefined;
  let failed = 0;
  const done = await pool(batches - 1, 6, Date.now() + budgetSeconds * 1000, async (b) => {
    const result = await batch(b + 1);
    if (!ok(result)) {
      failed += 1;
      failure ??= describe(result);
    }
  });
  const reached = Math.min(count, (done + 1 - failed) * 100);
  const notes = [
    reached < count && failed === 0 ? `stopped at the ${budgetSeconds} s seeding budget` : '',
    failure ? `${failed} batches failed, ${failure}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return { what, target: count, reached, available: true, ...(notes ? { note: notes } : {}) };
}

const liveCategoryCount = async (ctx: ApiContext) => {
  const result = await send(ctx.url, management(ctx, 'GET', '/preference_category/?mode=live'));
  if (!ok(result)) return 0;
  const body = result.body as { root_categories?: { sections?: { categories?: unknown[] }[] }[] };
  return (body.root_categories ?? [])
    .flatMap((root) => root.sections ?? [])
    .flatMap((section) => section.categories ?? []).length;
};

/** The live preference category definition with ten categories, through the management API. */
export async function seedPreferenceCategories(ctx: ApiContext): Promise<SeedOutcome> {
  const what = 'live preference category definition (categories)';
  const target = CATEGORY_SLUGS.length;
  const saved = await send(
    ctx.url,
    management(ctx, 'POST', '/preference_category/?commit=true&commit_message=bench', PREFERENCE_DEFINITION),
  );
  if (routeMissing(saved))
    return { what, target, reached: 0, available: false, note: `POST /preference_category/ ${describe(saved)}` };
  if (!ok(saved))
    return { what, target, reached: 0, available: true, note: `POST /preference_category/ failed, ${describe(saved)}` };
  let live = await liveCategoryCount(ctx);
  if (live < target) {
    const committed = await send(
      ctx.url,
      management(ctx, 'PATCH', '/preference_category/commit/', { commit_message: 'bench' }),
    );
    if (!ok(committed))
      return { what, target, reached: live, available: true, note: `commit failed, ${describe(committed)}` };
    live = await liveCategoryCount(ctx);
  }
  return { what, target, reached: live, available: true };
}

/** Logs each outcome as it comes, with the seconds since the previous one. */
function recorder(log: (line: string) => void) {
  const outcomes: SeedOutcome[] = [];
  let since = Date.now();
  const record = (outcome: SeedOutcome) => {
    outcome.seconds = (Date.now() - since) / 1000;
    since = Date.now();
    outcomes.push(outcome);
    log(
      `  ${outcome.what}: ${outcome.available ? `${outcome.reached} of ${outcome.target}` : 'not available in this build'}${outcome.note ? ` (${outcome.note})` : ''}`,
    );
    return outcome;
  };
  return { outcomes, record };
}

/** What the scenarios of the main workspace need beyond users and events, seeded through Herald itself. */
export async function seedMainThroughApi(
  main: ApiContext,
  sizes: { objects: number; objectSubscribers: number; apiSeedBudget: number },
  log: (line: string) => void,
): Promise<SeedOutcome[]> {
  const { outcomes, record } = recorder(log);
  const teams = Array.from({ length: sizes.objects }, (_, i) => teamId(i));
  const objects = record(await seedObjects(main, TEAM_TYPE, teams, `objects (${TEAM_TYPE})`));
  if (objects.available) {
    record(
      await seedObjects(main, ORGANIZATION.type, [ORGANIZATION.id], `object ${ORGANIZATION.type}/${ORGANIZATION.id}`),
    );
    const what = `subscribers of ${ORGANIZATION.type}/${ORGANIZATION.id}`;
    record(await seedSubscribers(main, ORGANIZATION, sizes.objectSubscribers, userId, sizes.apiSeedBudget / 3, what));
  }
  record(await seedPreferenceCategories(main));
  return outcomes;
}

/** Scenario 7's objects: the large one with its subscribers, and the empty ones. */
export async function seedScaleThroughApi(
  scale: ApiContext,
  sizes: { scaleSubscribers: number; apiSeedBudget: number },
  log: (line: string) => void,
): Promise<SeedOutcome[]> {
  const { outcomes, record } = recorder(log);
  const ids = [
    SCALE_OBJECTS.big,
    ...Array.from({ length: SCALE_OBJECTS.emptyCount }, (_, i) => SCALE_OBJECTS.empty(i)),
  ];
  const objects = record(
    await seedObjects(scale, SCALE_OBJECTS.type, ids, `scenario 7 objects (${SCALE_OBJECTS.type})`),
  );
  if (objects.available) {
    const big = { type: SCALE_OBJECTS.type, id: SCALE_OBJECTS.big };
    record(
      await seedSubscribers(
        scale,
        big,
        sizes.scaleSubscribers,
        memberId,
        sizes.apiSeedBudget,
        `subscribers of ${big.type}/${big.id} (scenario 7)`,
      ),
    );
  }
  return outcomes;
}
