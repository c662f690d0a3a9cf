import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';

describe('preference category translations', () => {
  const t = useTestApp();

  it('stores, lists, reads, replaces and deletes a locale, in the short error shape', async () => {
    const ws = await createWorkspaceFixture(t());
    const { inject } = configClient(t, ws);
    const url = (locale: string) => `/preference_category/translation/content/${locale}/`;
    expect((await inject('GET', '/preference_category/translation/locale/')).json()).toEqual({ results: [] });
    const es = {
      sections: { Account: { name: 'Cuenta' } },
      categories: { 'password-reset': { name: 'Restablecimiento de Contraseña', description: null } },
    };
    const saved = await inject('POST', url('es'), es);
    expect([saved.statusCode, saved.json()]).toEqual([200, es]);
    await inject('POST', url('fr-CA'), { categories: { 'password-reset': { name: 'Mot de passe' } } });
    expect((await inject('GET', '/preference_category/translation/locale/')).json()).toEqual({
      results: [{ locale: 'es' }, { locale: 'fr-CA' }],
    });
    expect((await inject('GET', url('es'))).json()).toEqual(es);
    // A new upload replaces the locale's names.
    await inject('POST', url('es'), { sections: { Account: { name: 'Mi cuenta' } } });
    expect((await inject('GET', url('es'))).json()).toEqual({
      sections: { Account: { name: 'Mi cuenta' } },
      categories: {},
    });

    expect((await inject('DELETE', url('es'))).statusCode).toBe(204);
    const gone = await inject('GET', url('es'));
    expect([gone.statusCode, gone.json()]).toEqual([
      404,
      { code: 404, message: 'translation not found for locale: es' },
    ]);
    expect((await inject('DELETE', url('es'))).statusCode).toBe(404);
    const bad = await inject('POST', url('apl!'), {});
    expect([bad.statusCode, bad.json()]).toEqual([400, { code: 400, message: "invalid/unsupported locale: 'apl!'" }]);
    const extra = await inject('POST', url('de'), { sections: { A: { name: 'x', colour: 'red' } } });
    expect(extra.statusCode).toBe(400);
  });
});
