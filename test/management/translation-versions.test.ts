import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';

describe('translation versions and rollback', () => {
  const t = useTestApp();

  async function history() {
    const ws = await createWorkspaceFixture(t());
    const { inject } = configClient(t, ws);
    const upload = (file: string, content: unknown) => inject('POST', `/translation/content/${file}/`, { content });
    // v1: fr and de added; v2: fr updated, es added; v3: de deleted.
    await upload('fr.json', { hello: 'Bonjour' });
    await upload('de.json', { hello: 'Hallo' });
    expect((await inject('PATCH', '/translation/commit/')).statusCode).toBe(202);
    await upload('fr.json', { hello: 'Salut' });
    await upload('auth.es-MX.json', { hello: 'Hola' });
    await inject('PATCH', '/translation/commit/');
    await inject('DELETE', '/translation/content/de.json/');
    await inject('PATCH', '/translation/commit/');
    return { ws, inject };
  }

  const summary = (body: { results: { filename: string; action: string }[] }) =>
    body.results.map((file) => [file.filename, file.action]);

  it('shows each version as it left the files, with what that version did to each', async () => {
    const { inject } = await history();
    const v1 = await inject('GET', '/translation/version/1/');
    expect(v1.statusCode).toBe(200);
    expect(v1.json().results).toEqual([
      {
        filename: 'de.json',
        locale: 'de',
        locale_name: 'German',
        namespace: null,
        action: 'added',
        updated_at: expect.stringMatching(/\+00:00$/),
      },
      expect.objectContaining({ filename: 'fr.json', locale_name: 'French', action: 'added' }),
    ]);
    expect(summary((await inject('GET', '/translation/version/2/')).json())).toEqual([
      ['auth.es-MX.json', 'added'],
      ['de.json', 'unchanged'],
      ['fr.json', 'updated'],
    ]);
    const v3 = (await inject('GET', '/translation/version/3/?limit=2')).json();
    expect(v3.meta).toEqual({ count: 3, limit: 2, offset: 0 });
    expect(summary(v3)).toEqual([
      ['auth.es-MX.json', 'unchanged'],
      ['de.json', 'deleted'],
    ]);
    expect(v3.results[0]).toMatchObject({ locale: 'es-MX', namespace: 'auth', locale_name: 'Mexican Spanish' });
    const missing = await inject('GET', '/translation/version/4/');
    expect([missing.statusCode, missing.json().message]).toEqual([404, 'translation version 4 not found']);
  });

  it('rolls back to a version as a new committed version, discarding pending draft changes', async () => {
    const { inject } = await history();
    await inject('POST', '/translation/content/it.json/', { content: { hello: 'Ciao' } });
    const rolled = await inject('POST', '/translation/version/1/rollback/');
    expect(rolled.statusCode).toBe(200);
    expect(rolled.json().version_no).toBe(4);
    expect(summary(rolled.json())).toEqual([
      ['auth.es-MX.json', 'deleted'],
      ['de.json', 'added'],
      ['fr.json', 'updated'],
    ]);
    const live = (await inject('GET', '/translation/?mode=live')).json().results;
    expect(live.map((f: { filename: string }) => f.filename)).toEqual(['de.json', 'fr.json']);
    expect((await inject('GET', '/translation/content/fr.json/?mode=live')).json().content).toEqual({
      hello: 'Bonjour',
    });
    // The draft now equals live: the pending it.json upload is gone, nothing is left to commit.
    expect((await inject('GET', '/translation/')).json().results.map((f: { action: string }) => f.action)).toEqual([
      'unchanged',
      'unchanged',
    ]);
    const again = await inject('POST', '/translation/version/1/rollback/');
    expect([again.statusCode, again.json().message]).toEqual([
      400,
      'nothing to roll back: the live translations are those of version 1',
    ]);
    expect((await inject('POST', '/translation/version/9/rollback/')).statusCode).toBe(404);
  });
});
