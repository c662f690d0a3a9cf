import net from 'node:net';

/**
 * How the network fails: `reset` is a server gone away (open connections are reset, new ones
 * refused); `hold` is a partition (connections stay open but nothing gets through, in either
 * direction, until the network returns and delivers what was held back, as TCP would).
 */
export type Fault = 'reset' | 'hold';

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
  clientClosed: boolean;
  upstreamClosed: boolean;
}

/** A TCP proxy between the app and PostgreSQL that a test can cut and restore. */
export class TcpProxy {
  readonly #server: net.Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  #state: 'up' | Fault = 'up';
  /** How many faults were injected. */
  faults = 0;

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
    this.#server = net.createServer((client) => this.#accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  get openConnections(): number {
    return this.#pairs.size;
  }

  cut(fault: Fault) {
    this.faults += 1;
    this.#state = fault;
    if (fault === 'reset') for (const pair of this.#pairs) this.#destroy(pair);
  }

  restore() {
    this.#state = 'up';
    for (const pair of this.#pairs) {
      if (!pair.upstream) this.#connect(pair);
      for (const chunk of pair.held.toClient.splice(0)) pair.client.write(chunk);
      for (const chunk of pair.held.toUpstream.splice(0)) pair.upstream!.write(chunk);
      if (pair.clientClosed) pair.upstream!.end();
      if (pair.upstreamClosed) this.#destroy(pair);
    }
  }

  async close() {
    for (const pair of this.#pairs) this.#destroy(pair);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: net.Socket) {
    if (this.#state === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = {
      client,
      upstream: null,
      held: { toUpstream: [], toClient: [] },
      clientClosed: false,
      upstreamClosed: false,
    };
    this.#pairs.add(pair);
    client.on('error', () => this.#destroy(pair));
    client.on('data', (chunk) => {
      if (this.#state === 'up' && pair.upstream) pair.upstream.write(chunk);
      else pair.held.toUpstream.push(chunk);
    });
    client.on('close', () => {
      if (this.#state === 'up') this.#destroy(pair);
      else pair.clientClosed = true;
    });
    if (this.#state === 'up') this.#connect(pair);
  }

  #connect(pair: Pair) {
    const upstream = net.connect(this.#target.port, this.#target.host);
    pair.upstream = upstream;
    upstream.on('error', () => this.#destroy(pair));
    upstream.on('data', (chunk) => {
      if (this.#state === 'up') pair.client.write(chunk);
      else pair.held.toClient.push(chunk);
    });
    upstream.on('close', () => {
      if (this.#state === 'up') this.#destroy(pair);
      else pair.upstreamClosed = true;
    });
  }

  #destroy(pair: Pair) {
    if (!this.#pairs.delete(pair)) return;
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    if (pair.upstream && !pair.upstream.destroyed) pair.upstream.resetAndDestroy();
  }
}
