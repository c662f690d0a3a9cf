import type { Provider } from './provider.js';
import { deliveryProviders } from './providers/index.js';
import { webhookProvider } from './providers/webhook.js';

/** Every provider Herald delivers through, by the `provider` name vendors use. */
export type ProviderRegistry = ReadonlyMap<string, Provider>;

export const providers: ProviderRegistry = new Map<string, Provider>(
  [...deliveryProviders, webhookProvider].map((provider) => [provider.name, provider]),
);

/** Closes what providers keep between sends (the SMTP connection pools) at shutdown. */
export async function closeProviders(registry: ProviderRegistry = providers) {
  await Promise.all([...registry.values()].map((provider) => provider.close?.()));
}
