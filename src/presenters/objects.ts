import type { ObjectRow } from '../repositories/objects.js';
import { iso } from '../schemas/common.js';

/** Object: channel arrays flattened beside the fields, only where non-empty. */
export function presentObject(row: ObjectRow) {
  const channels = Object.fromEntries(Object.entries(row.channels).filter(([, entries]) => entries.length > 0));
  return {
    object_type: row.object_type,
    id: row.object_id,
    subscriptions_count: row.subscriptions_count,
    properties: row.properties,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...channels,
  };
}

export const summarizeObject = (
  row: Pick<ObjectRow, 'object_type' | 'object_id' | 'subscriptions_count' | 'updated_at'>,
) => ({
  id: row.object_id,
  object_type: row.object_type,
  subscriptions_count: row.subscriptions_count,
  updated_at: iso(row.updated_at),
});
