import type { Db } from '../db/database.js';

export const DEFAULT_TENANT_ID = 'default';

export function insertDefaultTenant(db: Db, workspaceId: number, workspaceName: string) {
  return db
    .insertInto('tenants')
    .values({ workspace_id: workspaceId, tenant_id: DEFAULT_TENANT_ID, tenant_name: workspaceName })
    .onConflict((oc) => oc.doNothing())
    .execute();
}
