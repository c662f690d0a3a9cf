import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/**
 * A workspace's configuration as files, through the management API (docs/testing-your-notifications.md,
 * "Configuration in files"): `startHerald({ load })`, `herald import --dir` and `herald export --dir` all
 * go through here. The layout, each file the JSON the management API accepts:
 *
 *   DIR/categories.json          the preference category definition (POST /preference_category/)
 *   DIR/templates/<slug>.json    the template (POST /v2/…/template/<slug>/) and its `variants`, each a
 *                                variant body with its `channel` and `id` (POST …/channel/<c>/variant/<id>/)
 *   DIR/vendors/<id>.json        a vendor (POST /vendor/); `<id>` is matched against the vendor's nickname
 *   DIR/workflows/<slug>.json    a workflow (POST /workflow/<slug>/)
 *
 * Importing commits each one whose live version differs from its file, in the order the rules need
 * (categories, templates, vendors, workflows), and leaves the others alone: importing twice changes
 * nothing the second time. Vendor secrets are never exported: the API masks them, and the mask
 * written to a file keeps the stored secret when imported into the same workspace. A string value
 * `$env:NAME` is read from the environment on import, so secrets stay out of git.
 */

export interface ManagementClient {
  /** The management API root, like `http://127.0.0.1:3000/management/` */
  managementUrl: string;
  serviceToken: string;
  workspace: string;
}

export interface FilesResult {
  created: string[];
  updated: string[];
  unchanged: string[];
}

const MASK = '********';

class ApiError extends Error {}

async function call(client: ManagementClient, method: string, path: string, body?: unknown): Promise<unknown> {
  const url = new URL(path, client.managementUrl);
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `ServiceToken ${client.serviceToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (response.status === 404 && method === 'GET') return undefined;
  if (!response.ok)
    throw new ApiError(
      `${method} ${url.pathname} answered ${response.status}: ${(parsed as { message?: string })?.message ?? text}`,
    );
  return parsed;
}

/** Every key the file names holds the same value live (a masked secret counts as the same). */
function sameAs(file: unknown, live: unknown): boolean {
  if (file === MASK) return true;
  if (typeof file === 'object' && file !== null && !Array.isArray(file)) {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    return Object.entries(file).every(([key, value]) => sameAs(value, (live as Record<string, unknown>)[key]));
  }
  if (Array.isArray(file))
    return Array.isArray(live) && file.length === live.length && file.every((value, i) => sameAs(value, live[i]));
  return isDeepStrictEqual(file, live);
}

/** `$env:NAME` strings replaced by the environment's value (an unset one is an error naming it). */
function withEnvironment(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string' && value.startsWith('$env:')) {
    const name = value.slice(5);
    const found = env[name];
    if (found === undefined) throw new Error(`the environment has no ${name} (named by a "$env:${name}" value)`);
    return found;
  }
  if (Array.isArray(value)) return value.map((item) => withEnvironment(item, env));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withEnvironment(item, env)]));
  return value;
}

async function jsonFiles(dir: string): Promise<{ name: string; body: Record<string, unknown> }[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return Promise.all(
    names.map(async (name) => ({
      name: basename(name, '.json'),
      body: JSON.parse(await readFile(join(dir, name), 'utf8')) as Record<string, unknown>,
    })),
  );
}

interface ListPage<T> {
  results: T[];
  meta?: { count?: number };
}

async function listAll<T>(client: ManagementClient, path: string): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await call(client, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=100&offset=${offset}`)) as
      ListPage<T> | undefined;
    const rows = page?.results ?? [];
    all.push(...rows);
    if (rows.length < 100) return all;
  }
}

const variantPath = (templatePath: string, variant: Record<string, unknown>) =>
  `${templatePath}channel/${encodeURIComponent(String(variant.channel))}/variant/${encodeURIComponent(String(variant.id))}/`;

interface TemplateFile extends Record<string, unknown> {
  variants?: ({ channel: string; id: string } & Record<string, unknown>)[];
}

/** Applies the files of `dir` to the workspace; what was created, updated and left as it was. */
export async function importWorkspaceFiles(
  client: ManagementClient,
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FilesResult> {
  const ws = encodeURIComponent(client.workspace);
  const result: FilesResult = { created: [], updated: [], unchanged: [] };
  const note = (kind: keyof FilesResult, what: string) => result[kind].push(what);

  const categories = await jsonFiles(dir).then((files) => files.find((file) => file.name === 'categories'));
  if (categories) {
    const live = await call(client, 'GET', `v1/${ws}/preference_category/?mode=live`);
    if (live && sameAs(categories.body, live)) note('unchanged', 'categories');
    else {
      await call(client, 'POST', `v1/${ws}/preference_category/?commit=true`, categories.body);
      note(live ? 'updated' : 'created', 'categories');
    }
  }

  for (const { name: slug, body } of await jsonFiles(join(dir, 'templates'))) {
    const { variants = [], ...template } = body as TemplateFile;
    const path = `v2/${ws}/template/${encodeURIComponent(slug)}/`;
    const live = await call(client, 'GET', `${path}?mode=live`);
    // The list leaves content out: each variant is read whole.
    const liveVariants = live ? await listAll<Record<string, unknown>>(client, `${path}variant/?mode=live`) : [];
    const sameVariant = async (variant: NonNullable<TemplateFile['variants']>[number]) =>
      sameAs(variant, await call(client, 'GET', `${variantPath(path, variant)}?mode=live`));
    let same = live !== undefined && sameAs(template, live) && liveVariants.length === variants.length;
    for (const variant of variants) if (same) same = await sameVariant(variant);
    if (same) {
      note('unchanged', `template ${slug}`);
      continue;
    }
    await call(client, 'POST', path, template);
    for (const { channel, id, ...variant } of variants)
      await call(client, 'POST', variantPath(path, { channel, id }), variant);
    await call(client, 'PATCH', `${path}commit/`, { commit_message: 'herald import' });
    note(live ? 'updated' : 'created', `template ${slug}`);
  }

  const vendorFiles = await jsonFiles(join(dir, 'vendors'));
  const vendors = vendorFiles.length ? await listAll<Record<string, unknown>>(client, `v1/${ws}/vendor/`) : [];
  for (const { name, body } of vendorFiles) {
    const wanted = withEnvironment({ ...body, nickname: body.nickname ?? name }, env) as Record<string, unknown>;
    const live = vendors.find((vendor) => vendor.nickname === wanted.nickname);
    if (live && sameAs(wanted, live)) note('unchanged', `vendor ${name}`);
    else if (live) {
      const { channel: _channel, provider: _provider, ...change } = wanted;
      await call(client, 'PATCH', `v1/${ws}/vendor/${encodeURIComponent(String(live.id))}/`, change);
      note('updated', `vendor ${name}`);
    } else {
      await call(client, 'POST', `v1/${ws}/vendor/`, wanted);
      note('created', `vendor ${name}`);
    }
  }

  for (const { name: slug, body } of await jsonFiles(join(dir, 'workflows'))) {
    const path = `v1/${ws}/workflow/${encodeURIComponent(slug)}/`;
    const live = await call(client, 'GET', `${path}?mode=live`);
    if (live && sameAs(body, live)) {
      note('unchanged', `workflow ${slug}`);
      continue;
    }
    await call(client, 'POST', `${path}?commit=true`, body);
    note(live ? 'updated' : 'created', `workflow ${slug}`);
  }
  return result;
}

const pick = (from: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(
    keys.filter((key) => from[key] !== undefined && from[key] !== null).map((key) => [key, from[key]]),
  );

const write = (path: string, body: unknown) => writeFile(path, `${JSON.stringify(body, null, 2)}\n`);

/** Writes the workspace's live configuration into `dir` (the layout above); the files written. */
export async function exportWorkspaceFiles(client: ManagementClient, dir: string): Promise<string[]> {
  const ws = encodeURIComponent(client.workspace);
  const written: string[] = [];
  for (const sub of ['workflows', 'templates', 'vendors']) await mkdir(join(dir, sub), { recursive: true });

  const categories = (await call(client, 'GET', `v1/${ws}/preference_category/?mode=live`)) as
    Record<string, unknown> | undefined;
  if (categories) {
    await write(join(dir, 'categories.json'), pick(categories, ['root_categories']));
    written.push('categories.json');
  }

  for (const template of await listAll<Record<string, unknown>>(client, `v2/${ws}/template/?mode=live`)) {
    const slug = String(template.slug);
    const path = `v2/${ws}/template/${encodeURIComponent(slug)}/`;
    const variants: Record<string, unknown>[] = [];
    for (const listed of await listAll<Record<string, unknown>>(client, `${path}variant/?mode=live`))
      variants.push((await call(client, 'GET', `${variantPath(path, listed)}?mode=live`)) as Record<string, unknown>);
    await write(join(dir, 'templates', `${slug}.json`), {
      ...pick(template, ['name', 'description', 'tags', 'enabled_channels']),
      variants: variants.map((variant) =>
        pick(variant, [
          'channel',
          'id',
          'locale',
          'tenant_id',
          'conditions',
          'content',
          'needs_vendor_approval',
          'seq_no',
        ]),
      ),
    });
    written.push(`templates/${slug}.json`);
  }

  for (const vendor of await listAll<Record<string, unknown>>(client, `v1/${ws}/vendor/`)) {
    const name = String(vendor.nickname ?? vendor.id);
    // The API masks every secret: the file holds the mask (or a `$env:NAME` the team writes in), never the secret.
    await write(
      join(dir, 'vendors', `${name}.json`),
      pick(vendor, ['channel', 'provider', 'nickname', 'is_default', 'is_active', 'config']),
    );
    written.push(`vendors/${name}.json`);
  }

  for (const workflow of await listAll<Record<string, unknown>>(client, `v1/${ws}/workflow/?mode=live`)) {
    const slug = String(workflow.slug);
    await write(
      join(dir, 'workflows', `${slug}.json`),
      pick(workflow, [
        'name',
        'description',
        'category',
        'tags',
        'trigger_type',
        'trigger_events',
        'payload_schema',
        'is_enabled',
        'tree',
      ]),
    );
    written.push(`workflows/${slug}.json`);
  }
  return written;
}
