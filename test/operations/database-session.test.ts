import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

// Herald's statements are short OLTP work: JIT compilation would cost more than it saves (BENCHMARKS.md).
describe.runIf(process.env.DATABASE_URL)('PostgreSQL sessions', () => {
  const t = useTestApp();

  it('run with JIT compilation off, on every pooled connection', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => sql<{ jit: string }>`show jit`.execute(t().db)));
    expect(answers.map((answer) => answer.rows[0]!.jit)).toEqual(['off', 'off', 'off', 'off']);
  });
});
