import type { DeliveryOutcome } from '../channels/provider.js';
import { isTwilioSigned, twilioOutcome } from '../channels/providers/twilio.js';
import type { Db } from '../db/database.js';
import { openConfig, type Sealer } from '../domain/vendor-secrets.js';
import { HttpError } from '../errors.js';
import {
  lockMessageByProviderId,
  saveDeliveries,
  type DeliveryUpdate,
  type MessageRow,
} from '../repositories/messages.js';
import { markChannelEntryInactive } from '../repositories/channel-feedback.js';
import { findVendor } from '../repositories/vendors.js';
import { findWorkspaceBySlug } from '../repositories/workspaces.js';
import { statusesChanged } from './message-status.js';

/**
 * Provider feedback (docs/channels.md, "Provider feedback"; product spec §5): an address the platform reported dead
 * (FCM UNREGISTERED, APNs 410, web push 404/410) is marked inactive on its user, so no later delivery uses it. Run
 * after the attempt's outcome is saved; a failure here loses only the mark, and the next send to that address
 * reports it again.
 */
export async function retireDeadAddresses(db: Db, results: readonly { row: MessageRow; outcome?: DeliveryOutcome }[]) {
  for (const { row, outcome } of results) {
    if (outcome?.kind !== 'failed' || !outcome.deadAddress) continue;
    if (row.recipient_type !== 'user' || row.distinct_id === null || row.channel_identity === null) continue;
    await markChannelEntryInactive(db, {
      workspaceId: row.workspace_id,
      distinctId: row.distinct_id,
      channelKey: `$${row.channel}`,
      value: row.channel_identity,
    });
  }
}

/**
 * Twilio status callbacks (docs/channels.md, "Twilio status callbacks"): Twilio posts a message's progress to the
 * URL its send named; a callback signed with the vendor's auth token moves the message its MessageSid names, in the
 * vendor's workspace, from `sent_by_vendor` to `delivered` or `delivery_failure`. Never backwards: a message already
 * past `sent_by_vendor` (delivered, failed, seen…) is left as it is, so a replayed or late callback changes nothing.
 * The caller learns only 403 (not signed by the vendor), 404 (no such vendor or message) or 204.
 */
export interface StatusCallback {
  workspace: string;
  vendorId: string;
  /** The full URL Twilio called (what it signed). */
  url: string;
  params: Record<string, string>;
  signature: string | undefined;
}

const unknownVendor = () => new HttpError(404, 'vendor not found');
const unknownMessage = () => new HttpError(404, 'message not found');

export async function receiveTwilioStatus(deps: { db: Db; secretBox: Sealer }, callback: StatusCallback) {
  const workspace = await findWorkspaceBySlug(deps.db, callback.workspace);
  const vendor = workspace && (await findVendor(deps.db, workspace.id, callback.vendorId));
  if (!workspace || !vendor || vendor.provider !== 'twilio') throw unknownVendor();
  const token = openConfig(vendor.config, deps.secretBox).auth_token;
  if (typeof token !== 'string' || !isTwilioSigned(token, callback.url, callback.params, callback.signature))
    throw new HttpError(403, 'the request is not signed by this vendor');

  const sid = callback.params.MessageSid;
  if (!sid) throw unknownMessage();
  const outcome = twilioOutcome(callback.params.MessageStatus ?? '');
  await deps.db.transaction().execute(async (trx) => {
    const row = await lockMessageByProviderId(trx, workspace.id, sid);
    if (!row) throw unknownMessage();
    if (!outcome || row.status !== 'sent_by_vendor') return;
    const code = callback.params.ErrorCode;
    const update: DeliveryUpdate =
      outcome === 'delivered'
        ? { status: 'delivered', delivered: true }
        : {
            status: 'delivery_failure',
            reason: 'vendor_reported_failure',
            error: {
              message: `twilio reported the message ${callback.params.MessageStatus}${code ? ` (error ${code})` : ''}`,
              ...(code ? { code } : {}),
            },
          };
    await saveDeliveries(trx, [{ ...update, id: row.id }]);
    await statusesChanged(trx, [{ ...row, status: update.status }]);
  });
}
