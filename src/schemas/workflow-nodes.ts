import type { DeliveryChannel } from './delivery-channels.js';

/**
 * The node types of a workflow tree, defined once: the commit-time validation admits exactly these
 * (src/domain/workflow-tree.ts) and the engine's handler map must hold one handler for each, which
 * the compiler checks (src/engine/nodes/index.ts).
 */

/** The delivery nodes of one fixed channel set, in the message's channel names. */
export const DELIVERY_NODE_CHANNELS = {
  send_email: ['email'],
  send_sms: ['sms'],
  send_whatsapp: ['whatsapp'],
  /** Both push channels, each decided on its own (Android, iOS). */
  send_mobile_push: ['androidpush', 'iospush'],
  send_inbox: ['inbox'],
  send_webpush: ['webpush'],
  send_slack: ['slack'],
  send_ms_teams: ['ms_teams'],
} as const satisfies Record<string, readonly DeliveryChannel[]>;

export type FixedDeliveryNodeType = keyof typeof DELIVERY_NODE_CHANNELS;

export const NODE_TYPES = [
  ...(Object.keys(DELIVERY_NODE_CHANNELS) as FixedDeliveryNodeType[]),
  /** Its template on each of its channels (`channels`, else `channels_expr`). */
  'send_multi_channel',
  'send_smart_channel_routing',
  'delay',
  'branch',
  'httpapi_webhook',
  'batch',
  'timewindow',
  'digest',
  'branch_waituntil',
  'httpapi_fetch',
  'objectoperation_addsubscription',
  'objectoperation_removesubscription',
  'transform',
  'userupdate',
  'subscriberlistoperation_adduser',
  'subscriberlistoperation_removeuser',
  'invokeworkflow',
] as const;

export type NodeType = (typeof NODE_TYPES)[number];

export const isNodeType = (type: string): type is NodeType => (NODE_TYPES as readonly string[]).includes(type);

/** The nodes that send a template: they name one (`template`), which must be committed (docs/configuration.md). */
export const isDeliveryNode = (type: string) =>
  type in DELIVERY_NODE_CHANNELS || type === 'send_multi_channel' || type === 'send_smart_channel_routing';
