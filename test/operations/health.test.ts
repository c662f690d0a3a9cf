import { describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp } from '../support/app.js';

describe('health endpoints', () => {
  const t = useTestApp();

  it('answer without credentials: /healthz that the process is up, /readyz that the database answers', async () => {
    const health = await t().app.inject({ method: 'GET', url: '/healthz' });
    expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await t().app.inject({ method: 'GET', url: '/readyz' });
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready' }]);
  });

  // On PostgreSQL, test/faults/database-outage.test.ts cuts the server and the network instead.
  it.runIf(!process.env.DATABASE_URL)(
    '/readyz answers 503 in the full error shape when the embedded database is closed',
    async () => {
      const broken = await buildTestApp();
      try {
        await broken.db.destroy();
        const ready = await broken.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toMatchObject({ code: 503, message: 'the database is not answering' });
        expect(Object.keys(ready.json()).sort()).toEqual(['code', 'detail', 'error_code', 'message', 'type']);
      } finally {
        await broken.app.close();
      }
    },
  );
});
