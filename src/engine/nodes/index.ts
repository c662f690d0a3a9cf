import { nodeConfig } from '../../domain/workflow-tree.js';
import { DELIVERY_NODE_CHANNELS, type NodeType } from '../../schemas/workflow-nodes.js';
import { batch } from './batch.js';
import { branch } from './branch.js';
import { branchWaituntil } from './branch-waituntil.js';
import { delay } from './delay.js';
import { deliveryNode, sendMultiChannel } from './delivery.js';
import { digest } from './digest.js';
import { httpapiFetch } from './httpapi-fetch.js';
import { httpapiWebhook } from './httpapi-webhook.js';
import { invokeworkflow } from './invokeworkflow.js';
import { listAddUser, listRemoveUser } from './list-membership.js';
import { objectAddSubscription, objectRemoveSubscription } from './object-subscription.js';
import { sendSmartChannelRouting } from './send-smart-channel-routing.js';
import { timewindow } from './timewindow.js';
import { transform } from './transform.js';
import { userupdate } from './userupdate.js';
import type { NodeHandler, NodeHandlerOf } from './types.js';

/**
 * One handler per node type of src/schemas/workflow-nodes.ts, the types the commit-time validation
 * admits, each given its node's config as the type's schema has it: a type without a handler here, a
 * key that is no node type, or a handler of another type's config does not compile.
 */
const HANDLERS = {
  send_email: deliveryNode(DELIVERY_NODE_CHANNELS.send_email),
  send_sms: deliveryNode(DELIVERY_NODE_CHANNELS.send_sms),
  send_whatsapp: deliveryNode(DELIVERY_NODE_CHANNELS.send_whatsapp),
  send_mobile_push: deliveryNode(DELIVERY_NODE_CHANNELS.send_mobile_push),
  send_inbox: deliveryNode(DELIVERY_NODE_CHANNELS.send_inbox),
  send_webpush: deliveryNode(DELIVERY_NODE_CHANNELS.send_webpush),
  send_slack: deliveryNode(DELIVERY_NODE_CHANNELS.send_slack),
  send_ms_teams: deliveryNode(DELIVERY_NODE_CHANNELS.send_ms_teams),
  send_multi_channel: sendMultiChannel,
  send_smart_channel_routing: sendSmartChannelRouting,
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
  userupdate,
  subscriberlistoperation_adduser: listAddUser,
  subscriberlistoperation_removeuser: listRemoveUser,
  invokeworkflow,
} satisfies { [T in NodeType]: NodeHandlerOf<T> };

/**
 * By the node type a tree names: undefined for a type the engine does not run (a legacy tree may hold
 * one). Each is called with its own type's nodes only, so its config is of that type.
 */
export const NODE_HANDLERS: Readonly<Partial<Record<string, NodeHandler>>> = Object.fromEntries(
  Object.entries(HANDLERS).map(([type, handler]): [string, NodeHandler] => [
    type,
    (context) => (handler as NodeHandlerOf<NodeType>)(context, nodeConfig(context.node)),
  ]),
);
