import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { CategoryUpdate, ChannelUpdate } from '../domain/preference-updates.js';

/**
 * Preference rows of a recipient kind, per (owner, tenant). The SQL is user-preferences.ts's, with
 * the table and owner column named by `kind`: objects use it today; users can move onto it.
 */
export interface OwnerKind {
  channels: 'object_channel_preferences';
  categories: 'object_category_preferences';
  owner: 'object_id';
}

export const OBJECT_PREFERENCES: OwnerKind = {
  channels: 'object_channel_preferences',
  categories: 'object_category_preferences',
  owner: 'object_id',
};

/** Sets the named channels' restriction of one owner, in one statement. */
export async function upsertOwnerChannelPreferences(
  db: Db,
  kind: OwnerKind,
  workspaceId: number,
  tenantId: string,
  ownerId: number,
  channels: ChannelUpdate[],
) {
  if (channels.length === 0) return;
  await sql`
    insert into ${sql.table(kind.channels)} (${sql.ref(kind.owner)}, workspace_id, tenant_id, channel, is_restricted)
    select ${ownerId}::bigint, ${workspaceId}::integer, ${tenantId}::text, c.channel, c.is_restricted
    from jsonb_to_recordset(${JSON.stringify(channels)}::jsonb) as c(channel text, is_restricted boolean)
    order by c.channel
    on conflict (${sql.ref(kind.owner)}, tenant_id, channel)
    do update set is_restricted = excluded.is_restricted, updated_at = now()`.execute(db);
}

/** Merges category choices into one owner's, in one statement: fields the update names are set, the others kept. */
export async function upsertOwnerCategoryPreferences(
  db: Db,
  kind: OwnerKind,
  workspaceId: number,
  tenantId: string,
  ownerId: number,
  categories: CategoryUpdate[],
) {
  if (categories.length === 0) return;
  const pick = (field: string, fallback: string) =>
    sql`case when c.named ? ${field} then c.${sql.ref(field)} else coalesce(e.${sql.ref(field)}, ${sql.raw(fallback)}) end`;
  await sql`
    insert into ${sql.table(kind.categories)}
      (${sql.ref(kind.owner)}, workspace_id, tenant_id, category, preference, opt_in_channels, opt_out_channels, digest_schedule, properties)
    select ${ownerId}::bigint, ${workspaceId}::integer, ${tenantId}::text, c.category,
      ${pick('preference', 'null')}, ${pick('opt_in_channels', `'[]'::jsonb`)}, ${pick('opt_out_channels', `'[]'::jsonb`)},
      ${pick('digest_schedule', 'null')}, ${pick('properties', `'[]'::jsonb`)}
    from jsonb_to_recordset(${JSON.stringify(categories)}::jsonb)
      as c(category text, named jsonb, preference text, opt_in_channels jsonb, opt_out_channels jsonb, digest_schedule jsonb, properties jsonb)
    left join ${sql.table(kind.categories)} as e
      on e.${sql.ref(kind.owner)} = ${ownerId} and e.tenant_id = ${tenantId} and e.category = c.category
    order by c.category
    on conflict (${sql.ref(kind.owner)}, tenant_id, category) do update set
      preference = excluded.preference, opt_in_channels = excluded.opt_in_channels, opt_out_channels = excluded.opt_out_channels,
      digest_schedule = excluded.digest_schedule, properties = excluded.properties, updated_at = now()`.execute(db);
}

/** One owner's stored choices and channel restrictions in one tenant. */
export async function findOwnerPreferenceRows(db: Db, kind: OwnerKind, ownerId: number, tenantId: string) {
  const [channels, categories] = await Promise.all([
    sql<{ channel: string; is_restricted: boolean }>`select channel, is_restricted from ${sql.table(kind.channels)}
      where ${sql.ref(kind.owner)} = ${ownerId} and tenant_id = ${tenantId}`.execute(db),
    sql<{
      category: string;
      preference: string | null;
      opt_in_channels: string[];
      opt_out_channels: string[];
      digest_schedule: Record<string, unknown> | null;
      properties: { key: string; value: unknown }[];
    }>`select category, preference, opt_in_channels, opt_out_channels, digest_schedule, properties
      from ${sql.table(kind.categories)} where ${sql.ref(kind.owner)} = ${ownerId} and tenant_id = ${tenantId}`.execute(
      db,
    ),
  ]);
  return { channels: channels.rows, categories: categories.rows };
}
