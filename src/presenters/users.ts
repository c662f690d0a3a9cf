import { iso } from '../schemas/common.js';

interface UserRow {
  distinct_id: string;
  properties: Record<string, unknown>;
  channels: Record<string, unknown[]>;
  created_at: Date;
  updated_at: Date;
}

/** The User record of docs/spec/interface.md: channel arrays flattened beside the fields, only where non-empty. */
export function presentUser(row: UserRow) {
  const channels = Object.fromEntries(Object.entries(row.channels).filter(([, entries]) => entries.length > 0));
  return {
    distinct_id: row.distinct_id,
    properties: row.properties,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...channels,
  };
}
