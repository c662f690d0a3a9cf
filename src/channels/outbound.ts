import dns from 'node:dns';
import net from 'node:net';
import type { Agent } from 'undici';

/**
 * Where Herald may send a request whose destination a recipient chose (docs/channels.md, "Outbound destinations",
 * ours): a web push subscription's `endpoint` and an incoming webhook URL on a user's or object's channel entry;
 * and the URL of a workflow's HTTP node (httpapi_webhook, httpapi_fetch), shaped by workflow editors and data.
 * Those come from the base API and from the browser (the web SDK registers push subscriptions), so without a guard
 * anyone who can set a channel could make Herald call the cloud metadata service or an internal admin port.
 *
 * Refused unless listed in OUTBOUND_ALLOWED_HOSTS: link-local (169.254.0.0/16, where cloud metadata lives, and
 * fe80::/10), unspecified, multicast and reserved addresses; loopback, private (RFC 1918, fc00::/7) and shared
 * (100.64.0.0/10) addresses too, unless OUTBOUND_ALLOW_PRIVATE is true. A host name is checked on every address it
 * resolves to, by the lookup of the connection itself, so a DNS answer that changes after a check (rebinding)
 * cannot slip through. Destinations a vendor's config names (SMTP host, `base_url`, a webhook `url`) are the
 * operator's and are not checked.
 */
export interface OutboundPolicy {
  readonly allowPrivate: boolean;
  /** Host names (lowercase) and IP literals allowed whatever they are or resolve to. */
  readonly allowedHosts: ReadonlySet<string>;
  /** Addresses and CIDR ranges allowed. */
  readonly allowedRanges: net.BlockList;
}

/**
 * undici, loaded at the first outbound request rather than at the start (it is a fifth of the modules a
 * start loads that serve nothing before a delivery), and each policy's HTTP agent, whose connections
 * resolve through the guard: one per policy, as it pools connections.
 */
let undici: Promise<typeof import('undici')> | undefined;
const agents = new WeakMap<OutboundPolicy, Agent>();
async function clientFor(policy: OutboundPolicy) {
  const { Agent, fetch, request } = await (undici ??= import('undici'));
  let agent = agents.get(policy);
  if (!agent) agents.set(policy, (agent = new Agent({ connect: { lookup: guardedLookup(policy) } })));
  return { agent, fetch, request };
}

const ranges = (entries: [string, number][]) => {
  const list = new net.BlockList();
  for (const [address, prefix] of entries) list.addSubnet(address, prefix, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  return list;
};

/** In order: the first that holds names the address. `private` ones are allowed by OUTBOUND_ALLOW_PRIVATE. */
const CATEGORIES: { label: string; private: boolean; list: net.BlockList }[] = [
  {
    label: 'a loopback address',
    private: true,
    list: ranges([
      ['127.0.0.0', 8],
      ['::1', 128],
    ]),
  },
  {
    label: 'a private address',
    private: true,
    list: ranges([
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
      ['198.18.0.0', 15],
      ['fc00::', 7],
    ]),
  },
  {
    label: 'a link-local address (cloud metadata services live there)',
    private: false,
    list: ranges([
      ['169.254.0.0', 16],
      ['fe80::', 10],
    ]),
  },
  {
    label: 'an unspecified, multicast or reserved address',
    private: false,
    list: ranges([
      ['0.0.0.0', 8],
      ['192.0.0.0', 24],
      ['224.0.0.0', 4],
      ['240.0.0.0', 4],
      ['::', 128],
      ['ff00::', 8],
    ]),
  },
];

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((group) => parseInt(group, 16)) : []);
  const first = part(head);
  const last = part(tail);
  const groups = tail === undefined ? first : [...first, ...Array(8 - first.length - last.length).fill(0), ...last];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 one carries, when it carries one: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
 * (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d). The URL parser writes these in hex (`[::ffff:7f00:1]`), which is how
 * they would otherwise pass for IPv6 addresses no rule names.
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (!groups) return undefined;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const mapped = zeros(0, 5) && groups[5] === 0xffff;
  const compatible = zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6);
  if (!mapped && !compatible && !nat64) return undefined;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

/** Why the policy refuses to connect to this IP address, or undefined when it allows it. */
export function addressRefusal(address: string, policy: OutboundPolicy): string | undefined {
  const plain = address.replace(/^\[|\]$/g, '');
  const ipv4 = net.isIPv6(plain) ? embeddedIpv4(plain) : undefined;
  const checked = ipv4 ?? plain;
  const family = net.isIPv6(checked) ? 'ipv6' : 'ipv4';
  if (policy.allowedHosts.has(plain.toLowerCase()) || policy.allowedRanges.check(checked, family)) return undefined;
  for (const category of CATEGORIES) {
    if (!category.list.check(checked, family)) continue;
    if (category.private && policy.allowPrivate) return undefined;
    return `${plain} is ${category.label}`;
  }
  return undefined;
}

/** The error a refused destination fails its request with (its code tells it from a network failure). */
/**
 * The most a workflow HTTP node reads of an answer (ours): its JSON joins the run's data, kept whole.
 * A 150 MB answer once held the event loop for seconds and was stored with the run (issue 25).
 */
export const HTTP_NODE_ANSWER_LIMIT = 1024 * 1024;

/** An answer larger than its reader takes: refused, as a destination is, and never retried. */
export class AnswerTooLarge extends Error {
  readonly code = 'EANSWER_TOO_LARGE';
  constructor(origin: string, limit: number) {
    super(`the answer of ${origin} is larger than ${limit} bytes; it is refused`);
  }
}

/** An answer's body as text, read no further than `limit` bytes: past it, the read stops and AnswerTooLarge is thrown. */
export async function readAnswerWithin(response: Response, limit: number, origin: string): Promise<string> {
  return readBodyWithin(
    Number(response.headers.get('content-length')),
    response.body,
    () => response.body?.cancel(),
    limit,
    origin,
  );
}

/**
 * An answer's body as text, read no further than `limit` bytes (AnswerTooLarge past it, or when `declared` says so
 * before reading: then `cancel` lets the connection go); a body left early is cancelled by its iterator.
 */
async function readBodyWithin(
  declared: number,
  body: AsyncIterable<Uint8Array> | null,
  cancel: () => unknown,
  limit: number,
  origin: string,
): Promise<string> {
  if (Number.isFinite(declared) && declared > limit) {
    await Promise.resolve()
      .then(cancel)
      .catch(() => undefined);
    throw new AnswerTooLarge(origin, limit);
  }
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const value of body) {
    size += value.length;
    if (size > limit) throw new AnswerTooLarge(origin, limit);
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class DestinationRefused extends Error {
  readonly code = 'EDESTINATION_REFUSED';
  constructor(reason: string) {
    super(
      `destination refused: ${reason}; OUTBOUND_ALLOWED_HOSTS (or OUTBOUND_ALLOW_PRIVATE) lists what may be called`,
    );
  }
}

/** The refusal a request to `url` meets before any connection: an IP literal the policy refuses. */
export function urlRefusal(url: string, policy: OutboundPolicy): DestinationRefused | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return new DestinationRefused(`'${url}' is not a URL`);
  }
  if (!net.isIP(host)) return undefined;
  const reason = addressRefusal(host, policy);
  return reason ? new DestinationRefused(reason) : undefined;
}

/** The guard's refusal, wherever fetch wrapped it (as the cause of "fetch failed"). */
function destinationRefusalIn(error: unknown): DestinationRefused | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth += 1)
    if (at instanceof DestinationRefused) return at;
  return undefined;
}

/**
 * A request that goes out only where the policy allows: refused before any connection when the URL names a refused
 * IP address, and on connecting when its host resolves to one (throws DestinationRefused, nothing is sent).
 * Redirects are not followed: a redirect naming an IP literal would reach it without a lookup.
 */
export async function fetchGuarded(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | Uint8Array; signal: AbortSignal },
  policy: OutboundPolicy,
): Promise<Response> {
  const refusal = urlRefusal(url, policy);
  if (refusal) throw refusal;
  try {
    const client = await clientFor(policy);
    return (await client.fetch(url, { ...init, redirect: 'manual', dispatcher: client.agent })) as unknown as Response;
  } catch (error) {
    throw destinationRefusalIn(error) ?? error;
  }
}

/**
 * A POST where the policy allows (as `fetchGuarded`), through undici's `request` rather than `fetch`, which builds
 * WHATWG Request/Response objects and streams for every call (620–1,120 µs of CPU per call against 250–370 µs,
 * BENCHMARKS.md "Throughput (issue #30)"): for a caller that posts once per event and reads the answer as text, no
 * further than `limit` bytes (past it the read stops and `answer` is AnswerTooLarge's message). Redirects are not
 * followed.
 */
export async function postGuarded(
  url: string,
  init: { headers: Record<string, string>; body: string; signal: AbortSignal },
  policy: OutboundPolicy,
  limit: number,
): Promise<{ status: number; answer: string }> {
  const refusal = urlRefusal(url, policy);
  if (refusal) throw refusal;
  try {
    const client = await clientFor(policy);
    const response = await client.request(url, { method: 'POST', ...init, dispatcher: client.agent });
    let answer = '';
    try {
      answer = await readBodyWithin(
        Number(response.headers['content-length']),
        response.body,
        () => response.body.destroy(),
        limit,
        new URL(url).origin,
      );
    } catch (error) {
      // Too large, or cut off: the status has already said how it went.
      answer = error instanceof AnswerTooLarge ? error.message : '';
    }
    return { status: response.statusCode, answer };
  } catch (error) {
    throw destinationRefusalIn(error) ?? error;
  }
}

type LookupCallback = (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup, refusing a host when any of its addresses is refused (the connection could take any of them). */
function guardedLookup(policy: OutboundPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const allowedByName = policy.allowedHosts.has(hostname.toLowerCase());
      for (const { address } of allowedByName ? [] : addresses) {
        const reason = addressRefusal(address, policy);
        if (reason)
          return callback(new DestinationRefused(`${hostname} resolves to ${reason.replace(/ is /, ', ')}`), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      return callback(null, first.address, first.family);
    });
  };
}

/** Parses OUTBOUND_ALLOWED_HOSTS: comma-separated host names, IP addresses and CIDR ranges. */
export function parseAllowedHosts(value: string): { hosts: Set<string>; ranges: net.BlockList } {
  const hosts = new Set<string>();
  const list = new net.BlockList();
  for (const raw of value.split(',')) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '');
    if (!entry) continue;
    const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const [, address, prefix] = cidr as unknown as [string, string, string];
      const family = net.isIP(address);
      if (!family || Number(prefix) > (family === 4 ? 32 : 128))
        throw new Error(`OUTBOUND_ALLOWED_HOSTS: '${raw.trim()}' is not a CIDR range`);
      list.addSubnet(address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    } else if (net.isIP(entry)) {
      hosts.add(entry);
      list.addAddress(entry, net.isIPv6(entry) ? 'ipv6' : 'ipv4');
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
      hosts.add(entry);
    } else {
      throw new Error(`OUTBOUND_ALLOWED_HOSTS: '${raw.trim()}' is neither a host name, an IP address nor a CIDR range`);
    }
  }
  return { hosts, ranges: list };
}

export function outboundPolicy(settings: { allowPrivate?: boolean; allowedHosts?: string } = {}): OutboundPolicy {
  const { hosts, ranges: allowedRanges } = parseAllowedHosts(settings.allowedHosts ?? '');
  return Object.freeze({ allowPrivate: settings.allowPrivate ?? false, allowedHosts: hosts, allowedRanges });
}

/** The policy of a process configured with OUTBOUND_ALLOW_PRIVATE and OUTBOUND_ALLOWED_HOSTS. */
export const outboundPolicyOf = (config: { OUTBOUND_ALLOW_PRIVATE: boolean; OUTBOUND_ALLOWED_HOSTS: string }) =>
  outboundPolicy({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, allowedHosts: config.OUTBOUND_ALLOWED_HOSTS });

/** The policy when none is given: the defaults of OUTBOUND_ALLOW_PRIVATE and OUTBOUND_ALLOWED_HOSTS. */
export const DEFAULT_OUTBOUND: OutboundPolicy = outboundPolicy();
