import { sql, type Kysely } from 'kysely';

// Frozen in time: objects, and subscriptions of users or child objects to a parent object.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('objects')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('properties', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('channels', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('subscriptions_count', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`subscriptions_count >= 0`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('objects_workspace_type_id_unique', ['workspace_id', 'object_type', 'object_id'])
    .execute();
  await db.schema
    .createIndex('objects_workspace_type_idx')
    .on('objects')
    .columns(['workspace_id', 'object_type', 'id'])
    .execute();

  // A subscriber is a user or a child object, never both; deleting either side removes the subscription.
  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('object_id', 'bigint', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('child_object_id', 'bigint', (c) => c.references('objects.id').onDelete('cascade'))
    .addColumn('properties', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('subscriptions_one_subscriber', sql`(user_id is null) <> (child_object_id is null)`)
    .addCheckConstraint('subscriptions_not_self', sql`child_object_id is distinct from object_id`)
    .execute();
  await sql`create unique index subscriptions_unique on subscriptions (object_id, coalesce(user_id, 0), coalesce(child_object_id, 0))`.execute(
    db,
  );
  await db.schema.createIndex('subscriptions_object_idx').on('subscriptions').columns(['object_id', 'id']).execute();
  await db.schema.createIndex('subscriptions_user_idx').on('subscriptions').columns(['user_id', 'id']).execute();
  await db.schema
    .createIndex('subscriptions_child_idx')
    .on('subscriptions')
    .columns(['child_object_id', 'id'])
    .execute();

  // objects.subscriptions_count follows the subscriptions rows in the same transaction, whichever
  // statement adds or removes them (including cascades from deleted users and objects). Parents are
  // locked in id order first, so concurrent statements never deadlock on them.
  await sql`
    create function subscriptions_count_added() returns trigger language plpgsql as $$
    begin
      perform 1 from objects where id in (select object_id from added) order by id for no key update;
      update objects set subscriptions_count = objects.subscriptions_count + n.k
      from (select object_id, count(*) as k from added group by object_id) as n where objects.id = n.object_id;
      return null;
    end $$`.execute(db);
  await sql`
    create function subscriptions_count_removed() returns trigger language plpgsql as $$
    begin
      perform 1 from objects where id in (select object_id from removed) order by id for no key update;
      update objects set subscriptions_count = objects.subscriptions_count - n.k
      from (select object_id, count(*) as k from removed group by object_id) as n where objects.id = n.object_id;
      return null;
    end $$`.execute(db);
  await sql`create trigger subscriptions_count_insert after insert on subscriptions referencing new table as added
    for each statement execute function subscriptions_count_added()`.execute(db);
  await sql`create trigger subscriptions_count_delete after delete on subscriptions referencing old table as removed
    for each statement execute function subscriptions_count_removed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('subscriptions').ifExists().execute();
  await sql`drop function if exists subscriptions_count_added()`.execute(db);
  await sql`drop function if exists subscriptions_count_removed()`.execute(db);
  await db.schema.dropTable('objects').ifExists().execute();
}
