/**
 * The most parameters one statement may bind on either database. PostgreSQL's protocol counts them in
 * 16 bits (65,535); PGlite's parser reads the count as signed, and past 32,767 it does not fail the
 * statement: it answers the next ones with no rows, for the life of the process (issue 25). A list
 * that grows with a request is bound as one JSON or array parameter, or sent in chunks.
 */
export const MAX_BIND_PARAMETERS = 32_767;

/** Refuses, before anything is sent, a statement the database could not parse in step. */
export function assertBindable(parameters: readonly unknown[] | undefined) {
  const count = parameters?.length ?? 0;
  if (count > MAX_BIND_PARAMETERS)
    throw new Error(
      `a statement binds ${count} parameters, more than the ${MAX_BIND_PARAMETERS} either database takes`,
    );
}
