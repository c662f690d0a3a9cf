import { expect } from 'vitest';
import type {
  DeliveryChannel,
  DeliveryOutcome,
  DeliveryRequest,
  Provider,
  SendContext,
  VendorConfig,
} from '../../src/channels/provider.js';
import { outboundPolicy } from '../../src/channels/outbound.js';

/** Tests' peers listen on 127.0.0.1: recipient-chosen destinations there are allowed explicitly, as an operator would. */
export const LOOPBACK_ALLOWED: SendContext = { outbound: outboundPolicy({ allowPrivate: true }) };

/** One rendered message for one recipient, as the engine hands it to a provider. */
export function deliveryRequest(
  channel: DeliveryChannel,
  channelIdentity: unknown,
  content: Record<string, unknown>,
): DeliveryRequest {
  return {
    messageId: '01JDELIVERY0000000000000001',
    executionId: '01JEXECUTION000000000000001',
    channel,
    recipient: { distinct_id: 'user-1' },
    channelIdentity,
    tenantId: 'default',
    workflow: { slug: 'welcome', version_id: '01JVERSION00000000000000001', node_ref: 'send-1' },
    content,
  };
}

export const vendorOf = (provider: string, config: Record<string, unknown>): VendorConfig => ({
  id: '01JVENDOR000000000000000001',
  provider,
  nickname: 'test vendor',
  config,
});

/**
 * Sends through the provider while recording everything written to stdout and stderr (a provider never logs, and a
 * library it uses must not either), then checks that no secret appears in the outcome or in that output.
 */
export async function sendChecked(
  provider: Provider,
  vendor: VendorConfig,
  request: DeliveryRequest,
  options: { secrets?: string[]; signal?: AbortSignal; context?: SendContext } = {},
): Promise<DeliveryOutcome> {
  const written: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams)
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (originals[streams.indexOf(stream)] as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
  let outcome: DeliveryOutcome;
  try {
    outcome = await provider.send(
      vendor,
      request,
      options.signal ?? new AbortController().signal,
      options.context ?? LOOPBACK_ALLOWED,
    );
  } finally {
    streams.forEach((stream, index) => (stream.write = originals[index] as typeof stream.write));
  }
  const seen = [JSON.stringify(outcome), ...written].join('\n');
  // A multi-line secret (a PEM key) must not leak whole, JSON-escaped, or line by line.
  const pieces = (options.secrets ?? []).flatMap((secret) => [
    secret,
    JSON.stringify(secret).slice(1, -1),
    ...secret.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----')),
  ]);
  for (const piece of pieces) expect(seen).not.toContain(piece);
  return outcome;
}
