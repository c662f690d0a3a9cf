import { sql, type Kysely } from 'kysely';

// Frozen in time: users' notification preferences, per (user, tenant).
const CHANNELS = sql.raw(
  `('email', 'sms', 'whatsapp', 'androidpush', 'iospush', 'webpush', 'inbox', 'slack', 'ms_teams')`,
);

export async function up(db: Kysely<any>): Promise<void> {
  // A channel the user turned off in one tenant (is_restricted), for every category but cant_unsubscribe ones.
  await db.schema
    .createTable('user_channel_preferences')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ${CHANNELS}`))
    .addColumn('is_restricted', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('user_channel_preferences_pk', ['user_id', 'tenant_id', 'channel'])
    .addForeignKeyConstraint(
      'user_channel_preferences_tenant_fk',
      ['workspace_id', 'tenant_id'],
      'tenants',
      ['workspace_id', 'tenant_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('user_channel_preferences_tenant_idx')
    .on('user_channel_preferences')
    .columns(['workspace_id', 'tenant_id'])
    .execute();

  // A user's choice for one category in one tenant. A null preference follows the category default;
  // opt_out_channels apply while the category is opted in, opt_in_channels while it is opted out.
  await db.schema
    .createTable('user_category_preferences')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
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
    .addPrimaryKeyConstraint('user_category_preferences_pk', ['user_id', 'tenant_id', 'category'])
    .addForeignKeyConstraint(
      'user_category_preferences_tenant_fk',
      ['workspace_id', 'tenant_id'],
      'tenants',
      ['workspace_id', 'tenant_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('user_category_preferences_tenant_idx')
    .on('user_category_preferences')
    .columns(['workspace_id', 'tenant_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_category_preferences').ifExists().execute();
  await db.schema.dropTable('user_channel_preferences').ifExists().execute();
}
