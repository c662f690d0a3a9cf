import type { OutboundPolicy } from '../channels/outbound.js';
import { urlRefusal } from '../channels/outbound.js';
import type { Db } from '../db/database.js';
import type { Sealer } from '../domain/vendor-secrets.js';
import { fieldError, notFoundErrors } from '../errors.js';
import { isPrefixedId, prefixedId } from '../ids.js';
import { webhookSecret } from '../crypto/tokens.js';
import {
  deleteWebhookEndpoint as deleteEndpointRow,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints as listEndpointRows,
  updateWebhookEndpoint,
  type WebhookEndpointFields,
} from '../repositories/webhook-endpoints.js';
import { WEBHOOK_ENDPOINT_ID_PREFIX } from '../schemas/identifiers.js';

/**
 * Delivery-status webhook endpoints (docs/webhooks.md). The signing secret exists in plain only in the
 * results of createWebhookEndpoint and rotateWebhookEndpointSecret; it is stored sealed by the secret box.
 */

/** An http(s) URL the outbound guard does not refuse outright (a host name is checked again on every connection). */
function checkedUrl(url: string, outbound: OutboundPolicy) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fieldError('url', 'must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw fieldError('url', 'must be an absolute http or https URL');
  if (parsed.username || parsed.password) throw fieldError('url', 'must not carry credentials');
  const refusal = urlRefusal(parsed.href, outbound);
  if (refusal) throw fieldError('url', refusal.message);
  return parsed.href;
}

const known = (id: string) => isPrefixedId(WEBHOOK_ENDPOINT_ID_PREFIX, id);

export const listWebhookEndpoints = (db: Db, workspaceId: number, page: { limit: number; offset: number }) =>
  listEndpointRows(db, workspaceId, page);

export async function getWebhookEndpoint(db: Db, workspaceId: number, id: string) {
  const row = known(id) ? await findWebhookEndpoint(db, workspaceId, id) : undefined;
  if (!row) throw notFoundErrors.webhookEndpoint(id);
  return row;
}

export async function createWebhookEndpoint(
  db: Db,
  deps: { secretBox: Sealer; outbound: OutboundPolicy },
  workspaceId: number,
  body: { url: string; events: string[]; is_active?: boolean; description?: string | null },
) {
  const secret = webhookSecret();
  const row = await insertWebhookEndpoint(db, {
    id: prefixedId(WEBHOOK_ENDPOINT_ID_PREFIX),
    workspaceId,
    url: checkedUrl(body.url, deps.outbound),
    events: body.events,
    isActive: body.is_active ?? true,
    description: body.description ?? null,
    secret: deps.secretBox.encrypt(secret),
  });
  return { row, secret };
}

export async function changeWebhookEndpoint(
  db: Db,
  outbound: OutboundPolicy,
  workspaceId: number,
  id: string,
  body: WebhookEndpointFields,
) {
  const fields = body.url === undefined ? body : { ...body, url: checkedUrl(body.url, outbound) };
  const row = known(id) ? await updateWebhookEndpoint(db, workspaceId, id, fields) : undefined;
  if (!row) throw notFoundErrors.webhookEndpoint(id);
  return row;
}

/** A new secret signs every attempt from now on, retries of earlier events included; the old one stops at once. */
export async function rotateWebhookEndpointSecret(db: Db, secretBox: Sealer, workspaceId: number, id: string) {
  const secret = webhookSecret();
  const row = known(id)
    ? await updateWebhookEndpoint(db, workspaceId, id, { secret: secretBox.encrypt(secret) })
    : undefined;
  if (!row) throw notFoundErrors.webhookEndpoint(id);
  return { row, secret };
}

export async function deleteWebhookEndpoint(db: Db, workspaceId: number, id: string) {
  if (!known(id) || !(await deleteEndpointRow(db, workspaceId, id))) throw notFoundErrors.webhookEndpoint(id);
}
