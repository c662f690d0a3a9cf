import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { readFileSync } from 'node:fs';

const Integer = (options: { default?: number; minimum: number; maximum: number }) => Type.Integer(options);

export const ConfigSchema = Type.Object({
  PORT: Integer({ default: 3000, minimum: 0, maximum: 65535 }),
  HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Integer({ default: 10, minimum: 1, maximum: 200 }),
  /** Named prepared statements for repeated SQL; false behind a pooler that cannot keep them (PgBouncer transaction mode < 1.21). */
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true }),
  DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  MANAGEMENT_PREFIX: Type.String({ default: '/management', pattern: '^/[A-Za-z0-9_\\-/]*[A-Za-z0-9_\\-]$' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  BODY_LIMIT: Integer({ default: 1_048_576, minimum: 1024, maximum: 100 * 1_048_576 }),
  CREDENTIAL_CACHE_SIZE: Integer({ default: 10_000, minimum: 0, maximum: 1_000_000 }),
  CREDENTIAL_CACHE_TTL_SECONDS: Integer({ default: 300, minimum: 1, maximum: 86_400 }),
  SIGNATURE_MAX_SKEW_SECONDS: Integer({ default: 300, minimum: 1, maximum: 86_400 }),
  REQUEST_TIMEOUT_MS: Integer({ default: 30_000, minimum: 1000, maximum: 600_000 }),
  DATABASE_TIMEOUT_MS: Integer({ default: 5_000, minimum: 100, maximum: 600_000 }),
  SEGMENT_QUERY_TIMEOUT_MS: Integer({ default: 3_000, minimum: 100, maximum: 600_000 }),
  /** Where segment queries log in as herald_segments; derived from DATABASE_URL when unset (docs/segments.md). */
  SEGMENT_DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  SEGMENT_POOL_SIZE: Integer({ default: 2, minimum: 1, maximum: 50 }),
  SEGMENT_RESULT_MAX_BYTES: Integer({ default: 1_048_576, minimum: 1024, maximum: 64 * 1_048_576 }),
  SEGMENT_MAX_PLAN_ROWS: Integer({ default: 2_000_000, minimum: 1000, maximum: 1_000_000_000 }),
  SEGMENT_MAX_PLAN_COST: Integer({ default: 50_000_000, minimum: 1000, maximum: 1_000_000_000 }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  DATABASE_STATEMENT_TIMEOUT_MS: Integer({ default: 10_000, minimum: 100, maximum: 600_000 }),
  RATE_LIMIT_MAX: Integer({ default: 6_000, minimum: 0, maximum: 10_000_000 }),
  RATE_LIMIT_WINDOW_MS: Integer({ default: 60_000, minimum: 1000, maximum: 86_400_000 }),
  /** What `npm start` runs: the API and the worker (all), or one of them (docs/engine.md, process model). */
  HERALD_ROLE: Type.Union(
    ['all', 'api', 'worker'].map((role) => Type.Literal(role)),
    { default: 'all' },
  ),
  /** The durable queue's own PostgreSQL pool. */
  QUEUE_POOL_SIZE: Integer({ default: 5, minimum: 1, maximum: 100 }),
  /** How often an idle worker looks for jobs; NOTIFY wakes it sooner. */
  QUEUE_POLLING_INTERVAL_SECONDS: Type.Number({ default: 2, minimum: 0.5, maximum: 60 }),
  /** pg-boss's schema: its tables live beside Herald's. */
  QUEUE_SCHEMA: Type.String({ default: 'pgboss', pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
  /** The longest one job may run, however alive its worker: one still active this long after it started is retried. */
  QUEUE_JOB_EXPIRE_SECONDS: Integer({ default: 300, minimum: 1, maximum: 86_400 }),
  /** A job its worker has not refreshed for this long is taken to be lost with its worker (killed, cut off), and retried. */
  QUEUE_HEARTBEAT_SECONDS: Integer({ default: 10, minimum: 10, maximum: 3600 }),
  /** How often the queue looks for such jobs (and does its upkeep). */
  QUEUE_SUPERVISE_SECONDS: Integer({ default: 10, minimum: 1, maximum: 3600 }),
  /** Subscribers read per fan-out page. */
  ENGINE_FANOUT_PAGE_SIZE: Integer({ default: 500, minimum: 1, maximum: 10_000 }),
  /**
   * Recipient-chosen destinations (web push endpoints, incoming webhook URLs on channel entries) and the workflow HTTP
   * nodes' URLs may be loopback or private addresses; link-local (cloud metadata) stays refused unless listed below
   * (docs/channels.md).
   */
  OUTBOUND_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  /** Comma-separated host names, IP addresses and CIDR ranges such destinations may always be. */
  OUTBOUND_ALLOWED_HOSTS: Type.String({ default: '', maxLength: 10_000 }),
  /** Jobs per queue a worker process runs at once. */
  WORKER_CONCURRENCY: Integer({ default: 4, minimum: 1, maximum: 64 }),
  /** When set, `GET /metrics` wants `Authorization: Bearer <METRICS_TOKEN>` (docs/operations.md). */
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  /**
   * Behind a load balancer or reverse proxy: `true` (trust every hop), a number of hops, or a comma-separated
   * list of proxy addresses and CIDR ranges; client addresses (rate limits, logs) then come from X-Forwarded-For.
   */
  TRUST_PROXY: Type.String({ default: 'false', pattern: '^(true|false|[0-9]{1,2}|[0-9A-Fa-f:./, ]+)$' }),
  /**
   * Messages, events, finished runs and executions, rate-limit slots and finished queue jobs older than this many
   * days are purged (docs/operations.md, "Retention"); 0 keeps everything.
   */
  RETENTION_DAYS: Integer({ default: 90, minimum: 0, maximum: 36_500 }),
  /**
   * OpenTelemetry's standard variables (docs/operations.md, "Traces"): traces go out over OTLP when an endpoint is
   * set and the SDK is not disabled. The SDK reads these (and the other OTEL_* variables) itself; they are checked
   * here so that a mistyped protocol stops the start in one line instead of exporting nothing.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  OTEL_EXPORTER_OTLP_PROTOCOL: Type.Optional(
    Type.Union(['http/protobuf', 'http/json'].map((protocol) => Type.Literal(protocol))),
  ),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: Type.Optional(
    Type.Union(['http/protobuf', 'http/json'].map((protocol) => Type.Literal(protocol))),
  ),
  OTEL_TRACES_EXPORTER: Type.Optional(Type.Union(['otlp', 'console', 'none'].map((name) => Type.Literal(name)))),
  OTEL_SDK_DISABLED: Type.Boolean({ default: false }),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;

export class ConfigError extends Error {}

const describe = (schema: unknown): string => {
  const s = schema as {
    type?: string;
    minimum?: number;
    maximum?: number;
    minLength?: number;
    pattern?: string;
    anyOf?: { const: string }[];
  };
  if (s.anyOf) return `one of ${s.anyOf.map((option) => option.const).join(', ')}`;
  if (s.type === 'integer') return `an integer from ${s.minimum} to ${s.maximum}`;
  if (s.pattern) return `a string matching ${s.pattern}`;
  if (s.minLength) return `a string of at least ${s.minLength} characters`;
  return `a ${s.type ?? 'value'}`;
};

const userOf = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).username);
  } catch {
    return '';
  }
};

/** Variables that may also be given as a file (`SECRET_KEY_FILE=/run/secrets/herald_secret_key`). */
export const FILE_VARIABLES = ['SECRET_KEY', 'DATABASE_URL', 'SEGMENT_DATABASE_URL', 'METRICS_TOKEN'] as const;

/** TRUST_PROXY as Fastify's `trustProxy` option. */
export function trustProxyOf(value: string): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^[0-9]{1,2}$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Parses the environment once; the first problem found is reported as one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const known = Object.keys(ConfigSchema.properties);
  const input: Record<string, unknown> = {};
  for (const name of known) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') input[name] = raw;
  }
  // A Docker or Kubernetes secret: NAME_FILE holds the path of a file whose content is the value.
  for (const name of FILE_VARIABLES) {
    const path = env[`${name}_FILE`];
    if (!path) continue;
    if (input[name] !== undefined)
      throw new ConfigError(`Invalid configuration: set ${name} or ${name}_FILE, not both`);
    try {
      input[name] = readFileSync(path, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(
        `Invalid configuration: ${name}_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, input));
  const firstError = Value.Errors(ConfigSchema, converted).First();
  if (firstError) {
    const name = firstError.path.replace(/^\//, '');
    const given = input[name];
    throw new ConfigError(
      `Invalid configuration: ${name} must be ${describe(firstError.schema)}` +
        (given === undefined
          ? ''
          : ` (got ${JSON.stringify(name === 'SECRET_KEY' || name.endsWith('DATABASE_URL') ? '<redacted>' : given)})`),
    );
  }
  const config = converted as Static<typeof ConfigSchema>;
  if (config.DATABASE_URL && !config.SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration: SECRET_KEY is required when DATABASE_URL is set (at least 32 characters; it encrypts workspace secrets at rest)',
    );
  }
  if (config.SEGMENT_DATABASE_URL && userOf(config.SEGMENT_DATABASE_URL) !== 'herald_segments') {
    throw new ConfigError(
      'Invalid configuration: SEGMENT_DATABASE_URL must log in as herald_segments, the role segment queries are confined to',
    );
  }
  return Object.freeze(config);
}

/** Whether this process traces: an OTLP endpoint (or another traces exporter) is set, and the SDK is not disabled. */
export function tracingOn(config: Config): boolean {
  if (config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(
    config.OTEL_EXPORTER_OTLP_ENDPOINT || config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || config.OTEL_TRACES_EXPORTER,
  );
}

/** Where clients reach the two surfaces: PUBLIC_URL when set, else the listening address. */
export function surfaceUrls(config: Config) {
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const root = (config.PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`).replace(
    /\/+$/,
    '',
  );
  return { base_url: `${root}/`, management_url: `${root}${config.MANAGEMENT_PREFIX}/` };
}
