import type { LinkedSchemaRow, PayloadSchemaRow, PayloadSchemaVersionRow } from '../repositories/payload-schemas.js';
import { iso } from '../schemas/common.js';

/** The draft: 'live' while it equals the live version, 'draft' once it differs (or was never committed). */
export function presentSchemaDraft(schema: PayloadSchemaRow, live: PayloadSchemaVersionRow | undefined) {
  const same = live !== undefined && live.hash === schema.hash;
  return {
    slug: schema.slug,
    name: schema.name,
    status: same ? 'live' : 'draft',
    hash: schema.hash,
    json_schema: schema.json_schema,
    version_no: schema.live_version_no,
    created_at: iso(schema.created_at),
    updated_at: iso(schema.updated_at),
    committed_at: same ? iso(live.committed_at) : null,
    commit_message: same ? live.commit_message : null,
  };
}

export function presentSchemaLive(schema: PayloadSchemaRow, live: PayloadSchemaVersionRow) {
  return {
    slug: schema.slug,
    name: live.name,
    status: 'live',
    hash: live.hash,
    json_schema: live.json_schema,
    version_no: live.version_no,
    created_at: iso(schema.created_at),
    updated_at: iso(live.committed_at),
    committed_at: iso(live.committed_at),
    commit_message: live.commit_message,
  };
}

export const presentLinkedSchema = (row: LinkedSchemaRow) => ({
  slug: row.slug,
  version_no: row.version_no,
  name: row.name,
  description: null,
  json_schema: row.json_schema,
  linked_workflows: row.linked_workflows,
  linked_events: row.linked_events,
  created_at: iso(row.created_at),
});
