// First: refuses an older Node.js before anything else of Herald's runs.
import './node-version.js';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, surfaceUrls, type Config } from './config.js';
import { openDatabase, type OpenDatabase } from './db/open.js';
import { bootstrapWorkspace, createWorkspace, isWorkspaceSlug } from './services/workspaces.js';
import { createApiKey } from './repositories/api-keys.js';
import { revokeServiceTokenEverywhere } from './services/credential-changes.js';
import { createServiceToken } from './repositories/service-tokens.js';
import { findWorkspaceBySlug, listWorkspaces } from './repositories/workspaces.js';
import { iso } from './schemas/common.js';
import { runHerald } from './server.js';
import { doctor, migrationStatus, withDatabase } from './doctor.js';
import { readFileSync } from 'node:fs';
import { exportWorkspaceFiles, importWorkspaceFiles, type ManagementClient } from './workspace-files.js';

const USAGE = `herald: admin tasks on the configured database (DATABASE_URL, or embedded storage in DATA_DIR)

  herald --version                                 the version of this build
  herald doctor                                    database, migrations, secret key, segment role, vendors reachable
  herald migrate                                   apply pending migrations
  herald migrate --status                          applied and pending migrations (applies nothing)
  herald bootstrap --workspace <slug> [--actor-name N --actor-email E]
                                                   workspace (created if missing) + service token + API key
  herald workspace create <slug> [--name N]        a workspace with its default tenant and key pair
  herald workspace list
  herald service-token create [--actor-name N --actor-email E]
  herald service-token revoke <id-or-token>
  herald api-key create --workspace <slug> [--name N]
  herald import --dir DIR --url URL --workspace <slug>
                                                   commit the workflows, templates, categories and vendors of DIR
                                                   to a running Herald (only what differs; service token in
                                                   HERALD_SERVICE_TOKEN); docs/testing-your-notifications.md
  herald export --dir DIR --url URL --workspace <slug>
                                                   write a running Herald's live configuration into DIR
  herald serve                                     the API only (PostgreSQL: workers run apart)
  herald worker                                    the worker only (PostgreSQL: APIs run apart)

Every command takes --json for one JSON object on stdout. Credentials are printed once and never stored in plain text.`;

class UsageError extends Error {}

const options = {
  json: { type: 'boolean' },
  workspace: { type: 'string' },
  name: { type: 'string' },
  'actor-name': { type: 'string' },
  'actor-email': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  status: { type: 'boolean' },
  dir: { type: 'string' },
  url: { type: 'string' },
} as const;

/** package.json's version: beside dist/ (../../ from dist/src/cli.js) or the sources (../ from src/cli.ts). */
function heraldVersion(): string {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'herald' && manifest.version) return manifest.version;
    } catch {
      // not there: the other layout
    }
  }
  return 'unknown';
}

/**
 * `herald import` and `herald export`: a running Herald's management API, not the database, so they work
 * against any instance (a colleague's, staging, production) the service token reaches.
 */
async function workspaceFiles(command: 'import' | 'export', flags: Flags): Promise<number> {
  const token = process.env.HERALD_SERVICE_TOKEN;
  if (!flags.dir || !flags.url || !flags.workspace || !token)
    throw new UsageError(
      `${command} needs --dir, --url (the management API, like http://localhost:3000/management/), --workspace ` +
        'and the service token in HERALD_SERVICE_TOKEN',
    );
  const client: ManagementClient = {
    managementUrl: flags.url.endsWith('/') ? flags.url : `${flags.url}/`,
    serviceToken: token,
    workspace: flags.workspace,
  };
  if (command === 'export') {
    const files = await exportWorkspaceFiles(client, flags.dir);
    if (flags.json) process.stdout.write(`${JSON.stringify({ dir: flags.dir, files })}\n`);
    else for (const file of files) process.stdout.write(`wrote ${file}\n`);
    return 0;
  }
  const result = await importWorkspaceFiles(client, flags.dir);
  if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    for (const [kind, names] of Object.entries(result))
      for (const name of names as string[]) process.stdout.write(`${kind}: ${name}\n`);
  return 0;
}

/** Read-only commands: they open the database without migrating it (src/doctor.ts). Exit 1 when a check fails. */
async function inspect(command: 'doctor' | 'status', flags: Flags): Promise<number> {
  const config = loadConfig(process.env);
  if (command === 'status') {
    const migrations = await withDatabase(config, migrationStatus);
    const pending = migrations.filter((m) => m.applied_at === null).length;
    if (flags.json) process.stdout.write(`${JSON.stringify({ pending, migrations })}\n`);
    else
      for (const m of migrations)
        process.stdout.write(`${m.applied_at ? `applied ${m.applied_at}` : 'pending'}  ${m.name}\n`);
    return 0;
  }
  const checks = await doctor(config);
  const ok = checks.every((c) => c.ok);
  if (flags.json) process.stdout.write(`${JSON.stringify({ ok, checks })}\n`);
  else for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.check}: ${c.detail}\n`);
  return ok ? 0 : 1;
}

type Flags = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

const actorFrom = (flags: Flags) =>
  flags['actor-name'] || flags['actor-email']
    ? { name: flags['actor-name'] ?? '', email: flags['actor-email'] ?? '' }
    : null;

const requireSlug = (slug: string | undefined) => {
  if (!slug) throw new UsageError('a workspace slug is required');
  if (!isWorkspaceSlug(slug))
    throw new UsageError(`'${slug}' is not a valid workspace slug (lowercase letters, digits, - and _)`);
  return slug;
};

interface CommandContext {
  db: OpenDatabase['db'];
  secretBox: OpenDatabase['secretBox'];
  config: Config;
  flags: Flags;
  /** The positional after the command's two words (a slug, a token id). */
  argument: string | undefined;
}

/** Every command, by its words: the one list `main` refuses an unknown command against. */
const COMMANDS: Record<string, (context: CommandContext) => Promise<Record<string, unknown>>> = {
  migrate: async () => ({ migrated: true }),
  bootstrap: async ({ db, secretBox, config, flags }) => {
    const result = await bootstrapWorkspace(db, secretBox, {
      slug: requireSlug(flags.workspace),
      actor: actorFrom(flags),
    });
    return { ...result, ...surfaceUrls(config) };
  },
  'workspace create': async ({ db, secretBox, flags, argument }) => {
    const slug = requireSlug(argument ?? flags.workspace);
    const { workspace, defaultKey } = await db
      .transaction()
      .execute((trx) => createWorkspace(trx, secretBox, { slug, name: flags.name ?? slug, actor: actorFrom(flags) }));
    return {
      workspace: workspace.slug,
      name: workspace.name,
      workspace_key: defaultKey.key,
      workspace_secret: defaultKey.secret,
    };
  },
  'workspace list': async ({ db }) => {
    const results = [];
    for (let offset = 0, count = 1; offset < count; offset += 1000) {
      const page = await listWorkspaces(db, { limit: 1000, offset });
      count = page.count;
      results.push(...page.rows.map((row) => ({ slug: row.slug, name: row.name, created_at: iso(row.created_at) })));
      if (page.rows.length === 0) break;
    }
    return { count: results.length, results };
  },
  'service-token create': async ({ db, flags }) => {
    const token = await createServiceToken(db, actorFrom(flags));
    return { service_token_id: token.id, service_token: token.token };
  },
  'service-token revoke': async ({ db, argument }) => {
    if (!argument) throw new UsageError('service-token revoke needs the token id or the token');
    // Running instances hear of it through NOTIFY, sent in the revoking transaction.
    if (!(await revokeServiceTokenEverywhere(db, undefined, argument)))
      throw new UsageError('no live service token matches');
    return { revoked: true };
  },
  'api-key create': async ({ db, flags }) => {
    const slug = requireSlug(flags.workspace);
    const workspace = await findWorkspaceBySlug(db, slug);
    if (!workspace) throw new UsageError(`workspace '${slug}' not found`);
    const key = await createApiKey(db, {
      workspaceId: workspace.id,
      name: flags.name ?? 'cli',
      createdBy: actorFrom(flags),
    });
    return { workspace: slug, api_key_id: key.id, api_key: key.apiKey };
  },
};
const commandOf = ([noun, verb]: string[]) => `${noun} ${verb ?? ''}`.trim();
const handlerOf = (command: string[]) =>
  Object.hasOwn(COMMANDS, commandOf(command)) ? COMMANDS[commandOf(command)] : undefined;

const printHuman = (result: Record<string, unknown>) => {
  for (const [key, value] of Object.entries(result)) {
    process.stdout.write(`${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}\n`);
  }
};

async function main(argv: string[]): Promise<number | undefined> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  if (positionals.length === 1 && (positionals[0] === 'serve' || positionals[0] === 'worker')) {
    try {
      const role = positionals[0];
      await runHerald(loadConfig(process.env), { api: role === 'serve', worker: role === 'worker' });
      return undefined;
    } catch (error) {
      process.stderr.write(`herald: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
  if (flags.version) {
    process.stdout.write(
      flags.json ? `${JSON.stringify({ version: heraldVersion() })}\n` : `herald ${heraldVersion()}\n`,
    );
    return 0;
  }
  const readOnly =
    positionals.join(' ') === 'doctor'
      ? 'doctor'
      : positionals.join(' ') === 'migrate' && flags.status
        ? 'status'
        : undefined;
  if (readOnly) {
    try {
      return await inspect(readOnly, flags);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (flags.json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
      process.stderr.write(`herald: ${message}\n`);
      return 1;
    }
  }
  if (positionals.length === 1 && (positionals[0] === 'import' || positionals[0] === 'export')) {
    try {
      return await workspaceFiles(positionals[0], flags);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (flags.json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
      process.stderr.write(`herald: ${message}\n${error instanceof UsageError ? `\n${USAGE}\n` : ''}`);
      return error instanceof UsageError ? 2 : 1;
    }
  }
  if (flags.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return flags.help ? 0 : 2;
  }
  // An unknown command needs no database to be refused.
  const handler = handlerOf(positionals);
  if (!handler) {
    const message = `unknown command: ${positionals.join(' ')}`;
    if (flags.json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    process.stderr.write(`herald: ${message}\n`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  let database: OpenDatabase | undefined;
  try {
    database = await openDatabase(config);
    const result = await handler({ ...database, config, flags, argument: positionals[2] });
    if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else printHuman(result);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (flags.json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    process.stderr.write(`herald: ${message}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await database?.close();
  }
}

const exitCode = await main(process.argv.slice(2));
// serve and worker keep running until a signal; every other command sets its exit code.
if (exitCode !== undefined) process.exitCode = exitCode;
