import { ulid } from 'ulid';
import type { TestApp } from './app.js';
import { bootstrapWorkspace } from '../../src/services/workspaces.js';

export interface WorkspaceFixture {
  slug: string;
  workspaceId: number;
  serviceToken: string;
  apiKey: string;
  apiKeyId: string;
  workspaceKey: string;
  workspaceSecret: string;
  /** Headers for each surface. */
  management: { authorization: string };
  base: { authorization: string };
}

export const uniqueSlug = (prefix = 'ws') => `${prefix}-${ulid().toLowerCase()}`;

/** A fresh workspace with a service token, an API key and its default key pair: tests isolate by workspace. */
export async function createWorkspaceFixture(
  t: TestApp,
  actor = { name: 'Test Operator', email: 'ops@example.com' },
): Promise<WorkspaceFixture> {
  const slug = uniqueSlug();
  const credentials = await bootstrapWorkspace(t.db, t.secretBox, { slug, actor });
  const workspace = await t.db.selectFrom('workspaces').select('id').where('slug', '=', slug).executeTakeFirstOrThrow();
  return {
    slug,
    workspaceId: workspace.id,
    serviceToken: credentials.service_token,
    apiKey: credentials.api_key,
    apiKeyId: credentials.api_key_id,
    workspaceKey: credentials.workspace_key,
    workspaceSecret: credentials.workspace_secret,
    management: { authorization: `ServiceToken ${credentials.service_token}` },
    base: { authorization: `Bearer ${credentials.api_key}` },
  };
}
