import type { Static } from '@sinclair/typebox';
import type { ListRow } from '../repositories/subscriber-lists.js';
import { iso } from '../schemas/common.js';
import type { SubscriberListSchema, SubscriberListVersionSchema } from '../schemas/subscriber-lists.js';

const commonFields = (row: ListRow) => ({
  list_id: row.list_id,
  list_name: row.list_name,
  list_description: row.list_description,
  list_type: 'static_list' as const,
  subscribers_count: row.subscribers_count,
  source: row.source,
  is_readonly: false,
  track_user_entry: row.track_user_entry,
  track_user_exit: row.track_user_exit,
  requested_for_delete: false,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

export function presentList(row: ListRow): Static<typeof SubscriberListSchema> {
  return {
    ...commonFields(row),
    status: 'active',
    version_id: null,
    drafts:
      row.drafts === null
        ? null
        : row.drafts.map((draft) => ({
            version_id: draft.version_id,
            subscribers_count: Number(draft.subscribers_count),
            created_at: iso(draft.created_at),
          })),
  };
}

export function presentListVersion(
  row: ListRow,
  version: { version_id: string; subscribers_count: number },
): Static<typeof SubscriberListVersionSchema> {
  return {
    ...commonFields(row),
    subscribers_count: version.subscribers_count,
    status: 'draft',
    version_id: version.version_id,
  };
}
