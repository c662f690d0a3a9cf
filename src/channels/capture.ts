import type { DeliveryOutcome, DeliveryRequest, Provider, VendorConfig } from './provider.js';
import type { ProviderRegistry } from './registry.js';

/**
 * The emulator's provider transport (src/testing.ts, docs/testing-your-notifications.md): each provider
 * keeps its name, channels and config schema, and its `send` records the rendered message instead of
 * calling the vendor. A vendor the caller names still goes through its real provider.
 */

/** What a provider would have sent, as `deliveries()` lists it. */
export interface CapturedDelivery {
  messageId: string;
  executionId: string;
  channel: DeliveryRequest['channel'];
  vendor: { id: string; provider: string; nickname: string | null };
  recipient: DeliveryRequest['recipient'];
  /** The address the provider would have used (an email, a phone number, a push token …). */
  to: unknown;
  tenantId: string;
  workflow: DeliveryRequest['workflow'];
  /** The rendered template variant, exactly as the provider receives it. */
  content: Record<string, unknown>;
  providerMessageId: string;
  /** The engine's time of the send (the emulator's clock), ISO 8601. */
  at: string;
  /** True when the vendor asked for the network and its real provider was called. */
  networked: boolean;
  outcome: DeliveryOutcome['kind'];
}

export interface CaptureOptions {
  record(delivery: CapturedDelivery): void;
  /** Whether this vendor's messages go out through its real provider (the network). */
  networked(vendor: VendorConfig): boolean;
  now(): number;
}

function capturing(provider: Provider, options: CaptureOptions): Provider {
  return {
    name: provider.name,
    channels: provider.channels,
    configSchema: provider.configSchema,
    ...(provider.check ? { check: provider.check.bind(provider) } : {}),
    async send(vendor, request, signal, context) {
      const networked = options.networked(vendor);
      const outcome: DeliveryOutcome = networked
        ? await provider.send(vendor, request, signal, context)
        : { kind: 'sent', providerMessageId: `herald-testing-${request.messageId}` };
      options.record({
        messageId: request.messageId,
        executionId: request.executionId,
        channel: request.channel,
        vendor: { id: vendor.id, provider: vendor.provider, nickname: vendor.nickname },
        recipient: request.recipient,
        to: request.channelIdentity,
        tenantId: request.tenantId,
        workflow: request.workflow,
        content: request.content,
        providerMessageId:
          (outcome.kind === 'sent' ? outcome.providerMessageId : undefined) ?? `herald-testing-${request.messageId}`,
        at: new Date(options.now()).toISOString(),
        networked,
        outcome: outcome.kind,
      });
      return outcome;
    },
  };
}

/** Every provider of `registry`, its sends recorded (and only networked vendors' sent). */
export function capturingProviders(registry: ProviderRegistry, options: CaptureOptions): ProviderRegistry {
  return new Map([...registry].map(([name, provider]) => [name, capturing(provider, options)]));
}
