#!/usr/bin/env node
// The CLI is TypeScript compiled to dist/ by `npm ci` (prepare) or `npm run build`.
import('../dist/src/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('herald: dist/ is missing; run `npm run build` first');
    process.exit(1);
  }
  throw error;
});
