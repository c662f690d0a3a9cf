import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

// PGlite's protocol parser decodes each text field with a TextDecoder that drops a leading U+FEFF;
// patches/@electric-sql+pglite+*.patch makes it keep it, so both engines return what was stored.
describe('text comes back as it was stored, on either engine', () => {
  const t = useTestApp();
  const samples = ['\uFEFFbom', '\uFEFF', '\uFEFF\uFEFFtwo', 'mid\uFEFFdle', 'é😀\u0301'];

  it('round-trips text that starts with a byte-order mark, also after a failed statement', async () => {
    await expect(sql`select 1/0`.execute(t().db)).rejects.toThrow();
    for (const value of samples) {
      const { rows } = await sql<{ value: string }>`select ${value}::text as value`.execute(t().db);
      expect(rows[0]!.value, JSON.stringify(value)).toBe(value);
    }
  });

  it('creates and finds a user whose distinct_id starts with a byte-order mark', async () => {
    const ws = await createWorkspaceFixture(t());
    const url = `/v1/user/${encodeURIComponent('\uFEFFbom')}/`;
    const created = await t().app.inject({ method: 'POST', url, headers: ws.base, payload: { name: '\uFEFFname' } });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const found = await t().app.inject({ method: 'GET', url, headers: ws.base });
    expect(found.statusCode).toBe(200);
    expect(found.json()).toMatchObject({ distinct_id: '\uFEFFbom', properties: { name: '\uFEFFname' } });
  });
});
