/** A JSON object: not null, not an array. The one test every reader of untyped JSON uses. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
