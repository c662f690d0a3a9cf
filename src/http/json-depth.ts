/**
 * The deepest JSON body accepted (ours). Parsing is iterative, but serializing a value (into
 * jsonb, into a response) recurses: a body nested 100k levels deep would overflow the stack.
 * No field of the API needs more than a few levels; 64 leaves room for free-form properties.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests arrays/objects deeper than `max`, checked without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
