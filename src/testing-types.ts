/**
 * The public types of `herald/testing` (src/testing.ts), with no import of Herald's: the package's `types`
 * entry is this file's declaration, built on its own (tsconfig.testing-types.json).
 */

/** What a provider would have sent: one message to one recipient on one channel. */
export interface Delivery {
  messageId: string;
  executionId: string;
  channel: string;
  vendor: { id: string; provider: string; nickname: string | null };
  recipient: { distinct_id: string } | { object_type: string; id: string };
  /** The address the provider would have used (an email, a phone number, a push token …). */
  to: unknown;
  tenantId: string;
  workflow: { slug: string; version_id: string; node_ref: string };
  /** The rendered template variant, exactly as the provider receives it. */
  content: Record<string, unknown>;
  providerMessageId: string;
  /** Herald's time of the send (the emulator's clock), ISO 8601. */
  at: string;
  /** True when the vendor asked for the network and its real provider was called. */
  networked: boolean;
  /** `sent`, or a networked provider's `retry` or `failed`. */
  outcome: 'sent' | 'retry' | 'failed';
}

export interface StartHeraldOptions {
  /** A directory of workflows, templates, categories and vendors to import (the layout of `herald import`). */
  load?: string;
  /** The instant Herald's clock starts at (default: now). */
  now?: Date | string | number;
  /** Vendors (by nickname or id) whose messages go out through their real provider; all others are recorded only. */
  network?: string[];
  /** The workspace's slug (default `test`). */
  workspace?: string;
  /** pino's level for Herald's own log lines (default `silent`). */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Herald settings (docs/configuration.md) beside the ones the emulator sets. */
  env?: Record<string, string>;
}

export interface HeraldClock {
  /** Herald's time, in milliseconds since the epoch. */
  now(): number;
  /**
   * Moves Herald's time forward by `duration` (milliseconds, or `1d2h30m15s`), running every job that falls
   * due on the way, in order, each at its own time; resolves once the work due by then is done.
   */
  advance(duration: number | string): Promise<void>;
}

export interface TestHerald {
  /** The base API root (`…/`), for the SDKs' `base_url`. */
  baseUrl: string;
  /** The management API root (`…/management/`). */
  managementUrl: string;
  serviceToken: string;
  apiKey: string;
  workspace: string;
  workspaceKey: string;
  workspaceSecret: string;
  clock: HeraldClock;
  /** What every provider would have sent, oldest first. */
  deliveries(): Delivery[];
  close(): Promise<void>;
}

/** Starts Herald in this process: a workspace, its credentials, a clock the test moves and the deliveries it records. */
export declare function startHerald(options?: StartHeraldOptions): Promise<TestHerald>;
