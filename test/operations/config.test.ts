import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, surfaceUrls, tracingOn } from '../../src/config.js';

describe('configuration', () => {
  it('has documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATA_DIR: './data',
      MANAGEMENT_PREFIX: '/management',
      LOG_LEVEL: 'info',
      BODY_LIMIT: 1_048_576,
      RETENTION_DAYS: 90,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
    expect(surfaceUrls(config)).toEqual({
      base_url: 'http://127.0.0.1:3000/',
      management_url: 'http://127.0.0.1:3000/management/',
    });
  });

  it('converts numbers from strings', () => {
    expect(loadConfig({ PORT: '8080', BODY_LIMIT: '2048' })).toMatchObject({ PORT: 8080, BODY_LIMIT: 2048 });
  });

  it.each([
    [{ PORT: 'abc' }, /^Invalid configuration: PORT must be an integer from 0 to 65535 \(got "abc"\)$/],
    [{ PORT: '70000' }, /PORT must be an integer/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a string matching/],
    [{ MANAGEMENT_PREFIX: 'management' }, /MANAGEMENT_PREFIX must be/],
    [
      { SECRET_KEY: 'short' },
      /^Invalid configuration: SECRET_KEY must be a string of at least 32 characters \(got "<redacted>"\)$/,
    ],
    [{ DATABASE_URL: 'postgres://localhost/x' }, /SECRET_KEY is required when DATABASE_URL is set/],
    [{ RETENTION_DAYS: '-1' }, /^Invalid configuration: RETENTION_DAYS must be an integer from 0 to 36500/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be a string matching/],
  ])('rejects %o with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('traces when an OTLP endpoint is set, unless the SDK or the traces exporter is off', () => {
    expect(tracingOn(loadConfig({}))).toBe(false);
    expect(tracingOn(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }))).toBe(true);
    expect(tracingOn(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }))).toBe(true);
    expect(
      tracingOn(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })),
    ).toBe(false);
    expect(
      tracingOn(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })),
    ).toBe(false);
  });

  it('makes the server exit non-zero with one clear line on bad config', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'not-a-port', DATABASE_URL: '' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: PORT must be an integer from 0 to 65535 (got "not-a-port")',
    ]);
  });
});
