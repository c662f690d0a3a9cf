interface Entry {
  value: unknown;
  tags: readonly string[];
  expiresAt: number;
}

export interface CredentialCacheOptions {
  /** Most entries kept (least recently used evicted first); 0 turns the cache off. */
  maxEntries: number;
  /** Safety net: an entry is looked up again after this long even if no change was announced. */
  ttlMs: number;
  /** Start bypassed, until a listener reports it is listening (PostgreSQL). */
  startBypassed?: boolean;
  now?: () => number;
}

/**
 * Positive credential lookups (credential → workspace, decrypted secret, actor) kept in process.
 * Failures are never cached: an unknown key costs one indexed lookup, as before, and a flood of
 * them cannot evict good entries. Every change to a credential or workspace goes through
 * changeCredentials, which drops the entries here after commit and NOTIFYs other instances in
 * the same transaction. While the listener for those notifications is down, the cache is
 * bypassed (every request looks up), and it is cleared before it is used again.
 */
export class CredentialCache {
  readonly #entries = new Map<string, Entry>();
  readonly #options: Required<Omit<CredentialCacheOptions, 'startBypassed'>>;
  #bypassed: boolean;
  /** Bumped by every invalidation: a lookup that started before one never stores its (maybe stale) answer. */
  #epoch = 0;
  readonly #changeHandlers: ((tags: readonly string[] | 'all') => void)[] = [];

  constructor(options: CredentialCacheOptions) {
    this.#options = { now: Date.now, ...options };
    this.#bypassed = options.startBypassed ?? false;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether lookups are answered from memory right now. */
  get active(): boolean {
    return !this.#bypassed && this.#options.maxEntries > 0;
  }

  /** The cached answer for `key`, or `load()`'s; only a found answer is kept, tagged with what it depends on. */
  async lookup<T>(
    key: string,
    load: () => Promise<{ value: T; tags: readonly string[] } | undefined>,
  ): Promise<T | undefined> {
    const hit = this.#hit(key);
    if (hit) return hit.value as T;
    const epoch = this.#epoch;
    const found = await load();
    if (found === undefined) return undefined;
    if (this.active && epoch === this.#epoch) this.#store(key, found.value, found.tags);
    return found.value;
  }

  /**
   * lookup() for several keys: the cached answers, and one `load` of the keys not cached (a batch's
   * lookups stay one statement). A key `load` leaves out is not found, and not kept.
   */
  async lookupMany<T>(
    keys: readonly string[],
    load: (missing: string[]) => Promise<Map<string, { value: T; tags: readonly string[] }>>,
  ): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const key of new Set(keys)) {
      const hit = this.#hit(key);
      if (hit) found.set(key, hit.value as T);
      else missing.push(key);
    }
    if (missing.length === 0) return found;
    const epoch = this.#epoch;
    const loaded = await load(missing);
    const keep = this.active && epoch === this.#epoch;
    for (const [key, entry] of loaded) {
      found.set(key, entry.value);
      if (keep) this.#store(key, entry.value, entry.tags);
    }
    return found;
  }

  #hit(key: string): Entry | undefined {
    if (!this.active) return undefined;
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > this.#options.now()) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    if (hit) this.#entries.delete(key);
    return undefined;
  }

  #store(key: string, value: unknown, tags: readonly string[]) {
    this.#entries.delete(key);
    this.#entries.set(key, { value, tags, expiresAt: this.#options.now() + this.#options.ttlMs });
    while (this.#entries.size > this.#options.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /**
   * Hears every change this cache hears (this instance's and, through the listener, every other's): the tags
   * changed, or `all` when it was cleared. What holds a credential beyond one request (open feed sockets)
   * checks it again here.
   */
  onChange(handler: (tags: readonly string[] | 'all') => void) {
    this.#changeHandlers.push(handler);
  }

  #changed(tags: readonly string[] | 'all') {
    for (const handler of this.#changeHandlers) handler(tags);
  }

  /** Drops every entry carrying one of the tags. Changes are rare, so a scan of a bounded map is enough. */
  invalidate(tags: readonly string[]) {
    this.#epoch += 1;
    if (tags.length === 0) return;
    const wanted = new Set(tags);
    for (const [key, entry] of this.#entries) {
      if (entry.tags.some((tag) => wanted.has(tag))) this.#entries.delete(key);
    }
    this.#changed(tags);
  }

  clear() {
    this.#drop();
    this.#changed('all');
  }

  #drop() {
    this.#epoch += 1;
    this.#entries.clear();
  }

  /** The listener lost its connection: notifications may be missed, so look everything up until it is back. */
  bypass() {
    this.#bypassed = true;
    this.#drop();
  }

  /** The listener is listening again: start from empty, so nothing missed while it was down survives. */
  resume() {
    this.#drop();
    this.#bypassed = false;
    this.#changed('all');
  }
}
