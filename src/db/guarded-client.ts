import pg from 'pg';

/**
 * The pool's client, hardened against network faults. pg emits 'error' on a client a request is
 * holding when its connection drops; unheard, that would crash the process. The failure already
 * reaches the request as a rejected query (→ 503), and the pool discards the dead client on release.
 * A query that outlives query_timeout closes its connection: after a half-open failure the
 * protocol state is unknown (a late BEGIN would leave the next borrower inside a transaction).
 */
export class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {});
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => {
      const result = query(...args);
      if (result instanceof Promise) {
        result.catch((error: Error) => {
          if (error?.message === 'Query read timeout')
            (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        });
      }
      return result;
    }) as typeof this.query;
  }
}
