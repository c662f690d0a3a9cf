import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';

/** What a request to the peer looked like. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** When the request had arrived whole (Date.now()). */
  at: number;
}

/**
 * How the peer answers one request: a status (with headers and a body: an object is sent as JSON), `hang` (never
 * answer, so the client times out) or `reset` (drop the connection mid-request).
 */
export type PeerAnswer =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | 'hang'
  | 'reset'
  | ((request: RecordedRequest) => PeerAnswer);

/**
 * A local HTTP/1.1 or cleartext HTTP/2 server standing in for a provider's API: it records every request and
 * answers as the test says (queued answers first, then the default).
 */
export class HttpPeer {
  readonly requests: RecordedRequest[] = [];
  #queue: PeerAnswer[] = [];
  #default: PeerAnswer = { status: 200, body: {} };
  readonly #sockets = new Set<Socket>();
  readonly #sessions = new Set<http2.ServerHttp2Session>();

  private constructor(
    private readonly server: http.Server | http2.Http2Server,
    readonly url: string,
  ) {}

  static async start(options: { http2?: boolean } = {}): Promise<HttpPeer> {
    let peer: HttpPeer | undefined;
    const server = options.http2
      ? http2.createServer((req, res) => void peer!.#handle(req, res))
      : http.createServer((req, res) => void peer!.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    peer = new HttpPeer(server, `http://127.0.0.1:${port}`);
    server.on('connection', (socket: Socket) => {
      peer!.#sockets.add(socket);
      socket.on('close', () => peer!.#sockets.delete(socket));
    });
    if (options.http2)
      (server as http2.Http2Server).on('session', (session) => {
        peer!.#sessions.add(session);
        session.on('close', () => peer!.#sessions.delete(session));
      });
    return peer;
  }

  /** Answers the next requests with these, in order; later requests get the default. */
  answer(...answers: PeerAnswer[]): this {
    this.#queue.push(...answers);
    return this;
  }

  /** The answer of every request once the queue is empty. */
  answerAlways(answer: PeerAnswer): this {
    this.#default = answer;
    return this;
  }

  get last(): RecordedRequest {
    const request = this.requests.at(-1);
    if (!request) throw new Error('the peer received no request');
    return request;
  }

  reset(): void {
    this.requests.length = 0;
    this.#queue = [];
    this.#default = { status: 200, body: {} };
  }

  async #handle(
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ) {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      // The client went away mid-body (its timeout, a reset): no one is left to answer. Unheard, this
      // rejection would be an unhandled one (docs/testing.md, "The 'Unhandled Errors' run").
      return;
    }
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (!name.startsWith(':') && value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const recorded = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers,
      body,
      text: body.toString('utf8'),
      at: Date.now(),
    };
    this.requests.push(recorded);
    let answer = this.#queue.shift() ?? this.#default;
    while (typeof answer === 'function') answer = answer(recorded);
    if (answer === 'hang') return;
    if (answer === 'reset') {
      if ('stream' in req) req.stream.session?.destroy();
      else req.socket.destroy();
      return;
    }
    const payload =
      answer.body === undefined
        ? ''
        : typeof answer.body === 'string' || Buffer.isBuffer(answer.body)
          ? answer.body
          : JSON.stringify(answer.body);
    const type = typeof answer.body === 'object' && !Buffer.isBuffer(answer.body) ? 'application/json' : 'text/plain';
    // The two response types share this call's shape but not a callable union type.
    (res as http.ServerResponse).writeHead(answer.status, { 'content-type': type, ...answer.headers });
    res.end(payload);
  }

  async close(): Promise<void> {
    for (const session of this.#sessions) session.destroy();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port on 127.0.0.1 that nothing listens on (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
