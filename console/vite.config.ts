import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is built at install (`npm run build:console`) into dist/console/, which Herald serves at /console/.
// Preact through the compiler's automatic JSX runtime: no Babel, no plugin.
const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // No inline script anywhere: the CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
