import { sql, type Kysely } from 'kysely';

// Frozen in time: vendor approval of committed SMS and WhatsApp variants that need it (docs/channels.md,
// "Vendor approval"). One row per variant of a committed version; no row means the variant awaits approval.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('template_variant_approvals')
    // Its own key to templates too: the workspace a row belongs to is one join away (test/support/workspace-scope.ts).
    .addColumn('template_id', 'bigint', (c) => c.notNull().references('templates.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('variant_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'sent_for_approval', 'approved', 'rejected', 'discarded')`),
    )
    .addColumn('vendor_approvals', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('discard_comment', 'text')
    .addColumn('approval_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('template_variant_approvals_pk', ['template_id', 'version_no', 'channel', 'variant_id'])
    .addForeignKeyConstraint(
      'template_variant_approvals_version_fk',
      ['template_id', 'version_no'],
      'template_versions',
      ['template_id', 'version_no'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('template_variant_approvals').ifExists().execute();
}
