/** A JSON object: not null, not an array. The one test every reader of untyped JSON uses. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `[2].recipients[0].distinct_id`: a prefix, then a JSON pointer with list indexes bracketed ('body' when both are empty). */
export const fieldAt = (prefix: string, pointer: string) =>
  pointer
    .split('/')
    .filter(Boolean)
    .reduce(
      (at, segment) => (/^\d+$/.test(segment) ? `${at}[${segment}]` : at ? `${at}.${segment}` : segment),
      prefix,
    ) || 'body';
