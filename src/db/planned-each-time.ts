/**
 * Ends a statement that is planned on every execution, never named: a lookup of a batch's rows by
 * a list of keys in a table a fan-out grows by thousands of rows a second (runs, messages). A named
 * statement's generic plan is made once per connection, when the table may still be small (a seq
 * scan is then the cheaper plan), and kept while the table grows: on a 100,000-recipient fan-out,
 * every batch scanned the whole runs table (93 million rows read in all). Planned each time, the
 * plan follows the table (a few hundred µs of planning per batch). On PGlite too
 * (src/db/pglite-statements.ts), which has no autovacuum: Herald's own upkeep (src/db/table-upkeep.ts)
 * analyzes a grown table, and so has a named statement's plan made again, at most once a minute.
 */
export const PLANNED_EACH_TIME = ' /* planned each time */';
