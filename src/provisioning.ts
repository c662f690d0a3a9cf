import type { Db } from './db/database.js';
import type { ActorColumn } from './db/types.js';
import type { SecretBox } from './auth/secret-box.js';
import { conflict } from './errors.js';
import { createApiKey } from './repositories/api-keys.js';
import { createServiceToken } from './repositories/service-tokens.js';
import { insertDefaultTenant } from './repositories/tenants.js';
import { createWorkspaceKey } from './repositories/workspace-keys.js';
import { findWorkspaceBySlug, insertWorkspace } from './repositories/workspaces.js';

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}[a-z0-9]$|^[a-z0-9]$';
const slugRegExp = new RegExp(SLUG_PATTERN);
export const isWorkspaceSlug = (slug: string) => slugRegExp.test(slug);

export const slugFromName = (name: string) =>
  name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);

/** A workspace is never without its default tenant and its default key pair. Call inside a transaction. */
export async function createWorkspace(
  trx: Db,
  box: SecretBox,
  input: { slug: string; name: string; description?: string | null; actor: ActorColumn | null },
) {
  if (await findWorkspaceBySlug(trx, input.slug)) throw conflict(`workspace '${input.slug}' already exists`, { slug: 'is taken' });
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
export function bootstrapWorkspace(db: Db, box: SecretBox, input: { slug: string; actor: ActorColumn | null }): Promise<BootstrapResult> {
  return db.transaction().execute(async (trx) => {
    let workspace = await findWorkspaceBySlug(trx, input.slug);
    if (!workspace) workspace = (await createWorkspace(trx, box, { slug: input.slug, name: input.slug, actor: input.actor })).workspace;
    const pair = await trx
      .selectFrom('workspace_keys')
      .select(['key', 'secret_ciphertext'])
      .where('workspace_id', '=', workspace.id)
      .where('is_default', '=', true)
      .executeTakeFirstOrThrow();
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
