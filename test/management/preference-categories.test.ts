import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { bootstrapWorkspace } from '../../src/services/workspaces.js';
import { category, configClient, definition, workflowBody } from '../support/config.js';

const SCHEMA_URL = 'http://127.0.0.1:3000/management/v1/schemas/preference_category.json';
const OPERATOR = { name: 'Test Operator', email: 'ops@example.com' };
const emptyRoots = [
  { root_category: 'system', sections: [] },
  { root_category: 'transactional', sections: [] },
  { root_category: 'promotional', sections: [] },
];

describe('GET /v1/{workspace}/preference_category/', () => {
  const t = useTestApp();

  it('gives a workspace that never committed the empty live definition, version 0, every field present', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await configClient(t, ws).getCategories();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      $schema: SCHEMA_URL,
      root_categories: emptyRoots,
      version_no: 0,
      status: 'active',
      validation_result: { is_valid: true, errors: [] },
      commit_message: null,
      committed_at: null,
      committed_by: null,
      updated_at: null,
      updated_by: null,
    });
  });

  it('defaults to live, answers draft as the next version, and refuses an unknown mode with a short 400', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    expect((await client.getCategories('?mode=live')).json()).toEqual((await client.getCategories()).json());
    const draft = await client.getCategories('?mode=draft');
    expect(draft.json()).toMatchObject({
      status: 'draft',
      version_no: 1,
      root_categories: emptyRoots,
      validation_result: { is_valid: true, errors: [] },
    });
    const bad = await client.getCategories('?mode=staging');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: 400, message: 'mode must be equal to one of the allowed values' });
  });

  it('answers 401 and 404 in the short shape, though authentication runs in an onRequest hook', async () => {
    const ws = await createWorkspaceFixture(t());
    const anonymous = await t().app.inject({ method: 'GET', url: `/management/v1/${ws.slug}/preference_category/` });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({
      code: 401,
      message: 'missing or malformed Authorization header; expected "ServiceToken <TOKEN>"',
    });
    const badToken = await t().app.inject({
      method: 'GET',
      url: `/management/v1/${ws.slug}/preference_category/`,
      headers: { authorization: 'ServiceToken nope' },
    });
    expect(badToken.json()).toEqual({ code: 401, message: 'invalid service token' });
    const unknown = await t().app.inject({
      method: 'GET',
      url: '/management/v1/no-such-ws/preference_category/',
      headers: ws.management,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 404, message: "workspace 'no-such-ws' not found" });
    for (const [method, url] of [
      ['POST', '/preference_category/'],
      ['PATCH', '/preference_category/commit/'],
    ] as const) {
      const response = await t().app.inject({
        method,
        url: `/management/v1/no-such-ws${url}`,
        headers: ws.management,
        payload: definition(),
      });
      expect(response.json(), url).toEqual({ code: 404, message: "workspace 'no-such-ws' not found" });
    }
  });
});

describe('POST /v1/{workspace}/preference_category/ and commit', () => {
  const t = useTestApp();

  it('stores a draft that live mode does not see until it is committed', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const posted = await client.postCategories(definition(['tagged-to-me'], ['newsletter']));
    expect(posted.statusCode).toBe(200);
    expect(posted.json()).toMatchObject({
      status: 'draft',
      version_no: 1,
      validation_result: { is_valid: true, errors: [] },
      updated_by: OPERATOR,
    });
    expect(posted.json().root_categories[1].sections[0].categories[0]).toEqual({
      category: 'tagged-to-me',
      name: 'Name of tagged-to-me',
      description: null,
      default_preference: 'opt_in',
      default_mandatory_channels: null,
      default_opt_in_channels: null,
      digest_schedule: null,
      properties: null,
      tags: null,
    });
    expect((await client.getCategories()).json()).toMatchObject({ version_no: 0, root_categories: emptyRoots });
    expect((await client.getCategories('?mode=draft')).json().root_categories).toEqual(posted.json().root_categories);

    const committed = await client.commitCategories('?commit_message=first');
    expect(committed.statusCode).toBe(200);
    expect(committed.json()).toMatchObject({
      status: 'active',
      version_no: 1,
      commit_message: 'first',
      committed_by: OPERATOR,
    });
    expect(committed.json().committed_at).toMatch(/\+00:00$/);
    const live = (await client.getCategories()).json();
    expect(live).toEqual(committed.json());
    expect(live.root_categories).toEqual(posted.json().root_categories);
    expect((await client.getCategories('?mode=draft')).json()).toMatchObject({
      version_no: 2,
      status: 'draft',
      root_categories: live.root_categories,
    });
  });

  it('replaces the draft on every POST and keeps unknown keys and optional fields as sent', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    await client.postCategories(definition(['a']));
    const body = definition(['b']);
    Object.assign(body.root_categories[1]!.sections[0]!.categories[0]!, {
      description: 'B things',
      digest_schedule: { frequency: 'daily', time: '09:00' },
      properties: { weight: 2 },
      visible_to_subscriber: true,
    });
    const posted = (await client.postCategories(body)).json();
    expect(posted.root_categories[1].sections[0].categories).toEqual([
      expect.objectContaining({
        category: 'b',
        description: 'B things',
        digest_schedule: { frequency: 'daily', time: '09:00' },
        properties: { weight: 2 },
        visible_to_subscriber: true,
      }),
    ]);
  });

  it('reports every rule broken in validation_result and refuses to commit such a draft', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const body = {
      root_categories: [
        { root_category: 'system', sections: [{ name: 'S', categories: [category('dup'), category('Bad_Slug')] }] },
        {
          root_category: 'transactional',
          sections: [{ name: 'T', categories: [category('dup'), category('ok', 'maybe')] }],
        },
        { root_category: 'marketing' },
      ],
    };
    const posted = await client.postCategories(body, '?commit=true');
    expect(posted.statusCode).toBe(200);
    expect(posted.json().status).toBe('draft');
    expect(posted.json().validation_result).toEqual({
      is_valid: false,
      errors: [
        "unknown root category 'marketing'; expected 'system', 'transactional' or 'promotional'",
        "root category 'promotional' is missing; all three root categories are required",
        "category slug 'Bad_Slug' is invalid: use lowercase letters and digits separated by single hyphens, at most 64 characters",
        "category slug 'dup' is used more than once",
        "category 'ok' has default_preference 'maybe'; expected opt_in, opt_out or cant_unsubscribe",
      ],
    });
    expect((await client.getCategories()).json().version_no).toBe(0);
    const commit = await client.commitCategories();
    expect(commit.statusCode).toBe(400);
    expect(commit.json()).toEqual({
      code: 400,
      message: expect.stringMatching(
        /^the draft is invalid and cannot be committed: unknown root category 'marketing'/,
      ),
    });
    expect(Object.keys(commit.json())).toEqual(['code', 'message']);
  });

  it('commits with commit=true only when valid, and refuses a commit without changes', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const posted = await client.postCategories(definition(['alerts']), '?commit=true&commit_message=ship');
    expect(posted.json()).toMatchObject({ status: 'active', version_no: 1, commit_message: 'ship' });
    expect((await client.getCategories('?mode=draft')).json().version_no).toBe(2);
    const nothing = await client.commitCategories();
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json()).toEqual({
      code: 400,
      message: 'nothing to commit: the draft has no changes since version 1',
    });
    // A draft identical to live is no change either; posting it with commit=true keeps version 1.
    await client.postCategories(definition(['alerts']));
    expect((await client.commitCategories()).statusCode).toBe(400);
    expect((await client.postCategories(definition(['alerts']), '?commit=true')).json()).toMatchObject({
      status: 'active',
      version_no: 1,
    });
  });

  it('keeps every committed version as history', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    expect(await client.commitDefinition(definition(['a']))).toBe(1);
    expect(await client.commitDefinition(definition(['a', 'b']))).toBe(2);
    expect(await client.commitDefinition(definition(['c']))).toBe(3);
    const history = await t()
      .db.selectFrom('preference_category_versions')
      .select(['version_no', 'root_categories'])
      .where('workspace_id', '=', ws.workspaceId)
      .orderBy('version_no')
      .execute();
    expect(history.map((row) => row.version_no)).toEqual([1, 2, 3]);
    expect(JSON.stringify(history[1]!.root_categories)).toContain('"b"');
    expect((await client.getCategories()).json().version_no).toBe(3);
  });

  it('refuses a malformed body with a short 400', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    for (const body of [
      {},
      { root_categories: 'x' },
      { root_categories: [{ sections: [] }] },
      {
        root_categories: [
          { root_category: 'system', sections: [{ name: 'S', categories: [{ category: 'x', name: 'X' }] }] },
        ],
      },
    ]) {
      const response = await client.postCategories(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(response.json())).toEqual(['code', 'message']);
    }
    expect((await client.postCategories(definition(), '?commit=maybe')).statusCode).toBe(400);
  });

  it('flags a category that an enabled, committed workflow uses when the draft drops it, until the workflow goes', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    await client.commitDefinition(definition(['orders', 'tagged', 'news']));
    expect((await client.postWorkflow('order-shipped', workflowBody('orders'), '?commit=true')).json().status).toBe(
      'active',
    );
    expect((await client.postWorkflow('tag', workflowBody('tagged'), '?commit=true')).json().status).toBe('active');
    // A draft-only workflow and a disabled one do not hold their category.
    await client.postWorkflow('news-draft', workflowBody('news'));

    const dropped = await client.postCategories(definition([]));
    expect(dropped.json().validation_result).toEqual({
      is_valid: false,
      errors: ['subcategories with active workflows were deleted in this version: orders, tagged'],
    });
    expect((await client.commitCategories()).json().message).toBe(
      'the draft is invalid and cannot be committed: subcategories with active workflows were deleted in this version: orders, tagged',
    );

    await client.inject('PATCH', '/workflow/tag/enable/', { is_enabled: false });
    expect((await client.getCategories('?mode=draft')).json().validation_result.errors).toEqual([
      'subcategories with active workflows were deleted in this version: orders',
    ]);
    expect((await client.inject('DELETE', '/workflow/order-shipped/')).statusCode).toBe(204);
    expect((await client.getCategories('?mode=draft')).json().validation_result).toEqual({
      is_valid: true,
      errors: [],
    });
    expect((await client.commitCategories()).json()).toMatchObject({
      status: 'active',
      version_no: 2,
      root_categories: definition([]).root_categories,
    });
  });
});

describe('concurrent preference category commits', () => {
  const t = useTestApp();

  it('never produce two versions with the same number', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    await client.postCategories(definition(['a']));
    const responses = await Promise.all([
      client.commitCategories(),
      client.commitCategories(),
      client.commitCategories(),
    ]);
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 400, 400]);
    const racing = await Promise.all(
      [1, 2, 3, 4].map((n) => client.postCategories(definition([`c${n}`]), '?commit=true')),
    );
    expect(racing.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const versions = await t()
      .db.selectFrom('preference_category_versions')
      .select('version_no')
      .where('workspace_id', '=', ws.workspaceId)
      .orderBy('version_no')
      .execute();
    expect(versions.map((v) => v.version_no)).toEqual([1, 2, 3, 4, 5]);
  });

  it('lets the primary key refuse a second version with the same number', async () => {
    const ws = await createWorkspaceFixture(t());
    const insert = () =>
      t()
        .db.insertInto('preference_category_versions')
        .values({ workspace_id: ws.workspaceId, version_no: 1, root_categories: '[]' })
        .execute();
    await insert();
    await expect(insert()).rejects.toMatchObject({ code: '23505' });
  });
});

describe('the published JSON Schema', () => {
  const t = useTestApp();

  it('is served without authentication and validates what GET returns', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({ method: 'GET', url: '/management/v1/schemas/preference_category.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/schema\+json/);
    const schema = response.json();
    expect(schema).toMatchObject({
      $id: SCHEMA_URL,
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      required: ['root_categories'],
    });

    const { Ajv } = await import('ajv');
    const validate = new Ajv({ strict: false, validateFormats: false }).compile(schema);
    const client = configClient(t, ws);
    const live = (await client.postCategories(definition(['a'], ['b']), '?commit=true')).json();
    expect(validate(live), JSON.stringify(validate.errors)).toBe(true);
    const broken = definition(['Not A Slug']);
    broken.root_categories[1]!.sections[0]!.categories[0]!.default_preference = 'sometimes';
    expect(validate(broken)).toBe(false);
    expect(validate({ root_categories: [{ root_category: 'marketing' }] })).toBe(false);
    // What GET returns can be posted back as it is.
    const roundTrip = await client.postCategories(live);
    expect(roundTrip.statusCode).toBe(200);
    expect(roundTrip.json()).toMatchObject({
      status: 'draft',
      root_categories: live.root_categories,
      validation_result: { is_valid: true },
    });
  });

  it('does not shadow a workspace whose slug is "schemas"', async () => {
    const credentials = await bootstrapWorkspace(t().db, t().secretBox, { slug: 'schemas', actor: null });
    const response = await t().app.inject({
      method: 'GET',
      url: '/management/v1/schemas/preference_category/',
      headers: { authorization: `ServiceToken ${credentials.service_token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().$schema).toBe(SCHEMA_URL);
  });
});
