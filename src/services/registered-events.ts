import type { Db } from '../db/database.js';
import { badRequest } from '../errors.js';
import { findPayloadSchema, findPayloadSchemaVersion } from '../repositories/payload-schemas.js';

export {
  findRegisteredEvent,
  findWorkflowsTriggeredBy,
  listRegisteredEvents,
  upsertRegisteredEvent,
  type RegisteredEventRow,
} from '../repositories/registered-events.js';

const invalidLink = (reason: string) => badRequest(`payload_schema: ${reason}`, { payload_schema: [reason] });

/** A link must name a committed schema, and a version of it that exists. */
export async function resolveLink(
  db: Db,
  workspaceId: number,
  link: { schema: string; version_no?: number | null } | null | undefined,
) {
  if (link === undefined || link === null) return link;
  const schema = await findPayloadSchema(db, workspaceId, link.schema);
  if (!schema) throw invalidLink(`schema '${link.schema}' not found`);
  if (schema.live_version_no === null) throw invalidLink(`schema '${link.schema}' has never been committed`);
  const versionNo = link.version_no ?? null;
  if (versionNo !== null && !(await findPayloadSchemaVersion(db, schema.id, versionNo)))
    throw invalidLink(`schema '${link.schema}' has no version ${versionNo}`);
  return { schemaId: schema.id, versionNo };
}
