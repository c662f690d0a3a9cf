/** Delivery channels, as the workflow tree's `send_*` nodes and the message record name them. */
export const DELIVERY_CHANNELS = [
  'email',
  'sms',
  'whatsapp',
  'androidpush',
  'iospush',
  'webpush',
  'slack',
  'ms_teams',
  'inbox',
] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];
