// ESLint: typescript-eslint's recommended rules, and the layer arrows of docs/ARCHITECTURE.md as an
// import-boundary rule (eslint-plugin-boundaries): an import that runs back up the layers fails.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

/** Each layer of src/ and the layers it may import (its own always). Keep in step with docs/ARCHITECTURE.md. */
const layers = {
  crypto: { pattern: 'src/crypto/**', imports: [] },
  ids: { pattern: 'src/ids.ts', imports: [] },
  errors: { pattern: 'src/errors.ts', imports: [] },
  config: { pattern: 'src/config.ts', imports: [] },
  logger: { pattern: 'src/logger.ts', imports: [] },
  'node-version': { pattern: 'src/node-version.ts', imports: [] },
  // Metrics and traces: instruments the engine, routes and http count into, importing nothing of Herald's.
  telemetry: { pattern: 'src/telemetry/**', imports: [] },
  // The Database types give a JSON column the shape its writers and readers share (a domain or wire type).
  db: { pattern: 'src/db/**', imports: ['config', 'crypto', 'migrations', 'schemas', 'domain'] },
  migrations: { pattern: 'migrations/**', imports: [] },
  schemas: { pattern: 'src/schemas/**', imports: ['config', 'ids'] },
  domain: { pattern: 'src/domain/**', imports: ['schemas', 'errors', 'ids'] },
  repositories: { pattern: 'src/repositories/**', imports: ['db', 'domain', 'schemas', 'errors', 'crypto', 'ids'] },
  presenters: { pattern: 'src/presenters/**', imports: ['schemas', 'domain', 'db', 'repositories', 'crypto'] },
  // Vendor use-cases validate a vendor's config with its provider's schema (channels/registry.ts) and test it.
  services: {
    pattern: 'src/services/**',
    imports: ['repositories', 'domain', 'schemas', 'db', 'errors', 'crypto', 'ids', 'channels'],
  },
  // The one service that calls a presenter: a delivery-status event's body is the message as GET /v1/message/{id}/
  // shows it, stored once and sent as is (docs/ARCHITECTURE.md, "Presenters").
  'webhook-event-body': {
    pattern: 'src/services/webhook-events.ts',
    imports: ['services', 'repositories', 'presenters', 'db'],
  },
  auth: { pattern: 'src/auth/**', imports: ['repositories', 'domain', 'db', 'crypto', 'errors', 'ids', 'schemas'] },
  // The runner's sandbox reads the workspace's segment scopes and its connection settings.
  segments: { pattern: 'src/segments/**', imports: ['db', 'errors', 'config', 'repositories'] },
  // Template rendering reads the live template version and translations (channels/rendering.ts).
  channels: {
    pattern: 'src/channels/**',
    imports: ['domain', 'schemas', 'errors', 'config', 'crypto', 'ids', 'db', 'repositories'],
  },
  // A job is a use-case of its own: the engine reads and writes its tables (executions, runs, messages) through
  // repositories, as a service does, and calls services for what routes share with it.
  engine: {
    pattern: 'src/engine/**',
    imports: [
      'services',
      'repositories',
      'domain',
      'channels',
      'db',
      'schemas',
      'errors',
      'config',
      'ids',
      'crypto',
      'telemetry',
    ],
  },
  http: { pattern: 'src/http/**', imports: ['schemas', 'errors', 'crypto', 'config', 'db', 'telemetry'] },
  // Trigger routes hand accepted work to the engine's intake (engine/intake.ts, engine/event-triggers.ts).
  // A route calls a repository itself for a plain read or write, and a domain reader for what no schema can check
  // (the Kysely example's way): a service exists where there is a use-case, never to pass names through.
  routes: {
    pattern: ['src/base/**', 'src/management/**'],
    imports: [
      'services',
      'repositories',
      'domain',
      'presenters',
      'schemas',
      'auth',
      'errors',
      'segments',
      'http',
      'config',
      'engine',
    ],
  },
  // app.ts builds, main.ts, server.ts and cli.ts start, testing.ts starts Herald in a customer's tests: the top,
  // which may import any layer.
  entry: {
    pattern: [
      'src/app.ts',
      'src/main.ts',
      'src/cli.ts',
      'src/server.ts',
      'src/doctor.ts',
      'src/testing.ts',
      'src/testing-types.ts',
      'src/workspace-files.ts',
    ],
    imports: null,
  },
};
const types = Object.keys(layers);
// A folder is an element; a single file (errors.ts, app.ts, …) is a file category.
const isFile = (pattern) => [pattern].flat().every((p) => p.endsWith('.ts'));
const selectorOf = (type) => (isFile(layers[type].pattern) ? { file: { categories: type } } : { element: { type } });
const allowed = (type, imports) => {
  const targets = imports === null ? types : [type, ...imports];
  const folders = targets.filter((target) => !isFile(layers[target].pattern));
  const files = targets.filter((target) => isFile(layers[target].pattern));
  return [
    ...(folders.length > 0 ? [{ to: { element: { types: { anyOf: folders } } } }] : []),
    ...(files.length > 0 ? [{ to: { file: { categories: { anyOf: files } } } }] : []),
  ];
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'reports/**', 'bench/results/**', '.tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly' } },
    rules: {
      // A server's handler closure may read a variable assigned once the server is listening.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The segment guard walks libpg-query's untyped parse tree; these two findings are left to its owner.
    files: ['src/segments/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
  {
    // Migrations are frozen in time: they see the database as Kysely<any>, never the current types.
    files: ['migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.ts', 'migrations/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.json' } },
      'boundaries/include': ['src/**/*.ts', 'migrations/**/*.ts'],
      'boundaries/elements': types
        .filter((type) => !isFile(layers[type].pattern))
        .map((type) => ({ type, pattern: layers[type].pattern, partialMatch: false })),
      'boundaries/files': types
        .filter((type) => isFile(layers[type].pattern))
        .map((type) => ({ category: type, pattern: layers[type].pattern })),
    },
    rules: {
      'boundaries/no-unknown-files': 'error',
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: types.map((type) => ({ from: selectorOf(type), allow: allowed(type, layers[type].imports) })),
        },
      ],
    },
  },
);
