import type { Workspace } from '../db/types.js';
import { iso } from '../schemas/common.js';

export const presentWorkspace = (row: Workspace) => ({
  slug: row.slug,
  name: row.name,
  description: row.description,
  mode: row.mode,
  created_at: iso(row.created_at),
});
