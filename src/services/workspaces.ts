import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { badRequest, conflict } from '../errors.js';
import { matcher, WORKSPACE_SLUG_PATTERN } from '../schemas/identifiers.js';
import { createApiKey } from '../repositories/api-keys.js';
import { createServiceToken } from '../repositories/service-tokens.js';
import { insertDefaultTenant } from '../repositories/tenants.js';
import { createWorkspaceKey, findDefaultWorkspaceKey } from '../repositories/workspace-keys.js';
import {
  findWorkspaceBySlug,
  insertWorkspace,
  listWorkspaces as listWorkspaceRows,
} from '../repositories/workspaces.js';

export const isWorkspaceSlug = matcher(WORKSPACE_SLUG_PATTERN);

export const slugFromName = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

/** A workspace is never without its default tenant and its default key pair. Call inside a transaction. */
export async function createWorkspace(
  trx: Trx,
  box: SecretBox,
  input: { slug: string; name: string; description?: string | null; actor: ActorColumn | null },
) {
  if (await findWorkspaceBySlug(trx, input.slug))
    throw conflict(`workspace '${input.slug}' already exists`, { slug: 'is taken' });
  const workspace = await insertWorkspace(trx, input);
  await insertDefaultTenant(trx, workspace.id, workspace.name);
  const defaultKey = await createWorkspaceKey(trx, box, {
    workspaceId: workspace.id,
    name: 'default',
    isDefault: true,
    createdBy: input.actor,
  });
  return { workspace, defaultKey };
}

export interface BootstrapResult {
  workspace: string;
  service_token: string;
  api_key: string;
  api_key_id: string;
  workspace_key: string;
  workspace_secret: string;
}

/**
 * Makes a workspace usable from nothing: creates it when missing (with its default pair),
 * then issues a service token and an API key. The plain credentials exist only in the result.
 */
export function bootstrapWorkspace(
  db: Db,
  box: SecretBox,
  input: { slug: string; actor: ActorColumn | null },
): Promise<BootstrapResult> {
  // An operator's entry point (CLI, first start, test fixtures) rather than a request's: it opens its own transaction.
  return db.transaction().execute(async (trx) => {
    let workspace = await findWorkspaceBySlug(trx, input.slug);
    if (!workspace)
      workspace = (await createWorkspace(trx, box, { slug: input.slug, name: input.slug, actor: input.actor }))
        .workspace;
    const pair = await findDefaultWorkspaceKey(trx, workspace.id);
    const token = await createServiceToken(trx, input.actor);
    const apiKey = await createApiKey(trx, { workspaceId: workspace.id, name: 'bootstrap', createdBy: input.actor });
    return {
      workspace: workspace.slug,
      service_token: token.token,
      api_key: apiKey.apiKey,
      api_key_id: apiKey.id,
      workspace_key: pair.key,
      workspace_secret: box.decrypt(pair.secret_ciphertext),
    };
  });
}

/** POST /v1/workspace/: the slug is the body's, or derived from the name; it must be a valid slug either way. */
export function createNamedWorkspace(
  trx: Trx,
  box: SecretBox,
  input: { name: string; slug?: string; description?: string | null; actor: ActorColumn | null },
) {
  const slug = input.slug ?? slugFromName(input.name);
  if (!isWorkspaceSlug(slug))
    throw badRequest('slug must be lowercase letters, digits, - and _ (1-64 characters)', { slug: 'is invalid' });
  return createWorkspace(trx, box, { ...input, slug });
}

export const listWorkspaces = (db: Db, page: { limit: number; offset: number }) => listWorkspaceRows(db, page);
