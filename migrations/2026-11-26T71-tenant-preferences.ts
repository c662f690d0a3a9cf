import { sql, type Kysely } from 'kysely';

// Frozen in time: a tenant's own defaults for preference categories, overriding the workspace's.
const CHANNELS_CHECK = (column: string) =>
  sql`${sql.ref(column)} is null or jsonb_typeof(${sql.ref(column)}) = 'array'`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenant_category_preferences')
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('preference', 'text', (c) => c.check(sql`preference in ('opt_in', 'opt_out', 'cant_unsubscribe')`))
    .addColumn('visible_to_subscriber', 'boolean')
    .addColumn('mandatory_channels', 'jsonb', (c) => c.check(CHANNELS_CHECK('mandatory_channels')))
    .addColumn('opt_in_channels', 'jsonb', (c) => c.check(CHANNELS_CHECK('opt_in_channels')))
    .addColumn('blocked_channels', 'jsonb', (c) => c.check(CHANNELS_CHECK('blocked_channels')))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('tenant_category_preferences_pk', ['workspace_id', 'tenant_id', 'category'])
    .addForeignKeyConstraint(
      'tenant_category_preferences_tenant_fk',
      ['workspace_id', 'tenant_id'],
      'tenants',
      ['workspace_id', 'tenant_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tenant_category_preferences').ifExists().execute();
}
