/**
 * The channels, defined once: the workflow tree's `send_*` nodes, templates, vendors, the message
 * record and the delivery queues all name them from here.
 */

/** The channels delivered through a provider (a vendor configures each; each has its own delivery queue). */
export const PROVIDER_CHANNELS = [
  'email',
  'sms',
  'whatsapp',
  'androidpush',
  'iospush',
  'webpush',
  'slack',
  'ms_teams',
] as const;
export type ProviderChannel = (typeof PROVIDER_CHANNELS)[number];

/** Every delivery channel: the provider channels and the in-app inbox, which Herald delivers itself. */
export const DELIVERY_CHANNELS = [...PROVIDER_CHANNELS, 'inbox'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];
