import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { baseCall, engineWorkspace, inbox, liveWorkflow, trigger } from '../support/engine-drivers.js';

/**
 * The management twins of users, objects and lists (docs/management-twins.md) answer exactly what the
 * base routes answer, for the workspace their path names only; the queue overview shows one
 * workspace's jobs and never another's.
 */
describe('the management twins of users, objects and lists, and the queue overview', () => {
  // The durable queue without a worker: the jobs a trigger makes stay where the overview can see them.
  const t = useTestApp({}, { engine: { worker: false } });

  const twin = (ws: WorkspaceFixture, path: string) =>
    t().app.inject({ method: 'GET', url: `/management/v1/${ws.slug}${path}`, headers: ws.management });
  const base = (ws: WorkspaceFixture, path: string) =>
    t().app.inject({ method: 'GET', url: `/v1${path}`, headers: ws.base });

  async function populate(ws: WorkspaceFixture, who: string) {
    const call = baseCall(t, ws);
    for (const id of [`${who}-ann`, `${who}-anton`, `${who}-bea`])
      expect((await call('POST', `/v1/user/${id}/`, { name: id, $email: [`${id}@example.com`] })).statusCode).toBe(201);
    expect((await call('POST', '/v1/object/teams/core/', { name: `${who} core` })).statusCode).toBe(201);
    expect(
      (await call('POST', '/v1/object/teams/core/subscription/', { recipients: [`${who}-ann`] })).statusCode,
    ).toBeLessThan(300);
    expect((await call('POST', '/v1/subscriber_list/', { list_id: 'news', list_name: `${who} news` })).statusCode).toBe(
      201,
    );
    expect(
      (await call('POST', '/v1/subscriber_list/news/subscriber/add/', { distinct_ids: [`${who}-ann`] })).statusCode,
    ).toBeLessThan(300);
    expect(
      (
        await call('PATCH', `/v1/user/${who}-ann/preference/category/newsletter/`, {
          preference: 'opt_out',
        })
      ).statusCode,
    ).toBeLessThan(300);
  }

  it('answer what the base routes answer, for their own workspace only', async () => {
    const a = await engineWorkspace(t);
    const b = await engineWorkspace(t);
    await populate(a, 'a');
    await populate(b, 'b');

    for (const path of [
      '/user/',
      '/user/a-ann/',
      '/user/a-ann/preference/',
      '/user/a-ann/preference/evaluate/?category=newsletter&channel=email',
      '/user/a-ann/preference/evaluation/',
      '/user/a-ann/subscribed_to/list/',
      '/user/a-ann/subscribed_to/object/',
      '/object/teams/',
      '/object/teams/core/',
      '/object/teams/core/subscription/',
      '/object/teams/core/subscribed_to/object/',
      '/subscriber_list/',
      '/subscriber_list/news/',
      '/subscriber_list/news/subscriber/',
    ]) {
      const mine = await twin(a, path);
      expect(mine.statusCode, `${path} ${mine.body}`).toBe(200);
      expect(mine.json(), path).toEqual((await base(a, path)).json());
      // Another workspace's slug with this workspace's identifiers: its own data or nothing, never this one's.
      const theirs = JSON.stringify((await twin(b, path)).json());
      for (const mark of ['a-ann@example.com', 'a core', 'a news']) expect(theirs, path).not.toContain(mark);
    }
    expect((await twin(b, '/user/a-ann/')).statusCode).toBe(404);
    expect((await twin(b, '/user/a-ann/preference/evaluation/')).statusCode).toBe(404);

    // The search by distinct_id prefix (the console's), with LIKE's wildcards taken literally.
    const found = await twin(a, '/user/?distinct_id_prefix=a-an');
    expect(found.json().results.map((u: { distinct_id: string }) => u.distinct_id)).toEqual(['a-ann', 'a-anton']);
    expect(found.json().meta.count).toBe(2);
    expect((await twin(a, '/user/?distinct_id_prefix=a-_nn')).json().results).toEqual([]);
    expect((await twin(a, '/user/?distinct_id_prefix=%25')).json().results).toEqual([]);

    // Every category on every channel, with the rule that decided.
    const grid = (await twin(a, '/user/a-ann/preference/evaluation/')).json();
    expect(grid.tenant_id).toBe('default');
    expect(grid.results).toContainEqual(
      expect.objectContaining({ category: 'newsletter', channel: 'email', allowed: false }),
    );
    const email = grid.results.find(
      (r: { category: string; channel: string }) => r.channel === 'email' && r.category === 'newsletter',
    );
    const single = (await twin(a, '/user/a-ann/preference/evaluate/?category=newsletter&channel=email')).json();
    expect({ allowed: email.allowed, reason: email.reason, message: email.message }).toEqual(single);
  });

  it("shows a workspace's queued and failed jobs, and never another workspace's", async () => {
    const a = await engineWorkspace(t);
    const b = await engineWorkspace(t);
    await liveWorkflow(t, a, 'queued', [inbox('q')]);
    for (const user of ['q1', 'q2'])
      expect((await trigger(t, a, { workflow: 'queued', recipients: [user] })).statusCode).toBe(202);
    const overview = async (ws: WorkspaceFixture) => {
      const response = await twin(ws, '/queue/');
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    };
    const mine = await overview(a);
    const triggers = mine.queues.find((q: { name: string }) => q.name === 'herald-trigger');
    expect(triggers).toMatchObject({ waiting: 2, active: 0, failed: 0 });
    expect(triggers.oldest_job_age_seconds).toBeGreaterThanOrEqual(0);
    expect(mine.failed_jobs).toEqual([]);
    const theirs = await overview(b);
    expect(theirs.queues.every((q: { waiting: number; failed: number }) => q.waiting === 0 && q.failed === 0)).toBe(
      true,
    );

    // One of a's jobs fails for good: a sees it with its error, b does not.
    const schema = t().engineRuntime!.schema;
    await sql`update ${sql.id(schema, 'job')} set state = 'failed', completed_on = now(),
        output = ${JSON.stringify({ message: 'the provider said no' })}::jsonb
      where id = (select id from ${sql.id(schema, 'job')} where name = 'herald-trigger' and state = 'created' limit 1)`.execute(
      t().db,
    );
    const failed = await overview(a);
    expect(failed.queues.find((q: { name: string }) => q.name === 'herald-trigger')).toMatchObject({
      waiting: 1,
      failed: 1,
    });
    expect(failed.failed_jobs).toEqual([
      expect.objectContaining({ queue: 'herald-trigger', error: 'the provider said no', retry_count: 0 }),
    ]);
    expect((await overview(b)).failed_jobs).toEqual([]);
  });
});
