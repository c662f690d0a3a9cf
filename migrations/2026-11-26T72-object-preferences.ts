import { sql, type Kysely } from 'kysely';

// Frozen in time: objects' notification preferences per (object, tenant), as users have theirs.
const CHANNELS = sql.raw(
  `('email', 'sms', 'whatsapp', 'androidpush', 'iospush', 'webpush', 'inbox', 'slack', 'ms_teams')`,
);

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('object_channel_preferences')
    .addColumn('object_id', 'bigint', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ${CHANNELS}`))
    .addColumn('is_restricted', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('object_channel_preferences_pk', ['object_id', 'tenant_id', 'channel'])
    .addForeignKeyConstraint(
      'object_channel_preferences_tenant_fk',
      ['workspace_id', 'tenant_id'],
      'tenants',
      ['workspace_id', 'tenant_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('object_channel_preferences_tenant_idx')
    .on('object_channel_preferences')
    .columns(['workspace_id', 'tenant_id'])
    .execute();

  await db.schema
    .createTable('object_category_preferences')
    .addColumn('object_id', 'bigint', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('preference', 'text', (c) => c.check(sql`preference in ('opt_in', 'opt_out')`))
    .addColumn('opt_in_channels', 'jsonb', (c) =>
      c
        .notNull()
        .defaultTo(sql`'[]'::jsonb`)
        .check(sql`jsonb_typeof(opt_in_channels) = 'array'`),
    )
    .addColumn('opt_out_channels', 'jsonb', (c) =>
      c
        .notNull()
        .defaultTo(sql`'[]'::jsonb`)
        .check(sql`jsonb_typeof(opt_out_channels) = 'array'`),
    )
    .addColumn('digest_schedule', 'jsonb')
    .addColumn('properties', 'jsonb', (c) =>
      c
        .notNull()
        .defaultTo(sql`'[]'::jsonb`)
        .check(sql`jsonb_typeof(properties) = 'array'`),
    )
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('object_category_preferences_pk', ['object_id', 'tenant_id', 'category'])
    .addForeignKeyConstraint(
      'object_category_preferences_tenant_fk',
      ['workspace_id', 'tenant_id'],
      'tenants',
      ['workspace_id', 'tenant_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('object_category_preferences_tenant_idx')
    .on('object_category_preferences')
    .columns(['workspace_id', 'tenant_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('object_category_preferences').ifExists().execute();
  await db.schema.dropTable('object_channel_preferences').ifExists().execute();
}
