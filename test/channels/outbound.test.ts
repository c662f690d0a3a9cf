import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { addressRefusal, outboundPolicy, parseAllowedHosts, postGuarded } from '../../src/channels/outbound.js';
import { incomingWebhookProvider } from '../../src/channels/providers/incoming-webhook.js';
import { vapidProvider } from '../../src/channels/providers/vapid.js';
import { loadConfig } from '../../src/config.js';
import { outboundPolicyOf } from '../../src/channels/outbound.js';
import { deliveryRequest, sendChecked, vendorOf } from '../support/deliveries.js';
import { HttpPeer } from '../support/http-peer.js';
import { WebPushSubscriber } from '../support/web-push-subscriber.js';

const strict = outboundPolicy();
const intranet = outboundPolicy({ allowPrivate: true });

describe('outbound policy: which addresses a recipient-chosen destination may be', () => {
  it.each([
    ['169.254.169.254', 'a link-local address (cloud metadata services live there)'],
    ['fe80::1', 'a link-local address (cloud metadata services live there)'],
    ['127.0.0.1', 'a loopback address'],
    ['127.8.9.10', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.20.0.5', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['100.64.0.1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['0.0.0.0', 'an unspecified, multicast or reserved address'],
    ['::', 'an unspecified, multicast or reserved address'],
    ['224.0.0.251', 'an unspecified, multicast or reserved address'],
    ['255.255.255.255', 'an unspecified, multicast or reserved address'],
  ])('refuses %s by default: %s', (address, label) => {
    expect(addressRefusal(address, strict)).toBe(`${address} is ${label}`);
  });

  it.each([
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a link-local address (cloud metadata services live there)'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address (cloud metadata services live there)'],
    ['::a9fe:a9fe', 'a link-local address (cloud metadata services live there)'],
  ])('reads the IPv4 address inside %s', (address, label) => {
    expect(addressRefusal(address, strict)).toBe(`${address} is ${label}`);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '172.32.0.1', '100.128.0.1'])(
    'allows the public address %s',
    (address) => {
      expect(addressRefusal(address, strict)).toBeUndefined();
    },
  );

  it('OUTBOUND_ALLOW_PRIVATE allows loopback and private addresses, never link-local ones', () => {
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.10', 'fd00::5'])
      expect(addressRefusal(address, intranet)).toBeUndefined();
    expect(addressRefusal('169.254.169.254', intranet)).toMatch(/link-local/);
    expect(addressRefusal('0.0.0.0', intranet)).toMatch(/unspecified/);
  });

  it('OUTBOUND_ALLOWED_HOSTS allows the addresses and ranges it lists, and nothing else', () => {
    const listed = outboundPolicy({ allowedHosts: ' 10.0.0.0/8, 169.254.169.254 ,push.internal, fd00::/8' });
    expect(addressRefusal('10.200.1.1', listed)).toBeUndefined();
    expect(addressRefusal('169.254.169.254', listed)).toBeUndefined();
    expect(addressRefusal('fd00::1', listed)).toBeUndefined();
    expect(addressRefusal('169.254.169.253', listed)).toMatch(/link-local/);
    expect(addressRefusal('192.168.1.1', listed)).toMatch(/private/);
    expect(addressRefusal('127.0.0.1', listed)).toMatch(/loopback/);
  });

  it('refuses a malformed OUTBOUND_ALLOWED_HOSTS entry by name', () => {
    expect(() => parseAllowedHosts('10.0.0.0/33')).toThrow("OUTBOUND_ALLOWED_HOSTS: '10.0.0.0/33' is not a CIDR range");
    expect(() => parseAllowedHosts('ok.example, not a host')).toThrow(
      "OUTBOUND_ALLOWED_HOSTS: 'not a host' is neither a host name, an IP address nor a CIDR range",
    );
    expect(parseAllowedHosts('').hosts.size).toBe(0);
  });

  it('is read from the configuration, refusing private addresses unless told', () => {
    expect(addressRefusal('127.0.0.1', outboundPolicyOf(loadConfig({})))).toMatch(/loopback/);
    const configured = outboundPolicyOf(
      loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true', OUTBOUND_ALLOWED_HOSTS: '169.254.169.254' }),
    );
    expect(addressRefusal('127.0.0.1', configured)).toBeUndefined();
    expect(addressRefusal('169.254.169.254', configured)).toBeUndefined();
  });
});

describe('outbound policy applied by the providers', () => {
  let peer: HttpPeer;
  const port = () => new URL(peer.url).port;
  const slack = (url: string, context = { outbound: strict }, vendorUrl?: string) =>
    sendChecked(
      incomingWebhookProvider,
      vendorOf('incoming_webhook', { timeout_ms: 3000, ...(vendorUrl ? { url: vendorUrl } : {}) }),
      deliveryRequest('slack', vendorUrl ? null : { incoming_webhook: { url } }, { text: 'hello' }),
      { context },
    );
  const hint = '; OUTBOUND_ALLOWED_HOSTS (or OUTBOUND_ALLOW_PRIVATE) lists what may be called';

  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  beforeEach(() => peer.reset());
  afterAll(() => peer.close());

  it("refuses a recipient's webhook URL on a loopback address, without a request, for good", async () => {
    expect(await slack(`${peer.url}/hook`)).toEqual({
      kind: 'failed',
      reason: `destination refused: 127.0.0.1 is a loopback address${hint}`,
    });
    expect(await slack(`http://[::ffff:7f00:1]:${port()}/hook`)).toEqual({
      kind: 'failed',
      reason: `destination refused: ::ffff:7f00:1 is a loopback address${hint}`,
    });
    // The URL parser reads 2130706433 as 127.0.0.1.
    expect(await slack(`http://2130706433:${port()}/hook`)).toMatchObject({ kind: 'failed' });
    expect(peer.requests).toHaveLength(0);
  });

  it('checks a host name on the address it resolves to, at connection time', async () => {
    const outcome = await slack(`http://localhost:${port()}/hook`);
    expect(outcome.kind).toBe('failed');
    expect((outcome as { reason: string }).reason).toMatch(
      /^destination refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address;/,
    );
    expect(peer.requests).toHaveLength(0);
    // Allowed by name or as a private address, the same host name is called.
    peer.answerAlways({ status: 200, body: 'ok' });
    const byName = { outbound: outboundPolicy({ allowedHosts: 'localhost' }) };
    expect(await slack(`http://localhost:${port()}/hook`, byName)).toEqual({ kind: 'sent', providerResponse: 'ok' });
    expect(await slack(`http://localhost:${port()}/hook`, { outbound: intranet })).toEqual({
      kind: 'sent',
      providerResponse: 'ok',
    });
    expect(peer.requests.map((request) => request.path)).toEqual(['/hook', '/hook']);
  });

  it('refuses the metadata address even where private addresses are allowed', async () => {
    expect(await slack('http://169.254.169.254/latest/meta-data/', { outbound: intranet })).toEqual({
      kind: 'failed',
      reason: `destination refused: 169.254.169.254 is a link-local address (cloud metadata services live there)${hint}`,
    });
  });

  it("leaves the vendor's own URL alone: the operator chose it", async () => {
    peer.answer({ status: 200, body: 'ok' });
    expect(await slack('', { outbound: strict }, `${peer.url}/ops-room`)).toEqual({
      kind: 'sent',
      providerResponse: 'ok',
    });
    expect(peer.last.path).toBe('/ops-room');
  });

  it("refuses a web push subscription's endpoint on a private address", async () => {
    const keys = webpush.generateVAPIDKeys();
    const subscriber = new WebPushSubscriber(`${peer.url}/push/sub-1`);
    const send = (context: { outbound: typeof strict }) =>
      sendChecked(
        vapidProvider,
        vendorOf('vapid', {
          public_key: keys.publicKey,
          private_key: keys.privateKey,
          subject: 'mailto:a@example.com',
        }),
        deliveryRequest('webpush', subscriber.subscription, { title: 'Hi', body: 'there' }),
        { context },
      );
    expect(await send({ outbound: strict })).toEqual({
      kind: 'failed',
      reason: `destination refused: 127.0.0.1 is a loopback address${hint}`,
    });
    expect(peer.requests).toHaveLength(0);
    peer.answer({ status: 201 });
    expect(await send({ outbound: intranet })).toMatchObject({ kind: 'sent' });
    expect(peer.last.path).toBe('/push/sub-1');
  });
});

describe('postGuarded: one POST where the policy allows, its answer read no further than a limit', () => {
  let peer: HttpPeer;
  const local = outboundPolicy({ allowedHosts: '127.0.0.1' });
  const post = (url: string, policy = local, limit = 1024) =>
    postGuarded(
      url,
      { headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal: AbortSignal.timeout(5000) },
      policy,
      limit,
    );

  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  beforeEach(() => peer.reset());
  afterAll(() => peer.close());

  it('answers the status and the answer as text; past the limit, the refusal instead of the answer', async () => {
    peer.answer(
      { status: 201, body: 'fine' },
      { status: 500, body: 'x'.repeat(5000) },
      { status: 302, headers: { location: 'http://169.254.169.254/' } },
    );
    expect(await post(`${peer.url}/in`)).toEqual({ status: 201, answer: 'fine' });
    expect(await post(`${peer.url}/in`)).toEqual({
      status: 500,
      answer: `the answer of ${peer.url} is larger than 1024 bytes; it is refused`,
    });
    // A redirect is answered, not followed.
    expect(await post(`${peer.url}/in`)).toEqual({ status: 302, answer: '' });
    expect(peer.requests.map((request) => [request.method, request.path, request.text])).toEqual([
      ['POST', '/in', '{"a":1}'],
      ['POST', '/in', '{"a":1}'],
      ['POST', '/in', '{"a":1}'],
    ]);
  });

  it('refuses a loopback address by URL and a host name resolving to one, sending nothing', async () => {
    await expect(post(`${peer.url}/in`, strict)).rejects.toThrow(
      'destination refused: 127.0.0.1 is a loopback address',
    );
    await expect(post(`http://localhost:${new URL(peer.url).port}/in`, strict)).rejects.toThrow(
      /^destination refused: localhost resolves to/,
    );
    expect(peer.requests).toHaveLength(0);
  });
});
