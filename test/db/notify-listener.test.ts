import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { NotifyListener } from '../../src/db/notify-listener.js';

const url = process.env.DATABASE_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A listener stopped while it is still connecting (an app closed during a reconnect) keeps nothing:
 * no LISTEN connection left open behind it, no handler still called.
 */
describe('NotifyListener stopped while it connects', () => {
  it.runIf(url)('leaves no LISTEN connection open (PostgreSQL)', async () => {
    const channel = `herald_test_${process.pid}_${Date.now()}`;
    const heard: (string | undefined)[] = [];
    const listener = new NotifyListener({ channel, url });
    listener.onPayload((payload) => heard.push(payload));
    const starting = listener.start();
    await listener.stop();
    await starting;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`notify ${channel}, 'late'`);
      await sleep(200);
      const { rows } = await admin.query(
        'select count(*)::int as n from pg_stat_activity where application_name = $1',
        [`herald-listen-${channel}`],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await admin.end();
    }
    expect(listener.listening).toBe(false);
    expect(heard).toEqual([]);
  });

  it.skipIf(url)('no longer hears the channel (embedded)', async () => {
    const pglite = new PGlite('memory://');
    try {
      const heard: (string | undefined)[] = [];
      const listener = new NotifyListener({ channel: 'herald_test', pglite });
      listener.onPayload((payload) => heard.push(payload));
      const starting = listener.start();
      await listener.stop();
      await starting;
      await pglite.query(`notify herald_test, 'late'`);
      await sleep(100);
      expect(heard).toEqual([]);
      expect(listener.listening).toBe(false);
    } finally {
      await pglite.close();
    }
  });
});
