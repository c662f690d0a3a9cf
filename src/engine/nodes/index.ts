import { batch } from './batch.js';
import { branch } from './branch.js';
import { branchWaituntil } from './branch-waituntil.js';
import { delay } from './delay.js';
import { digest } from './digest.js';
import { httpapiFetch } from './httpapi-fetch.js';
import { httpapiWebhook } from './httpapi-webhook.js';
import { invokeworkflow } from './invokeworkflow.js';
import { listAddUser, listRemoveUser } from './list-membership.js';
import { objectAddSubscription, objectRemoveSubscription } from './object-subscription.js';
import { sendEmail } from './send-email.js';
import { sendInbox } from './send-inbox.js';
import { sendMobilePush } from './send-mobile-push.js';
import { sendMsTeams } from './send-ms-teams.js';
import { sendMultiChannel } from './send-multi-channel.js';
import { sendSlack } from './send-slack.js';
import { sendSmartChannelRouting } from './send-smart-channel-routing.js';
import { sendSms } from './send-sms.js';
import { sendWebpush } from './send-webpush.js';
import { sendWhatsapp } from './send-whatsapp.js';
import { timewindow } from './timewindow.js';
import { transform } from './transform.js';
import { userupdate } from './userupdate.js';
import type { NodeHandler } from './types.js';

/** The node types the engine runs; the commit-time validation (src/domain/workflow-tree.ts) admits exactly these. */
export const NODE_HANDLERS: Record<string, NodeHandler> = {
  send_email: sendEmail,
  send_sms: sendSms,
  send_whatsapp: sendWhatsapp,
  send_mobile_push: sendMobilePush,
  send_inbox: sendInbox,
  send_webpush: sendWebpush,
  send_slack: sendSlack,
  send_ms_teams: sendMsTeams,
  send_multi_channel: sendMultiChannel,
  delay,
  branch,
  httpapi_webhook: httpapiWebhook,
  batch,
  timewindow,
  digest,
  branch_waituntil: branchWaituntil,
  httpapi_fetch: httpapiFetch,
  objectoperation_addsubscription: objectAddSubscription,
  objectoperation_removesubscription: objectRemoveSubscription,
  transform,
  send_smart_channel_routing: sendSmartChannelRouting,
  userupdate,
  subscriberlistoperation_adduser: listAddUser,
  subscriberlistoperation_removeuser: listRemoveUser,
  invokeworkflow,
};
