import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

const URL = '/v1/subscriber_list/~/dry_run/';
const USERS_COLUMNS =
  'valid users columns: distinct_id, created_at, updated_at, language, locale, timezone, user_properties, active_channels, active_emails, active_phone_numbers';

const refusal = (reason: string) => ({
  code: 400,
  error_code: 'error',
  type: 'ValidationError',
  message: `invalid segment query: ${reason}`,
  detail: { query: reason },
});

describe('POST /v1/subscriber_list/~/dry_run/', () => {
  const t = useTestApp();
  let ws: WorkspaceFixture;
  beforeAll(async () => {
    ws = await createWorkspaceFixture(t());
    await t()
      .db.insertInto('users')
      .values({ workspace_id: ws.workspaceId, distinct_id: 'u1', properties: JSON.stringify({ plan: 'pro' }) })
      .execute();
  });
  const post = (payload?: unknown, headers: Record<string, string> = ws.base) =>
    t().app.inject({
      method: 'POST',
      url: URL,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('answers {data: [row…]} with the selected columns', async () => {
    const response = await post({ query: "select distinct_id, user_properties->>'plan' as plan from users" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: [{ distinct_id: 'u1', plan: 'pro' }] });
  });

  it("costs a fixed number of Herald's statements, whatever the query (credentials and sizes cached)", async () => {
    await post({ query: 'select 1 as distinct_id' }); // finds the API key, measures the workspace
    t().queries.reset();
    await post({ query: 'select distinct_id from users' });
    if (t().databaseKind === 'postgres') {
      // Herald's pool only writes and removes the scope row; the query runs on the segment pool.
      expect(t().queries.sql).toEqual([
        expect.stringMatching(/^insert into "segment_scopes"/),
        expect.stringMatching(/^delete from "segment_scopes"/),
      ]);
    } else {
      // One connection: the scope row, the role and settings, the estimate, the query, in a transaction
      // always rolled back; then session-level advisory locks, which a rollback keeps, are released.
      expect(t().queries.sql.map((text) => text.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
        'begin',
        'insert into',
        "select set_config('transaction_read_only',",
        'explain (format',
        'select coalesce(sum(octet_length(s.r)),',
        'rollback',
        'select pg_advisory_unlock_all()',
      ]);
      expect(t().queries.sql[4]).toMatch(/\nselect distinct_id from users\n\) as q limit \$1\) as s$/);
    }
  });

  it('asks for an API key first', async () => {
    const response = await post({ query: 'select distinct_id from users' }, {});
    expect(response.statusCode).toBe(401);
  });

  it('refuses a missing body, a missing query and a non-string query with error_code "error"', async () => {
    expect((await post()).json()).toEqual(refusal('the query is required'));
    expect((await post({})).json()).toEqual(refusal('the query is required'));
    // Bodies are never coerced: null, a number, a boolean or an array is not a string.
    for (const query of [null, 12, true, ['select distinct_id from users']])
      expect((await post({ query })).json()).toEqual(refusal('the query must be a string'));
    expect((await post({ query: { select: 'distinct_id' } })).json()).toEqual(refusal('the query must be a string'));
  });

  it('refuses an empty or blank query', async () => {
    for (const query of ['', '   \n\t', '-- just a comment', '/* nothing */ ;']) {
      const response = await post({ query });
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual(refusal('the query is empty'));
    }
  });

  it('refuses a query longer than 10,000 characters', async () => {
    const query = `select distinct_id from users where ${"distinct_id <> 'x' and ".repeat(450)}true`;
    expect(query.length).toBeGreaterThan(10_000);
    expect((await post({ query })).json()).toEqual(refusal('the query is longer than 10000 characters'));
  });

  it("reports a syntax error with the parser's message and position", async () => {
    expect((await post({ query: 'select distinct_id frm users' })).json()).toEqual(
      refusal('syntax error at or near "users" (position 24)'),
    );
    expect((await post({ query: "select distinct_id from users where x = 'open" })).json()).toEqual(
      refusal('unterminated quoted string at or near "\'open" (position 41)'),
    );
  });

  it('lists the valid users columns when a column does not exist', async () => {
    const response = await post({ query: 'select distinct_id, email from users' });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.error_code).toBe('error');
    expect(body.message).toContain('column "email" does not exist (position 21)');
    expect(body.message).toContain(USERS_COLUMNS);
    expect(body.detail.query).toContain(USERS_COLUMNS);
  });

  it('reports errors the database finds while running the query', async () => {
    expect(
      (await post({ query: "select distinct_id from users where (user_properties->>'plan')::int > 1" })).json(),
    ).toEqual(refusal('invalid input syntax for type integer: "pro"'));
    const response = await post({ query: 'select distinct_id, count(*) from users' });
    expect(response.json().detail.query).toMatch(/must appear in the GROUP BY clause/);
  });

  it('refuses a result without exactly one distinct_id column', async () => {
    expect((await post({ query: 'select user_properties from users' })).json()).toEqual(
      refusal('the query must return a distinct_id column'),
    );
    expect((await post({ query: 'select * from (select 1 as id) s' })).json()).toEqual(
      refusal('the query must return a distinct_id column'),
    );
    expect((await post({ query: 'select distinct_id, distinct_id from users' })).json()).toEqual(
      refusal('the query returns more than one distinct_id column; keep one'),
    );
  });

  it('accepts a renamed or cast distinct_id', async () => {
    expect((await post({ query: "select 'x' || distinct_id as distinct_id from users" })).json()).toEqual({
      data: [{ distinct_id: 'xu1' }],
    });
    expect((await post({ query: 'select distinct_id::varchar(10) from users' })).json()).toEqual({
      data: [{ distinct_id: 'u1' }],
    });
  });
});
