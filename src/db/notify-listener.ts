import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Hears one NOTIFY channel: on PostgreSQL on a dedicated LISTEN connection (any process may have
 * notified), reconnecting with backoff; on the embedded database from PGlite itself, where writer
 * and listener are one process. A notification sent while disconnected is lost.
 */
export class NotifyListener {
  #client: pg.Client | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  #retry: NodeJS.Timeout | undefined;
  #delay = 200;
  #stopped = false;
  #handlers: ((payload: string | undefined) => void)[] = [];

  constructor(
    private readonly options: {
      channel: string;
      url?: string;
      pglite?: PGlite;
      onDisconnect?: (error: Error | undefined) => void;
      /** Each time the listener (re)starts listening: what was notified while it was not is lost, so look now. */
      onConnect?: () => void;
    },
  ) {}

  get listening() {
    return this.#client !== undefined || this.#unlisten !== undefined;
  }

  onPayload(handler: (payload: string | undefined) => void) {
    this.#handlers.push(handler);
  }

  async start() {
    if (this.options.pglite) {
      const unlisten = await this.options.pglite.listen(this.options.channel, (payload) => this.#heard(payload));
      // Stopped while this was under way: stop() had nothing to undo yet.
      if (this.#stopped) await unlisten().catch(() => {});
      else {
        this.#unlisten = unlisten;
        this.options.onConnect?.();
      }
      return;
    }
    await this.#connect();
  }

  #heard(payload: string | undefined) {
    for (const handler of this.#handlers) handler(payload);
  }

  async #connect() {
    if (this.#stopped || !this.options.url) return;
    const client = new pg.Client({
      connectionString: this.options.url,
      keepAlive: true,
      application_name: `herald-listen-${this.options.channel}`,
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (message.channel === this.options.channel) this.#heard(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.options.channel}`);
      // Stopped while connecting (a reconnect under way): stop() could not see this client yet.
      if (this.#stopped) {
        await client.end().catch(() => {});
        return;
      }
      this.#client = client;
      this.#delay = 200;
      this.options.onConnect?.();
    } catch (error) {
      this.#lost(client, error as Error);
    }
  }

  #lost(client: pg.Client, error?: Error) {
    if (this.#client && this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => {});
    if (this.#stopped || this.#retry) return;
    this.options.onDisconnect?.(error);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#connect();
    }, this.#delay);
    this.#retry.unref();
    this.#delay = Math.min(this.#delay * 2, 5000);
  }

  async stop() {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    await this.#unlisten?.().catch(() => {});
    this.#unlisten = undefined;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
