import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';

/**
 * A query Kysely builds and compiles once, then runs with each call's parameter values: for the
 * hottest reads, where building and compiling the query again was about 9 % of a primary-key GET's
 * CPU (BENCHMARKS.md). `build` gets placeholder values and must send every one as a parameter, in
 * the order the returned function takes them (checked on first use).
 */
export function reusableQuery<Row, Parameters extends unknown[]>(
  build: (db: Db, ...placeholders: Parameters) => Compilable<Row>,
  placeholders: Parameters,
) {
  let compiled: CompiledQuery<Row> | undefined;
  return async (db: Db, ...parameters: Parameters): Promise<Row[]> => {
    if (!compiled) {
      const query = build(db, ...placeholders).compile();
      if (
        query.parameters.length !== placeholders.length ||
        query.parameters.some((value, index) => value !== placeholders[index])
      ) {
        throw new Error(
          `reusableQuery: the query must send its ${placeholders.length} placeholders as its parameters, in order: ${query.sql}`,
        );
      }
      compiled = query;
    }
    const { rows } = await db.executeQuery<Row>({ ...compiled, parameters });
    return rows;
  };
}
