import { sql } from 'kysely';
import type { Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';

const pending = sql<boolean>`draft_content is distinct from live_content`;

/**
 * Commits every pending change of the workspace's translations in four statements, whatever
 * their number: lock the pending files, record the version, make uploads live, drop the files
 * marked for deletion. A concurrent commit waits on the locks, then finds those files settled.
 * Returns undefined when nothing is pending.
 */
export async function commitTranslations(
  trx: Trx,
  workspaceId: number,
  input: { commitMessage: string | null; actor: ActorColumn | null },
) {
  const changes = await trx
    .selectFrom('translation_files')
    .select(['filename', 'locale', 'namespace', 'draft_content as content'])
    .select(
      sql<string>`case when draft_content is null then 'deleted' when live_content is null then 'added' else 'updated' end`.as(
        'action',
      ),
    )
    .where('workspace_id', '=', workspaceId)
    .where(pending)
    .orderBy('filename')
    .forUpdate()
    .execute();
  if (changes.length === 0) return undefined;

  // The (workspace_id, version_no) primary key refuses a second version with the same number.
  const version = await trx
    .insertInto('translation_versions')
    .columns(['workspace_id', 'version_no', 'changes', 'commit_message', 'committed_by'])
    .expression((eb) =>
      eb
        .selectFrom('translation_versions')
        .select([
          sql<number>`${workspaceId}::integer`.as('workspace_id'),
          sql<number>`coalesce(max(version_no), 0) + 1`.as('version_no'),
          sql`${JSON.stringify(changes.map(({ filename, action, content }) => ({ filename, action, content })))}::jsonb`.as(
            'changes',
          ),
          sql`${input.commitMessage}::text`.as('commit_message'),
          sql`${JSON.stringify(input.actor)}::jsonb`.as('committed_by'),
        ])
        .where('workspace_id', '=', workspaceId),
    )
    .returning(['version_no', 'commit_message', 'committed_at'])
    .executeTakeFirstOrThrow();

  const filenames = changes.map((change) => change.filename);
  await trx
    .updateTable('translation_files')
    .set({
      live_action: sql`case when live_content is null then 'added' else 'updated' end`,
      live_content: sql`draft_content`,
      live_updated_at: version.committed_at,
    })
    .where('workspace_id', '=', workspaceId)
    .where('filename', 'in', filenames)
    .where('draft_content', 'is not', null)
    .execute();
  await trx
    .deleteFrom('translation_files')
    .where('workspace_id', '=', workspaceId)
    .where('filename', 'in', filenames)
    .where('draft_content', 'is', null)
    .execute();
  return { version, changes };
}
