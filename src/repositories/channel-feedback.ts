import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/**
 * Marks one channel entry of a user inactive (provider feedback: a dead push token or subscription), matched by its
 * value as JSON, so delivery decisions skip it from then on. The entry stays on the user, shown with
 * `status: "inactive"`; setting the same value again through the API does not revive it (ours: the platform said
 * it is gone). Returns whether an entry changed.
 */
export async function markChannelEntryInactive(
  db: Db,
  target: { workspaceId: number; distinctId: string; channelKey: string; value: unknown },
): Promise<boolean> {
  const value = JSON.stringify(target.value);
  const { rows } = await sql<{ id: number }>`
    update users
       set channels = jsonb_set(
             channels,
             array[${target.channelKey}::text],
             (select jsonb_agg(case when e -> 'value' = ${value}::jsonb then e || '{"status":"inactive"}'::jsonb else e end
                               order by n)
                from jsonb_array_elements(channels -> ${target.channelKey}::text) with ordinality as t(e, n))),
           updated_at = now()
     where workspace_id = ${target.workspaceId}
       and distinct_id = ${target.distinctId}
       and jsonb_typeof(channels -> ${target.channelKey}::text) = 'array'
       and exists (select 1 from jsonb_array_elements(channels -> ${target.channelKey}::text) e
                    where e -> 'value' = ${value}::jsonb and e ->> 'status' is distinct from 'inactive')
    returning id`.execute(db);
  return rows.length > 0;
}
