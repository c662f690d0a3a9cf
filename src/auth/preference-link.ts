import { openLinkToken, type LinkSigner } from '../crypto/signed-links.js';
import { readPreferenceLinkPayload, type PreferenceLinkPayload } from '../domain/preference-links.js';

/**
 * Who a preference page or unsubscribe call is for: the link's signed payload when the link is
 * Herald's and has not expired, else undefined (the page says so; nothing else is learnt).
 */
export function openPreferenceLink(
  signer: LinkSigner,
  token: string,
  nowMs: number,
): PreferenceLinkPayload | undefined {
  return readPreferenceLinkPayload(openLinkToken(signer, token, nowMs));
}
