/** What a preference or unsubscribe link names: workspace, user, tenant, the message's category, expiry (s). */
export interface PreferenceLinkPayload {
  w: number;
  d: string;
  t: string;
  c: string | null;
  exp: number;
}

/** The payload of an opened link, when it has the fields Herald signs (else undefined). */
export function readPreferenceLinkPayload(
  value: Record<string, unknown> | undefined,
): PreferenceLinkPayload | undefined {
  if (!value) return undefined;
  const { w, d, t, c, exp } = value;
  if (typeof w !== 'number' || typeof d !== 'string' || typeof t !== 'string' || typeof exp !== 'number')
    return undefined;
  if (c !== null && typeof c !== 'string') return undefined;
  return { w, d, t, c, exp };
}
