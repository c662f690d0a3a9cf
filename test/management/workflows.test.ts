import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { liveTemplate } from '../support/templates.js';
import { configClient, definition, workflowBody } from '../support/config.js';

const OPERATOR = { name: 'Test Operator', email: 'ops@example.com' };
const notFound = (message: string) => ({ code: 404, error_code: 'not_found', type: 'NotFound', message, detail: null });

describe('POST/GET /v1/{workspace}/workflow/{slug}/: drafts and live versions', () => {
  const t = useTestApp();

  it('creates a draft that live mode does not see until it is committed', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    await client.commitDefinition(definition(['orders']));
    const created = await client.postWorkflow(
      'order-shipped',
      workflowBody('orders', { description: 'tells the buyer', tags: ['orders'] }),
    );
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      slug: 'order-shipped',
      name: 'Welcome',
      description: 'tells the buyer',
      category: 'orders',
      tags: ['orders'],
      trigger_type: 'api',
      trigger_events: [],
      tree: { nodes: [{ name: 'Send', node_type: 'send_email', properties: { template: 'welcome' } }] },
      is_enabled: true,
      status: 'draft',
      version_no: 1,
      commit_message: null,
      created_at: expect.stringMatching(/\+00:00$/),
      updated_at: expect.stringMatching(/\+00:00$/),
      updated_by: OPERATOR,
      active_at: null,
      last_executed_at: null,
      payload_schema: null,
      validation_result: { is_valid: true, errors: [] },
    });
    expect((await client.getWorkflow('order-shipped')).json()).toEqual(created.json());
    const live = await client.getWorkflow('order-shipped', '?mode=live');
    expect(live.statusCode).toBe(404);
    expect(live.json()).toEqual(notFound("workflow 'order-shipped' has no live version: it was never committed"));
    expect((await client.inject('GET', '/workflow/?mode=live')).json()).toEqual({
      meta: { count: 0, limit: 20, offset: 0 },
      results: [],
    });

    const committed = await client.commitWorkflow('order-shipped', '?commit_message=first');
    expect(committed.statusCode).toBe(202);
    expect(committed.json()).toMatchObject({
      status: 'active',
      version_no: 1,
      commit_message: 'first',
      updated_by: OPERATOR,
      active_at: expect.stringMatching(/\+00:00$/),
    });
    expect((await client.getWorkflow('order-shipped', '?mode=live')).json()).toEqual(committed.json());

    await client.postWorkflow('order-shipped', workflowBody('orders', { name: 'Shipped v2' }));
    expect((await client.getWorkflow('order-shipped')).json()).toMatchObject({
      name: 'Shipped v2',
      status: 'draft',
      version_no: 2,
    });
    expect((await client.getWorkflow('order-shipped', '?mode=live')).json()).toMatchObject({
      name: 'Welcome',
      version_no: 1,
    });
    // A workflow as GET returns it can be posted back: the fields Herald does not take are ignored.
    const fetched = (await client.getWorkflow('order-shipped')).json();
    expect(
      (await client.postWorkflow('order-shipped', { ...fetched, ratelimit: null, conditions: [] })).json(),
    ).toEqual({ ...fetched, updated_at: expect.any(String) });
    const second = await client.commitWorkflow('order-shipped', '', { commit_message: 'from the body' });
    expect(second.json()).toMatchObject({ name: 'Shipped v2', version_no: 2, commit_message: 'from the body' });
    const versions = await t()
      .db.selectFrom('workflow_versions')
      .innerJoin('workflows', 'workflows.id', 'workflow_versions.workflow_id')
      .select(['version_no', 'workflow_versions.name', 'committed_by'])
      .where('workflows.workspace_id', '=', ws.workspaceId)
      .orderBy('version_no')
      .execute();
    expect(versions).toEqual([
      { version_no: 1, name: 'Welcome', committed_by: OPERATOR },
      { version_no: 2, name: 'Shipped v2', committed_by: OPERATOR },
    ]);
  });

  it('accepts root categories as a workflow category and reports every broken rule in validation_result', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    expect((await client.postWorkflow('sys', workflowBody('system'))).json().validation_result).toEqual({
      is_valid: true,
      errors: [],
    });
    const invalid = await client.postWorkflow(
      'broken',
      workflowBody('nope', { trigger_type: 'event', tree: { nodes: [{ name: 'x' }, 'y'] } }),
      '?commit=true',
    );
    expect(invalid.statusCode).toBe(201);
    expect(invalid.json()).toMatchObject({ status: 'draft', version_no: 1 });
    expect(invalid.json().validation_result).toEqual({
      is_valid: false,
      errors: [
        "category 'nope' does not exist in the live preference categories",
        "trigger_events must name at least one event when trigger_type is 'event'",
        'tree.nodes[0] must be an object with a node_type string',
        'tree.nodes[1] must be an object with a node_type string',
      ],
    });
    for (const tree of [null, [], 'x', {}, { nodes: {} }]) {
      const response = await client.postWorkflow('tree', workflowBody('system', { tree }));
      expect(response.json().validation_result.errors, JSON.stringify(tree)).toEqual([
        'tree must be an object with a nodes array',
      ]);
    }
    const commit = await client.commitWorkflow('broken');
    expect(commit.statusCode).toBe(400);
    expect(commit.json()).toMatchObject({
      code: 400,
      error_code: 'validation_error',
      type: 'ValidationError',
      message:
        "workflow 'broken' is invalid and cannot be committed: category 'nope' does not exist in the live preference categories; trigger_events must name at least one event when trigger_type is 'event'; tree.nodes[0] must be an object with a node_type string; tree.nodes[1] must be an object with a node_type string",
    });
    expect(commit.json().detail.errors).toHaveLength(4);
    expect((await client.getWorkflow('broken', '?mode=live')).statusCode).toBe(404);

    // Valid once the category exists live and the event is named.
    await client.commitDefinition(definition(['nope']));
    await client.postWorkflow(
      'broken',
      workflowBody('nope', { trigger_type: 'event', trigger_events: ['order.paid'] }),
    );
    expect((await client.commitWorkflow('broken')).json()).toMatchObject({
      status: 'active',
      trigger_events: ['order.paid'],
      version_no: 1,
    });
  });

  it('refuses to commit a delivery node whose template does not exist or has only a draft, naming the node', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const templates = (method: 'POST' | 'PATCH', path: string, body: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}${path}`,
        headers: ws.management,
        payload: body as object,
      });
    // Only a draft: no committed version yet.
    expect(
      (await templates('POST', '/template/drafted/', { name: 'Drafted', enabled_channels: ['inbox'] })).statusCode,
    ).toBe(200);
    const body = workflowBody('system', {
      tree: {
        nodes: [
          { name: 'Mail', node_type: 'send_email', properties: { template: 'missing' } },
          {
            name: 'Split',
            node_type: 'branch',
            branches: [
              {
                name: 'vip',
                conditions: [
                  {
                    type: 'expression_v1',
                    expression_v1: { op: 'AND', args: [{ variable_ns: '', variable: 'vip', op: '==', value: 'true' }] },
                  },
                ],
                nodes: [],
              },
              {
                name: 'rest',
                is_default: true,
                nodes: [{ name: 'Note', node_type: 'send_inbox', template: 'drafted' }],
              },
            ],
          },
        ],
      },
    });
    // Saved as is (the client's postWorkflow would commit the missing templates first).
    const saved = await client.inject('POST', '/workflow/notes/', body);
    expect(saved.statusCode).toBe(201);
    const errors = [
      "tree.nodes[0] (send_email): template 'missing' does not exist",
      "tree.nodes[1].branches[1].nodes[0] (send_inbox): template 'drafted' has no committed version (commit it first)",
    ];
    expect(saved.json().validation_result).toEqual({ is_valid: false, errors });
    const refused = await client.commitWorkflow('notes');
    expect(refused.json()).toEqual({
      code: 400,
      error_code: 'validation_error',
      type: 'ValidationError',
      message: `workflow 'notes' is invalid and cannot be committed: ${errors.join('; ')}`,
      detail: { errors },
    });
    const withCommit = await client.inject('POST', '/workflow/notes/?commit=true', body);
    expect(withCommit.json()).toMatchObject({ status: 'draft', validation_result: { is_valid: false, errors } });
    expect((await client.getWorkflow('notes', '?mode=live')).statusCode).toBe(404);

    // Positive control: once both templates have a committed version, the same draft commits.
    await liveTemplate(t, ws, 'missing', ['email']);
    expect(
      (
        await templates('POST', '/template/drafted/channel/inbox/variant/default/', {
          locale: 'en',
          content: { text: 'Hi' },
        })
      ).statusCode,
    ).toBeLessThan(300);
    expect((await templates('PATCH', '/template/drafted/commit/', {})).statusCode).toBe(200);
    const committed = await client.commitWorkflow('notes');
    expect(committed.statusCode).toBe(202);
    expect(committed.json()).toMatchObject({
      status: 'active',
      version_no: 1,
      validation_result: { is_valid: true, errors: [] },
    });
  });

  it('refuses a malformed slug or body with the full 400 and stores nothing', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const badSlug = await client.postWorkflow('Bad%20Slug', workflowBody('system'));
    expect(badSlug.statusCode).toBe(400);
    expect(badSlug.json()).toEqual({
      code: 400,
      error_code: 'validation_error',
      type: 'ValidationError',
      message: "workflow slug 'Bad Slug' is invalid: use lowercase letters, digits, - and _",
      detail: { slug: 'is invalid' },
    });
    for (const body of [
      { ...workflowBody('system'), trigger_type: 'cron' },
      { category: 'system', trigger_type: 'api', tree: {} },
      { ...workflowBody('system'), tags: [{}] },
    ]) {
      const response = await client.postWorkflow('ok', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error_code).toBe('validation_error');
    }
    expect((await client.inject('GET', '/workflow/')).json().meta.count).toBe(0);
  });

  it('refuses a commit without changes, and commit=true on an unchanged workflow keeps its version', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    expect(
      (await client.postWorkflow('w', workflowBody('system'), '?commit=true&commit_message=go')).json(),
    ).toMatchObject({ status: 'active', version_no: 1, commit_message: 'go' });
    const again = await client.commitWorkflow('w');
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe("workflow 'w' has no changes to commit since version 1");
    expect((await client.postWorkflow('w', workflowBody('system'), '?commit=true')).json()).toMatchObject({
      status: 'active',
      version_no: 1,
    });
    expect((await client.commitWorkflow('ghost')).json()).toEqual(notFound("workflow 'ghost' not found"));
  });

  it('answers 401 and an unknown workspace in the full shape', async () => {
    const ws = await createWorkspaceFixture(t());
    const anonymous = await t().app.inject({ method: 'GET', url: `/management/v1/${ws.slug}/workflow/` });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({
      code: 401,
      error_code: 'authentication_failed',
      type: 'AuthenticationFailed',
    });
    const unknown = await t().app.inject({
      method: 'DELETE',
      url: '/management/v1/no-such-ws/workflow/x/',
      headers: ws.management,
    });
    expect(unknown.json()).toEqual(notFound("workspace 'no-such-ws' not found"));
  });
});

describe('GET /v1/{workspace}/workflow/: lists', () => {
  const t = useTestApp();

  it('lists drafts by default, live versions on request, filtered by slugs and paged', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    for (const slug of ['c', 'a', 'b', 'd'])
      await client.postWorkflow(slug, workflowBody('system', { name: `wf ${slug}` }));
    await client.commitWorkflow('b');
    await client.commitWorkflow('d');
    await client.postWorkflow('b', workflowBody('system', { name: 'b draft' }));

    const drafts = (await client.inject('GET', '/workflow/')).json();
    expect(drafts.meta).toEqual({ count: 4, limit: 20, offset: 0 });
    expect(
      drafts.results.map((w: { slug: string; name: string; status: string }) => [w.slug, w.name, w.status]),
    ).toEqual([
      ['a', 'wf a', 'draft'],
      ['b', 'b draft', 'draft'],
      ['c', 'wf c', 'draft'],
      ['d', 'wf d', 'draft'],
    ]);
    const live = (await client.inject('GET', '/workflow/?mode=live')).json();
    expect(live.meta.count).toBe(2);
    expect(
      live.results.map((w: { slug: string; name: string; status: string; version_no: number }) => [
        w.slug,
        w.name,
        w.status,
        w.version_no,
      ]),
    ).toEqual([
      ['b', 'wf b', 'active', 1],
      ['d', 'wf d', 'active', 1],
    ]);
    const filtered = (await client.inject('GET', '/workflow/?slugs=d,%20a,zz&limit=1&offset=1')).json();
    expect(filtered.meta).toEqual({ count: 2, limit: 1, offset: 1 });
    expect(filtered.results.map((w: { slug: string }) => w.slug)).toEqual(['d']);
    expect((await client.inject('GET', '/workflow/?slugs=')).json().meta.count).toBe(4);
    for (const query of ['mode=all', 'limit=0', 'offset=-1'])
      expect((await client.inject('GET', `/workflow/?${query}`)).statusCode, query).toBe(400);
  });
});

describe('PATCH /v1/{workspace}/workflow/{slug}/enable/', () => {
  const t = useTestApp();

  it('disables and re-enables at once, live status following', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    await client.postWorkflow('w', workflowBody('system'), '?commit=true');
    const disabled = await client.inject('PATCH', '/workflow/w/enable/', { is_enabled: false });
    expect(disabled.statusCode).toBe(202);
    expect(disabled.json()).toMatchObject({ slug: 'w', is_enabled: false, status: 'draft', updated_by: OPERATOR });
    expect((await client.getWorkflow('w', '?mode=live')).json()).toMatchObject({
      is_enabled: false,
      status: 'inactive',
    });
    await client.inject('PATCH', '/workflow/w/enable/', { is_enabled: true });
    expect((await client.getWorkflow('w', '?mode=live')).json()).toMatchObject({ is_enabled: true, status: 'active' });
    expect((await client.postWorkflow('w', workflowBody('system', { is_enabled: false }))).json().is_enabled).toBe(
      false,
    );
    // null is "not given", never coerced into false, "" or [""].
    const nulls = (
      await client.postWorkflow(
        'w',
        workflowBody('system', { is_enabled: null, tags: null, trigger_events: null, description: null }),
      )
    ).json();
    expect(nulls).toMatchObject({ is_enabled: false, tags: [], trigger_events: [], description: null });
    await client.inject('PATCH', '/workflow/w/enable/', { is_enabled: true });
    expect((await client.postWorkflow('w', workflowBody('system', { is_enabled: null }))).json().is_enabled).toBe(true);
    expect((await client.inject('PATCH', '/workflow/w/enable/', {})).statusCode).toBe(400);
    expect((await client.inject('PATCH', '/workflow/ghost/enable/', { is_enabled: true })).json()).toEqual(
      notFound("workflow 'ghost' not found"),
    );
  });
});

describe('DELETE /v1/{workspace}/workflow/{slug}/ (state table: exists → removed permanently)', () => {
  const t = useTestApp();

  it('removes the draft, the live version and the history, with an empty 204', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    await client.postWorkflow('gone', workflowBody('system'), '?commit=true');
    await client.postWorkflow('gone', workflowBody('system', { name: 'v2' }), '?commit=true');
    await client.postWorkflow('kept', workflowBody('system'));
    const deleted = await client.inject('DELETE', '/workflow/gone/');
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    for (const mode of ['draft', 'live'])
      expect((await client.getWorkflow('gone', `?mode=${mode}`)).statusCode, mode).toBe(404);
    const versions = await t()
      .db.selectFrom('workflow_versions')
      .innerJoin('workflows', 'workflows.id', 'workflow_versions.workflow_id')
      .select('version_no')
      .where('workflows.workspace_id', '=', ws.workspaceId)
      .execute();
    expect(versions).toEqual([]);
    expect((await client.inject('GET', '/workflow/')).json().results.map((w: { slug: string }) => w.slug)).toEqual([
      'kept',
    ]);

    const again = await client.inject('DELETE', '/workflow/gone/');
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(notFound("workflow 'gone' not found"));
    // The slug is free again: a new workflow starts over at version 1.
    expect((await client.postWorkflow('gone', workflowBody('system'), '?commit=true')).json().version_no).toBe(1);
  });

  it('leaves other workspaces alone', async () => {
    const mine = await createWorkspaceFixture(t());
    const theirs = await createWorkspaceFixture(t());
    await configClient(t, theirs).postWorkflow('shared-slug', workflowBody('system'));
    expect((await configClient(t, mine).inject('DELETE', '/workflow/shared-slug/')).statusCode).toBe(404);
    expect((await configClient(t, theirs).getWorkflow('shared-slug')).statusCode).toBe(200);
  });
});

describe('concurrent workflow commits', () => {
  const t = useTestApp();

  it('never produce two versions with the same number', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    await client.postWorkflow('race', workflowBody('system'));
    const commits = await Promise.all([
      client.commitWorkflow('race'),
      client.commitWorkflow('race'),
      client.commitWorkflow('race'),
    ]);
    expect(commits.map((r) => r.statusCode).sort()).toEqual([202, 400, 400]);
    const upserts = await Promise.all(
      [1, 2, 3, 4].map((n) => client.postWorkflow('race', workflowBody('system', { name: `n${n}` }), '?commit=true')),
    );
    expect(upserts.map((r) => r.statusCode)).toEqual([201, 201, 201, 201]);
    const versions = await t()
      .db.selectFrom('workflow_versions')
      .innerJoin('workflows', 'workflows.id', 'workflow_versions.workflow_id')
      .select('version_no')
      .where('workflows.workspace_id', '=', ws.workspaceId)
      .orderBy('version_no')
      .execute();
    expect(versions.map((v) => v.version_no)).toEqual([1, 2, 3, 4, 5]);
    expect((await client.getWorkflow('race', '?mode=live')).json().version_no).toBe(5);
  });
});
