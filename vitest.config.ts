import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One PGlite per file is heavy on two cores; PostgreSQL takes more at once.
    maxWorkers: process.env.DATABASE_URL ? 4 : 2,
  },
});
