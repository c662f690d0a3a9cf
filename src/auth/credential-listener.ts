import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { type CredentialCache } from './credential-cache.js';
import { CREDENTIAL_CHANNEL } from '../domain/credential-tags.js';

export interface CredentialListenerOptions {
  url: string;
  cache: CredentialCache;
  log: FastifyBaseLogger;
  /** First delay before reconnecting; doubles up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * LISTENs for credential changes made by any instance on a dedicated connection (PostgreSQL
 * only; the embedded engine is one process). The cache is bypassed from the moment that
 * connection fails until LISTEN succeeds again, and cleared before it is used again, so a
 * notification lost while disconnected cannot keep a revoked credential alive.
 */
export class CredentialListener {
  readonly #options: Required<CredentialListenerOptions>;
  #client: pg.Client | undefined;
  #backendPid: number | undefined;
  #retry: NodeJS.Timeout | undefined;
  #delay: number;
  #stopped = false;

  constructor(options: CredentialListenerOptions) {
    this.#options = { retryDelayMs: 200, maxRetryDelayMs: 5_000, ...options };
    this.#delay = this.#options.retryDelayMs;
    this.#options.cache.bypass();
  }

  /** The PostgreSQL backend holding the LISTEN, while connected (operators and tests can find it). */
  get backendPid(): number | undefined {
    return this.#backendPid;
  }

  get listening(): boolean {
    return this.#backendPid !== undefined;
  }

  /** Connects once; on failure the cache stays bypassed and reconnection goes on in the background. */
  async start(): Promise<void> {
    await this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({
      connectionString: this.#options.url,
      keepAlive: true,
      application_name: 'herald-credential-listener',
    });
    this.#client = client;
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (message.channel !== CREDENTIAL_CHANNEL) return;
      const tags = (message.payload ?? '').split(' ').filter(Boolean);
      if (tags.length > 0) this.#options.cache.invalidate(tags);
      else this.#options.cache.clear();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CREDENTIAL_CHANNEL}`);
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      if (this.#client !== client) return;
      this.#backendPid = rows[0]?.pid;
      this.#delay = this.#options.retryDelayMs;
      this.#options.cache.resume();
    } catch (error) {
      this.#lost(client, error as Error);
    }
  }

  #lost(client: pg.Client, error?: Error) {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#backendPid = undefined;
    this.#options.cache.bypass();
    client.end().catch(() => {});
    if (this.#stopped) return;
    this.#options.log.warn(
      { err: error },
      'credential change listener disconnected: credential cache bypassed until it is back',
    );
    this.#scheduleReconnect();
  }

  #scheduleReconnect() {
    if (this.#stopped || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#connect();
    }, this.#delay);
    this.#retry.unref();
    this.#delay = Math.min(this.#delay * 2, this.#options.maxRetryDelayMs);
  }

  /** Connects now rather than at the next retry (a no-op while connected). */
  async reconnect(): Promise<void> {
    if (this.#client || this.#stopped) return;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    await this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    this.#backendPid = undefined;
    this.#options.cache.bypass();
    await client?.end().catch(() => {});
  }
}
