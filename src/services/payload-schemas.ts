import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { jsonSchemaErrors, payloadErrors, schemaHash } from '../domain/payload-schemas.js';
import { badRequest, notFound } from '../errors.js';
import {
  commitPayloadSchema,
  findPayloadSchema,
  findPayloadSchemaVersion,
  upsertPayloadSchemaDraft,
  type PayloadSchemaRow,
} from '../repositories/payload-schemas.js';
import { findRegisteredEvent } from '../repositories/registered-events.js';

export const schemaNotFound = (slug: string) => notFound(`schema '${slug}' not found`);

export const liveVersionOf = (db: Db, schema: PayloadSchemaRow) =>
  schema.live_version_no === null
    ? Promise.resolve(undefined)
    : findPayloadSchemaVersion(db, schema.id, schema.live_version_no);

/** Why the draft cannot be committed; empty when it can. */
async function commitErrors(db: Db, schema: PayloadSchemaRow) {
  const live = await liveVersionOf(db, schema);
  return live && live.hash === schema.hash ? ['hash: no uncommitted changes found'] : [];
}

/**
 * Saves the draft (400 when json_schema is not a JSON Schema) and, with `commit`, commits it when it
 * changed. Returns the draft, the live version after, and the commit's outcome.
 */
export async function savePayloadSchema(
  trx: Trx,
  workspaceId: number,
  input: { slug: string; name: string; jsonSchema: Record<string, unknown>; actor: ActorColumn | null },
  commit: { commit: boolean; commitMessage: string | null },
) {
  const errors = jsonSchemaErrors(input.jsonSchema);
  if (errors.length > 0) throw badRequest(JSON.stringify({ json_schema: errors }), { json_schema: errors });
  const schema = await upsertPayloadSchemaDraft(trx, workspaceId, {
    ...input,
    hash: schemaHash(input.name, input.jsonSchema),
  });
  if (!commit.commit) return { schema, live: await liveVersionOf(trx, schema), commitResult: null };
  const refused = await commitErrors(trx, schema);
  if (refused.length > 0)
    return { schema, live: await liveVersionOf(trx, schema), commitResult: { is_committed: false, errors: refused } };
  const live = await commitPayloadSchema(trx, schema, { commitMessage: commit.commitMessage, actor: input.actor });
  return {
    schema: { ...schema, live_version_no: live.version_no },
    live,
    commitResult: { is_committed: true, errors: [] },
  };
}

/** Commits the draft of an existing schema: 404 when unknown, 400 when nothing changed since the live version. */
export async function commitPayloadSchemaDraft(
  trx: Trx,
  workspaceId: number,
  slug: string,
  input: { commitMessage: string | null; actor: ActorColumn | null },
) {
  // The row lock makes a concurrent commit of the same schema wait, then find nothing left to commit.
  const schema = await findPayloadSchema(trx, workspaceId, slug, { lock: true });
  if (!schema) throw schemaNotFound(slug);
  const refused = await commitErrors(trx, schema);
  if (refused.length > 0) throw badRequest(`schema '${slug}' has no changes to commit`, { errors: refused });
  const live = await commitPayloadSchema(trx, schema, input);
  return { schema: { ...schema, live_version_no: live.version_no }, live };
}

/**
 * What the engine calls when an event is triggered: the reasons `payload` breaks the payload schema
 * linked to the event (its pinned version, else the live one), or an empty list when it satisfies
 * it or when the event links no schema (or is not registered). Three statements at most.
 */
export async function eventPayloadErrors(
  db: Db,
  workspaceId: number,
  eventName: string,
  payload: unknown,
): Promise<string[]> {
  const event = await findRegisteredEvent(db, workspaceId, eventName);
  if (!event || event.schema_id === null) return [];
  const versionNo = event.schema_version_no ?? event.schema_live_version_no;
  if (versionNo === null) return [];
  const version = await findPayloadSchemaVersion(db, event.schema_id, versionNo);
  if (!version) return [];
  return payloadErrors(version.json_schema, version.hash, payload);
}
