import { sql } from 'kysely';

/**
 * `column = anyText(values)`: the rows whose column is one of a list of texts, the list sent as one JSON
 * parameter (the same SQL text, and so the same named statement, whatever its length; no bind-parameter
 * limit). Asked as `column in (select … from jsonb_array_elements_text(…))` instead, the planner guesses
 * the list at 100 items and hash-joins it to every row that passes the other conditions: a batch of 50
 * users read all 20,000 of a workspace, analyzed or not (6 ms on PGlite). Here the array is computed
 * first and its values are index conditions: the same batch reads its 50 rows by the unique index
 * (1.2 ms; test/operations/user-lookup-plans.test.ts, BENCHMARKS.md "Embedded engine").
 */
export const anyText = (values: readonly string[]) =>
  sql<string>`any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)))`;
