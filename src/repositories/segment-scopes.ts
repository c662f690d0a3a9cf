import type { Db } from '../db/database.js';

/** Lets the backend with this process id see one workspace through the segment views. */
export function scopeSegmentBackend(db: Db, backendPid: number, workspaceId: number) {
  return db
    .insertInto('segment_scopes')
    .values({ backend_pid: backendPid, workspace_id: workspaceId })
    .onConflict((oc) => oc.column('backend_pid').doUpdateSet({ workspace_id: workspaceId }))
    .execute();
}

/** The backend sees no workspace again. */
export function unscopeSegmentBackend(db: Db, backendPid: number) {
  return db.deleteFrom('segment_scopes').where('backend_pid', '=', backendPid).execute();
}
