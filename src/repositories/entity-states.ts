import { sql } from 'kysely';
import type { Trx } from '../db/database.js';

/** A user's or object's new properties and channels; `fresh` when this transaction created it. */
export interface StateWrite {
  id: number;
  fresh: boolean;
  properties: unknown;
  channels: unknown;
}

/**
 * Writes new states of users or objects back, one statement for any number of rows. `updated_at`
 * always moves forward, visibly (by at least a millisecond), even for two changes in the same
 * instant; a row created by this transaction keeps updated_at equal to created_at. The ids are
 * also given as an array, so the primary key finds the rows whatever the table's statistics say
 * (see saveMessageStates).
 */
export async function saveStates<Row>(
  trx: Trx,
  table: 'users' | 'objects',
  columns: readonly string[],
  states: StateWrite[],
): Promise<Row[]> {
  if (states.length === 0) return [];
  const { rows } = await sql<Row>`
    update ${sql.table(table)} as t set properties = v.properties, channels = v.channels,
      updated_at = case when v.fresh then t.updated_at else greatest(clock_timestamp(), t.updated_at + interval '1 millisecond') end
    from jsonb_to_recordset(${JSON.stringify(states)}::jsonb) as v(id bigint, fresh boolean, properties jsonb, channels jsonb)
    where t.id = v.id and t.id = any(${states.map((state) => state.id)}::bigint[])
    returning ${sql.join(columns.map((column) => sql.ref(`t.${column}`)))}`.execute(trx);
  return rows;
}
