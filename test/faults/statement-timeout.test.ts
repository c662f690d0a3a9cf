import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { toHttpError } from '../../src/errors.js';
import { TEST_SECRET_KEY } from '../support/app.js';

const DATABASE_URL = process.env.DATABASE_URL;

// Statement timeouts are PostgreSQL's; PGlite cannot interrupt a running statement.
describe.runIf(DATABASE_URL)('statement timeout', () => {
  it('bounds every statement of the serving pool and answers 503 when it fires', async () => {
    const config = loadConfig({ DATABASE_URL, SECRET_KEY: TEST_SECRET_KEY, DATABASE_STATEMENT_TIMEOUT_MS: '200' });
    const database = await openDatabase(config);
    try {
      const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(database.db);
      expect(rows[0]!.statement_timeout).toBe('200ms');
      const started = Date.now();
      const error = await sql`select pg_sleep(2)`.execute(database.db).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeLessThan(1500);
      expect((error as { code?: string }).code).toBe('57014');
      expect(toHttpError(error)).toMatchObject({ status: 503, errorCode: 'service_unavailable' });
    } finally {
      await database.close();
    }
  });
});
