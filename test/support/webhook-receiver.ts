import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A local HTTP receiver for the `webhook` provider (127.0.0.1 only): records each POST, checks its
 * signature with the shared secret, and answers as told per recipient — a status (with Retry-After),
 * or a hang longer than the engine's timeout.
 */
export type Answer = { status: number; retryAfter?: string } | { hangMs: number; status: number };

export interface ReceivedDelivery {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the posted JSON, read freely by assertions
  body: Record<string, any>;
  signatureValid: boolean;
  /** The `idempotency-key` header: the same on every attempt of one message. */
  idempotencyKey: string;
  at: number;
}

export async function startWebhookReceiver(secret: string) {
  const received: ReceivedDelivery[] = [];
  const plans = new Map<string, Answer[]>();
  const server = http.createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const timestamp = String(request.headers['x-herald-timestamp'] ?? '');
      const signature = String(request.headers['x-herald-signature'] ?? '');
      const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex')}`;
      const signatureValid =
        signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
      const body = JSON.parse(raw) as ReceivedDelivery['body'];
      received.push({
        body,
        signatureValid,
        idempotencyKey: String(request.headers['idempotency-key'] ?? ''),
        at: Date.now(),
      });
      const who = body.recipient?.distinct_id ?? body.recipient?.id ?? '';
      const answer = plans.get(who)?.shift() ?? { status: 200 };
      const reply = () => {
        if (response.destroyed) return;
        response.writeHead(answer.status, {
          'content-type': 'application/json',
          ...('retryAfter' in answer && answer.retryAfter ? { 'retry-after': answer.retryAfter } : {}),
        });
        response.end(JSON.stringify({ ok: answer.status < 300 }));
      };
      if ('hangMs' in answer) setTimeout(reply, answer.hangMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** The answers, in order, for deliveries to this recipient; 200 after they run out. */
    plan(recipient: string, answers: Answer[]) {
      plans.set(recipient, answers);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
