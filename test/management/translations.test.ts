import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';

const notFound = (message: string) => ({ code: 404, error_code: 'not_found', type: 'NotFound', message, detail: null });
const FR = { welcome: 'Bienvenue', task: { created: 'Tâche créée', due: 'Tâche due' } };

function translations(t: Parameters<typeof configClient>[0], ws: WorkspaceFixture) {
  const { inject } = configClient(t, ws);
  return {
    upload: (file: string, body: unknown) => inject('POST', `/translation/content/${file}/`, body),
    get: (file: string, query = '') => inject('GET', `/translation/content/${file}/${query}`),
    remove: (file: string) => inject('DELETE', `/translation/content/${file}/`),
    list: (query = '') => inject('GET', `/translation/${query}`),
    commit: (query = '') => inject('PATCH', `/translation/commit/${query}`),
    actions: async (query = '') =>
      Object.fromEntries(
        (await inject('GET', `/translation/${query}`))
          .json()
          .results.map((f: { filename: string; action: string }) => [f.filename, f.action]),
      ),
  };
}

describe('translation uploads and reads', () => {
  const t = useTestApp();

  it('uploads into the draft with nested content; live mode sees it only after a commit', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    const uploaded = await tr.upload('fr.json', { locale: 'fr', content: FR });
    expect(uploaded.statusCode).toBe(201);
    expect(uploaded.json()).toEqual({
      filename: 'fr.json',
      locale: 'fr',
      namespace: null,
      action: 'added',
      updated_at: expect.stringMatching(/\+00:00$/),
      content: FR,
    });
    expect((await tr.get('fr.json')).json()).toEqual(uploaded.json());
    expect((await tr.get('fr.json', '?mode=live')).json()).toEqual(
      notFound("translation file 'fr.json' not found in live mode"),
    );
    expect((await tr.list('?mode=live')).json()).toEqual({ meta: { count: 0, limit: 20, offset: 0 }, results: [] });

    const committed = await tr.commit('?commit_message=french');
    expect(committed.statusCode).toBe(202);
    expect(committed.json()).toEqual({
      version_no: 1,
      commit_message: 'french',
      meta: { count: 1, limit: null, offset: null },
      results: [
        {
          filename: 'fr.json',
          locale: 'fr',
          namespace: null,
          action: 'added',
          updated_at: expect.stringMatching(/\+00:00$/),
        },
      ],
    });
    expect((await tr.get('fr.json', '?mode=live')).json()).toMatchObject({ content: FR, action: 'added' });
    expect((await tr.get('fr.json')).json()).toMatchObject({ content: FR, action: 'unchanged' });
  });

  it('parses namespace and locale from the file name and refuses other names naming the rule', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    expect((await tr.upload('auth.en.json', { locale: 'en', content: {} })).json()).toMatchObject({
      filename: 'auth.en.json',
      locale: 'en',
      namespace: 'auth',
    });
    expect((await tr.upload('es-MX.json', { locale: 'es-MX.json', content: { a: 'b' } })).json()).toMatchObject({
      locale: 'es-MX',
      namespace: null,
    });
    expect((await tr.upload('zh-Hant-TW.json', { content: { a: 'b' } })).json()).toMatchObject({
      locale: 'zh-Hant-TW',
    });
    for (const name of ['fr.txt', 'french.json', 'en_US.json', 'a.b.en.json', '.json', 'EN.json']) {
      const response = await tr.upload(name, { locale: 'fr', content: {} });
      expect(response.statusCode, name).toBe(400);
      expect(response.json()).toMatchObject({
        error_code: 'validation_error',
        message: `locale_file '${name}' is invalid: name it <locale>.json or <namespace>.<locale>.json, with a locale such as fr, es-MX or zh-Hant-TW`,
      });
    }
    const mismatch = await tr.upload('fr.json', { locale: 'de', content: {} });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().message).toBe("locale 'de' does not match the file 'fr.json', whose locale is 'fr'");
    for (const content of ['text', ['a'], null, 3]) {
      const response = await tr.upload('fr.json', { locale: 'fr', content });
      expect(response.statusCode, JSON.stringify(content)).toBe(400);
      expect(response.json().detail).toHaveProperty('content');
    }
    expect((await tr.list()).json().meta.count).toBe(3);
  });

  it('reports added, updated, deleted and unchanged against live, and lists pages in file name order', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    for (const file of ['de.json', 'en.json', 'fr.json']) await tr.upload(file, { content: { hello: file } });
    await tr.commit();
    await tr.upload('en.json', { content: { hello: 'changed' } });
    await tr.upload('de.json', { content: { hello: 'de.json' } });
    await tr.upload('it.json', { content: { ciao: 'ciao' } });
    expect((await tr.remove('fr.json')).statusCode).toBe(204);
    expect(await tr.actions()).toEqual({
      'de.json': 'unchanged',
      'en.json': 'updated',
      'fr.json': 'deleted',
      'it.json': 'added',
    });
    const page = (await tr.list('?limit=2&offset=1')).json();
    expect(page.meta).toEqual({ count: 4, limit: 2, offset: 1 });
    expect(page.results.map((f: { filename: string }) => f.filename)).toEqual(['en.json', 'fr.json']);
    expect(await tr.actions('?mode=live')).toEqual({ 'de.json': 'added', 'en.json': 'added', 'fr.json': 'added' });
    expect((await tr.list('?mode=everything')).statusCode).toBe(400);
  });
});

describe('DELETE translation (state table: present → marked for deletion → removed on commit)', () => {
  const t = useTestApp();

  it('marks a live file for deletion, keeps serving it live, and removes it at the next commit', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    await tr.upload('fr.json', { content: FR });
    await tr.upload('en.json', { content: { welcome: 'Welcome' } });
    await tr.commit();

    const deleted = await tr.remove('fr.json');
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await tr.get('fr.json')).json()).toMatchObject({ action: 'deleted', content: FR });
    expect((await tr.get('fr.json', '?mode=live')).json()).toMatchObject({ content: FR });
    expect(await tr.actions('?mode=live')).toEqual({ 'en.json': 'added', 'fr.json': 'added' });
    // Marking again is harmless: the file stays marked.
    expect((await tr.remove('fr.json')).statusCode).toBe(204);

    const committed = await tr.commit('?commit_message=drop%20french');
    expect(committed.json()).toMatchObject({
      version_no: 2,
      commit_message: 'drop french',
      results: [{ filename: 'fr.json', action: 'deleted' }],
    });
    for (const query of ['', '?mode=live'])
      expect((await tr.get('fr.json', query)).json()).toEqual(
        notFound("translation file 'fr.json' not found" + (query ? ' in live mode' : '')),
      );
    expect(await tr.actions()).toEqual({ 'en.json': 'unchanged' });
    expect(await tr.actions('?mode=live')).toEqual({ 'en.json': 'added' });
    expect((await tr.remove('fr.json')).json()).toEqual(notFound("translation file 'fr.json' not found"));
  });

  it('discards an upload that was never committed, and a new upload revives a marked file', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    await tr.upload('fr.json', { content: FR });
    expect((await tr.remove('fr.json')).statusCode).toBe(204);
    expect((await tr.get('fr.json')).statusCode).toBe(404);
    expect((await tr.commit()).statusCode).toBe(400);

    await tr.upload('en.json', { content: { a: '1' } });
    await tr.commit();
    await tr.remove('en.json');
    await tr.upload('en.json', { content: { a: '2' } });
    expect(await tr.actions()).toEqual({ 'en.json': 'updated' });
    expect((await tr.commit()).json().results).toEqual([
      expect.objectContaining({ filename: 'en.json', action: 'updated' }),
    ]);
    expect((await tr.get('en.json', '?mode=live')).json()).toMatchObject({ action: 'updated', content: { a: '2' } });
  });

  it('answers an unknown file, a workspace and a missing token with the full shape', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    expect((await tr.remove('xx.json')).json()).toEqual(notFound("translation file 'xx.json' not found"));
    expect(
      (
        await t().app.inject({
          method: 'DELETE',
          url: '/management/v1/no-such-ws/translation/content/fr.json/',
          headers: ws.management,
        })
      ).json(),
    ).toEqual(notFound("workspace 'no-such-ws' not found"));
    const anonymous = await t().app.inject({
      method: 'DELETE',
      url: `/management/v1/${ws.slug}/translation/content/fr.json/`,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error_code: 'authentication_failed', type: 'AuthenticationFailed' });
  });
});

describe('translation commits', () => {
  const t = useTestApp();

  it('refuses a commit with nothing pending, records the author, and keeps every version', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    const nothing = await tr.commit();
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json()).toMatchObject({
      error_code: 'validation_error',
      message: 'nothing to commit: no translation file changed since the last commit',
    });
    await tr.upload('fr.json', { content: { a: '1' } });
    await tr.commit();
    await tr.upload('fr.json', { content: { a: '1' } });
    expect((await tr.commit()).statusCode).toBe(400);
    await tr.upload('fr.json', { content: { a: '2' } });
    await tr.commit();
    const versions = await t()
      .db.selectFrom('translation_versions')
      .select(['version_no', 'changes', 'committed_by'])
      .where('workspace_id', '=', ws.workspaceId)
      .orderBy('version_no')
      .execute();
    expect(versions).toEqual([
      {
        version_no: 1,
        changes: [{ filename: 'fr.json', action: 'added', content: { a: '1' } }],
        committed_by: { name: 'Test Operator', email: 'ops@example.com' },
      },
      {
        version_no: 2,
        changes: [{ filename: 'fr.json', action: 'updated', content: { a: '2' } }],
        committed_by: { name: 'Test Operator', email: 'ops@example.com' },
      },
    ]);
    const drafted = await t()
      .db.selectFrom('translation_files')
      .select('draft_updated_by')
      .where('workspace_id', '=', ws.workspaceId)
      .executeTakeFirstOrThrow();
    expect(drafted.draft_updated_by).toEqual({ name: 'Test Operator', email: 'ops@example.com' });
  });

  it('never produce two versions with the same number when they race', async () => {
    const ws = await createWorkspaceFixture(t());
    const tr = translations(t, ws);
    for (const file of ['de.json', 'en.json', 'fr.json'])
      expect((await tr.upload(file, { content: { k: file } })).statusCode).toBe(201);
    const commits = await Promise.all([tr.commit(), tr.commit(), tr.commit()]);
    expect(commits.map((r) => r.statusCode).sort()).toEqual([202, 400, 400]);
    expect(commits.find((r) => r.statusCode === 202)!.json().meta.count).toBe(3);
    const rounds = await Promise.all(
      ['it.json', 'nl.json'].map(async (file) => {
        await tr.upload(file, { content: { k: file } });
        return tr.commit();
      }),
    );
    expect(rounds.map((r) => r.statusCode)).toContain(202);
    const versions = await t()
      .db.selectFrom('translation_versions')
      .select('version_no')
      .where('workspace_id', '=', ws.workspaceId)
      .orderBy('version_no')
      .execute();
    expect(versions.map((v) => v.version_no)).toEqual(versions.map((_, i) => i + 1));
    expect(await tr.actions()).toEqual({
      'de.json': 'unchanged',
      'en.json': 'unchanged',
      'fr.json': 'unchanged',
      'it.json': 'unchanged',
      'nl.json': 'unchanged',
    });
  });
});
