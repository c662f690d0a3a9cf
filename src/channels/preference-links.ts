import { signLinkToken, type LinkSigner } from '../crypto/signed-links.js';
import type { Db } from '../db/database.js';
import { findCategory } from '../domain/preference-category-rules.js';
import type { PreferenceLinkPayload } from '../domain/preference-links.js';
import { findLivePreferenceCategories } from '../repositories/preference-categories.js';
import { memoized, type RenderMemo, type RenderOutcome, type RenderRequest } from './rendering.js';

/** How long a preference or unsubscribe link in a message works (ours: the hosted platform does not say). */
export const PREFERENCE_LINK_TTL_SECONDS = 60 * 86_400;

export interface PreferenceLinkOptions {
  signer: LinkSigner;
  /** Where Herald is reached (PUBLIC_URL), unless the tenant names a hosted_preference_domain. */
  publicUrl: string;
  now?: () => number;
}

type Render = (request: RenderRequest, db?: Db, memo?: RenderMemo) => Promise<RenderOutcome>;

const originOf = (value: unknown) => {
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
};

/**
 * The workspace's live preference categories, read once per memo: a batch's renders and its steps' delivery decisions
 * (src/engine/run-scope.ts) share the read.
 */
export const liveCategories = (db: Db, workspaceId: number, memo?: RenderMemo) =>
  memoized(memo, `categories\u0000${workspaceId}`, () => findLivePreferenceCategories(db, workspaceId));

/**
 * Gives every template a user's `{{$preferences_url}}` and `{{$unsubscribe_url}}` (docs/clients.md):
 * links to Herald's page, signed and expiring, on the tenant's hosted_preference_domain when it has
 * one; `$preferences_url` is the tenant's embedded_preference_url when it has one. An email of a
 * category the user may opt out of carries `list_unsubscribe`, which the email provider turns into
 * RFC 8058's List-Unsubscribe and List-Unsubscribe-Post headers.
 */
export function withPreferenceLinks(render: Render, options: PreferenceLinkOptions, defaultDb: Db): Render {
  const now = options.now ?? Date.now;
  return async (request, db, memo) => {
    const distinctId = request.context.$recipient?.distinct_id;
    if (typeof distinctId !== 'string' || distinctId === '') return render(request, db, memo);
    const brand = request.context.$brand ?? {};
    const base = originOf(brand.hosted_preference_domain) ?? options.publicUrl.replace(/\/+$/, '');
    const payload: PreferenceLinkPayload = {
      w: Number(request.workspaceId),
      d: distinctId,
      t: request.tenantId,
      c: request.category ?? null,
      exp: Math.floor(now() / 1000) + PREFERENCE_LINK_TTL_SECONDS,
    };
    const token = signLinkToken(options.signer, { ...payload });
    const unsubscribeUrl = `${base}/unsubscribe/${token}`;
    const embedded = typeof brand.embedded_preference_url === 'string' ? brand.embedded_preference_url : '';
    const context = {
      ...request.context,
      $preferences_url: embedded || `${base}/preferences/${token}`,
      $unsubscribe_url: unsubscribeUrl,
    };
    const outcome = await render({ ...request, context }, db, memo);
    if (!outcome.ok || request.channel !== 'email' || !request.category) return outcome;
    // Read once per batch of renders (the memo), not once per email.
    const live = await liveCategories(db ?? defaultDb, Number(request.workspaceId), memo);
    const category = findCategory(live.root_categories, request.category);
    if (!category || category.default_preference === 'cant_unsubscribe') return outcome;
    return { ...outcome, content: { ...outcome.content, list_unsubscribe: unsubscribeUrl } };
  };
}
