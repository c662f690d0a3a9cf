import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Renders the figures the reliability tests left in reports/reliability/ into the table of
 * RELIABILITY.md (between its figures markers). Run after the suite: `npm run reliability:report`.
 */
const GUARANTEES: [id: string, guarantee: string, test: string][] = [
  [
    'fuzz-base-1',
    'Every base-surface and public route answers generated and mutated input as documented (4xx in its shape or a valid 2xx, never 5xx, no hang), and a refused request writes nothing (half the routes)',
    'test/fuzz/base-routes-1.test.ts',
  ],
  ['fuzz-base-2', 'The same for the other half', 'test/fuzz/base-routes-2.test.ts'],
  ['fuzz-management', 'The same for every management route', 'test/fuzz/management-routes.test.ts'],
  [
    'limits',
    'Body over BODY_LIMIT → 413, JSON nested deeper than 64 → 400 (100k levels survive), slow-loris connections closed within REQUEST_TIMEOUT_MS',
    'test/fuzz/limits.test.ts',
  ],
  [
    'isolation',
    "Workspace A's credentials aimed at workspace B's identifiers (and A's ids under B's slug) change nothing and reveal nothing of the other",
    'test/security/isolation.test.ts',
  ],
  [
    'revocation',
    'A disabled API key, a revoked service token, a paused/deleted pair and a rotated secret are refused from the next request on, under load',
    'test/security/revocation.test.ts',
  ],
  [
    'secrets-at-rest',
    'The database holds tokens and API keys only as hashes, workspace secrets only as ciphertext; no log line of any test file carries a credential',
    'test/security/secrets-at-rest.test.ts (+ every file using useTestApp)',
  ],
  [
    'rate-limit',
    'Per-credential rate limit: 429 in the route’s shape with Retry-After and RateLimit-*',
    'test/security/rate-limit.test.ts',
  ],
  [
    'database-outage-reset',
    'PostgreSQL gone (connections reset) under load: fast 503s, /readyz 503, recovery ≤ 5 s without restart, acknowledged writes all present once',
    'test/faults/database-outage.test.ts',
  ],
  [
    'database-outage-hold',
    'The same for a network partition (half-open connections, nothing gets through)',
    'test/faults/database-outage.test.ts',
  ],
  [
    'graceful-shutdown',
    'SIGTERM with 200 requests in flight: all finished, later ones refused (503 or no connection), exit 0, acknowledged writes present',
    'test/faults/shutdown-under-load.test.ts',
  ],
  [
    'concurrency-soak-ci',
    '50 clients on the same rows (3 s, CI): no 5xx, no deadlock, answers as documented, lists and counters consistent',
    'test/soak/concurrency.test.ts',
  ],
  ['concurrency-soak', 'The same for 20 s (`npm run test:soak`)', 'test/soak/concurrency.test.ts'],
  [
    'worker-kill-fanout',
    'Worker processes killed (SIGKILL) at random moments of a fan-out (2 channels; 2,000 recipients, 10,000 with FAULTS_FULL=1), replaced: every (run, step, channel) recorded once, every message at the sink (counted by message_id), none lost; redeliveries of calls in flight at a kill counted and bounded, each carrying its first attempt’s idempotency-key, so a receiver keeping the keys processes every message once',
    'test/faults/worker-kill-fanout.test.ts',
  ],
  [
    'stopped-waits',
    'Every process killed while runs wait in a delay, a batch window and a digest period, down longer than each wait: after the restart each fires once, with every trigger that joined it',
    'test/faults/stopped-waits.test.ts',
  ],
  [
    'secrets-in-engine-logs',
    "No log line of any process (debug level, a delivery refused and retried, a signed request) carries a vendor's secret or header, the workspace secret, an API key or a token",
    'test/faults/stopped-waits.test.ts',
  ],
  [
    'outage-fanout',
    'PostgreSQL gone (connections reset) for 10 s in the middle of a fan-out to the inbox and a webhook, default queue settings: every job running at the cut completes within 30 s of the return, no provider call is made twice, triggers answered 503 or accepted, the fan-out and every accepted trigger complete, each recipient one message per channel',
    'test/faults/outage-fanout.test.ts',
  ],
  [
    'lost-worker',
    'A worker killed (SIGKILL) in the middle of a provider call, default queue settings (job expiry 300 s): another worker makes the call again within 30 s',
    'test/faults/lost-worker.test.ts',
  ],
  [
    'live-worker-long-call',
    'A live worker’s 60 s provider call (vendor timeout_ms 60000), another worker idle, default queue settings: never taken over, one call',
    'test/faults/lost-worker.test.ts',
  ],
  [
    'duplicate-triggers',
    '50 simultaneous triggers over HTTP with one idempotency key (single and bulk): one execution, one run, one message, every answer names it',
    'test/faults/duplicate-triggers.test.ts',
  ],
];

const dir = join(process.cwd(), 'reports', 'reliability');
const records = existsSync(dir)
  ? readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map(
        (file) =>
          JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
            id: string;
            engine: string;
            recorded_at: string;
            figures: Record<string, unknown>;
          },
      )
  : [];

const format = (figures: Record<string, unknown>) =>
  Object.entries(figures)
    .map(
      ([key, value]) =>
        `${key.replace(/_/g, ' ')}: ${typeof value === 'string' && value.startsWith('{') ? value.replace(/"/g, '').replace(/,/g, ', ') : String(value)}`,
    )
    .join('; ');

const rows = GUARANTEES.map(([id, guarantee, test]) => {
  const runs = records.filter((record) => record.id === id).sort((a, b) => a.engine.localeCompare(b.engine));
  const figures =
    runs.length === 0
      ? 'not run yet'
      : runs.map((run) => `**${run.engine}** (${run.recorded_at.slice(0, 16)}Z): ${format(run.figures)}`).join('<br>');
  return `| ${guarantee} | \`${test}\` | ${figures} |`;
});
const table = ['| guarantee | proved by | figures from the last run |', '|---|---|---|', ...rows].join('\n');

const file = join(process.cwd(), 'RELIABILITY.md');
const document = readFileSync(file, 'utf8');
const start = '<!-- figures:start -->';
const end = '<!-- figures:end -->';
const updated = `${document.slice(0, document.indexOf(start) + start.length)}\n${table}\n${document.slice(document.indexOf(end))}`;
writeFileSync(file, updated);
process.stdout.write(`RELIABILITY.md: ${records.length} figure files rendered\n`);
