import { describe, expect, it } from 'vitest';
import { dayMatches, nextScheduledTime, nextWindowOpening, zonedInstant } from '../../src/domain/calendar.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null | undefined) => (typeof ms === 'number' ? new Date(ms).toISOString() : ms);

describe('calendar time for timewindow and digest', () => {
  it('finds whether now is inside a daily window, else the next opening', () => {
    const day = [{ frequency: 'daily', stime: '08:00', etime: '20:00' }];
    expect(iso(nextWindowOpening(day, 'UTC', at('2026-11-26T07:00:00Z')))).toBe('2026-11-26T08:00:00.000Z');
    expect(nextWindowOpening(day, 'UTC', at('2026-11-26T08:00:00Z'))).toBeNull();
    expect(nextWindowOpening(day, 'UTC', at('2026-11-26T19:59:59Z'))).toBeNull();
    // The end is excluded.
    expect(iso(nextWindowOpening(day, 'UTC', at('2026-11-26T20:00:00Z')))).toBe('2026-11-27T08:00:00.000Z');
  });

  it('runs a window past midnight when its end is not after its start', () => {
    const night = [{ frequency: 'daily', stime: '22:00', etime: '06:00' }];
    expect(nextWindowOpening(night, 'UTC', at('2026-11-26T23:00:00Z'))).toBeNull();
    expect(nextWindowOpening(night, 'UTC', at('2026-11-27T03:00:00Z'))).toBeNull();
    expect(iso(nextWindowOpening(night, 'UTC', at('2026-11-27T07:00:00Z')))).toBe('2026-11-27T22:00:00.000Z');
  });

  it('admits days by weekday, working week and month position', () => {
    // 2026-11-28 is a Saturday.
    const work = [{ frequency: 'weekly_mo2fr', stime: '09:00', etime: '17:00' }];
    expect(iso(nextWindowOpening(work, 'UTC', at('2026-11-28T10:00:00Z')))).toBe('2026-11-30T09:00:00.000Z');
    const wednesdays = [{ frequency: 'weekly', weekdays: ['we'], stime: '09:00', etime: '10:00' }];
    expect(iso(nextWindowOpening(wednesdays, 'UTC', at('2026-11-26T10:00:00Z')))).toBe('2026-12-02T09:00:00.000Z');
    expect(dayMatches({ frequency: 'monthly', monthdays: [{ pos: -1 }] }, { year: 2026, month: 2, day: 28 })).toBe(
      true,
    );
    expect(dayMatches({ frequency: 'monthly', monthdays: [{ pos: -1 }] }, { year: 2026, month: 3, day: 30 })).toBe(
      false,
    );
    // The second Tuesday of December 2026 is the 8th; the last Friday of November 2026 the 27th.
    expect(
      dayMatches({ frequency: 'monthly', monthdays: [{ pos: 2, day: 'tu' }] }, { year: 2026, month: 12, day: 8 }),
    ).toBe(true);
    expect(
      dayMatches({ frequency: 'monthly', monthdays: [{ pos: 2, day: 'tu' }] }, { year: 2026, month: 12, day: 1 }),
    ).toBe(false);
    expect(
      dayMatches({ frequency: 'monthly', monthdays: [{ pos: -1, day: 'fr' }] }, { year: 2026, month: 11, day: 27 }),
    ).toBe(true);
    const firsts = [{ frequency: 'monthly', monthdays: [{ pos: 1 }], stime: '00:00', etime: '01:00' }];
    expect(iso(nextWindowOpening(firsts, 'UTC', at('2026-11-26T10:00:00Z')))).toBe('2026-12-01T00:00:00.000Z');
  });

  it('reads wall-clock times in the zone, across daylight-saving changes', () => {
    const morning = [{ frequency: 'daily', stime: '09:00', etime: '10:00' }];
    // Paris is UTC+1 in November, UTC+2 in July.
    expect(iso(nextWindowOpening(morning, 'Europe/Paris', at('2026-11-26T07:00:00Z')))).toBe(
      '2026-11-26T08:00:00.000Z',
    );
    expect(iso(nextWindowOpening(morning, 'Europe/Paris', at('2026-07-01T06:00:00Z')))).toBe(
      '2026-07-01T07:00:00.000Z',
    );
    // New York springs forward on 2026-03-08: 02:30 does not exist there and happens as 03:30 EDT.
    expect(iso(zonedInstant({ year: 2026, month: 3, day: 8 }, 150, 'America/New_York'))).toBe(
      '2026-03-08T07:30:00.000Z',
    );
    expect(iso(zonedInstant({ year: 2026, month: 3, day: 9 }, 150, 'America/New_York'))).toBe(
      '2026-03-09T06:30:00.000Z',
    );
    expect(iso(zonedInstant({ year: 2026, month: 3, day: 7 }, 150, 'America/New_York'))).toBe(
      '2026-03-07T07:30:00.000Z',
    );
  });

  it('has no opening for a window that never happens', () => {
    expect(nextWindowOpening([{ frequency: 'weekly', weekdays: [], stime: '09:00', etime: '10:00' }], 'UTC', 0)).toBe(
      undefined,
    );
  });

  it('computes the next time of a digest schedule from dtstart, interval and time', () => {
    const after = at('2026-11-26T10:07:30Z');
    expect(iso(nextScheduledTime({ frequency: 'minutely', interval: 5 }, 'UTC', after))).toBe(
      '2026-11-26T10:10:00.000Z',
    );
    expect(
      iso(nextScheduledTime({ frequency: 'hourly', interval: 2, dtstart: '2026-11-26T09:30:00Z' }, 'UTC', after)),
    ).toBe('2026-11-26T11:30:00.000Z');
    // Every 3 days from the 20th: the 23rd, 26th (09:00 passed), the 29th.
    expect(
      iso(
        nextScheduledTime(
          { frequency: 'daily', interval: 3, time: '09:00', dtstart: '2026-11-20T00:00:00Z' },
          'UTC',
          after,
        ),
      ),
    ).toBe('2026-11-29T09:00:00.000Z');
    expect(iso(nextScheduledTime({ frequency: 'weekly', weekdays: ['mo', 'th'], time: '18:30' }, 'UTC', after))).toBe(
      '2026-11-26T18:30:00.000Z',
    );
    expect(
      iso(
        nextScheduledTime(
          { frequency: 'monthly', monthdays: [{ pos: 1, day: 'mo' }], time: '08:00' },
          'Europe/Paris',
          after,
        ),
      ),
    ).toBe('2026-12-07T07:00:00.000Z');
    // Before dtstart, the schedule waits for it.
    expect(
      iso(nextScheduledTime({ frequency: 'daily', time: '09:00', dtstart: '2027-01-01T00:00:00Z' }, 'UTC', after)),
    ).toBe('2027-01-01T09:00:00.000Z');
    expect(nextScheduledTime({ frequency: 'weekly', weekdays: [] }, 'UTC', after)).toBeUndefined();
  });
});
