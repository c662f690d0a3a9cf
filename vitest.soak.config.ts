import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:soak`: the concurrency soak at full length (CI runs it for 3 s with the rest of the suite). */
const soak = mergeConfig(base, defineConfig({ test: { env: { SOAK_SECONDS: '20' }, testTimeout: 300_000 } }));
// mergeConfig concatenates arrays: the soak alone, not the suite plus the soak.
soak.test!.include = ['test/soak/**/*.test.ts'];
export default soak;
