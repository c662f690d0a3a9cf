import type { DeliveryOutcome } from '../channels/provider.js';
import type { Db } from '../db/database.js';
import type { MessageRow } from '../repositories/messages.js';
import { markChannelEntryInactive } from '../repositories/channel-feedback.js';

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
