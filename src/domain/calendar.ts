/**
 * Calendar time in an IANA time zone, for the timewindow and digest nodes (docs/spec/engine.md §3):
 * which days a recurrence rule admits and when a wall-clock time happens. Pure: the instant is passed in.
 * Built on Intl, so the zone database is the runtime's own.
 */

export const WEEKDAYS = ['su', 'mo', 'tu', 'we', 'th', 'fr', 'sa'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A local calendar date (month 1–12). */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone === '') return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `zone` at `instant`. */
export function wallClock(instant: number, zone: string) {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

const offsetAt = (instant: number, zone: string) => {
  const w = wallClock(instant, zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
};

/**
 * The instant the wall clock in `zone` shows this date and time. A time skipped by a DST change
 * happens at the same offset as just before it (02:30 on a spring-forward night is 03:30).
 */
export function zonedInstant(date: LocalDate, minutes: number, zone: string): number {
  const guess = Date.UTC(date.year, date.month - 1, date.day, 0, minutes);
  const first = guess - offsetAt(guess, zone);
  const second = guess - offsetAt(first, zone);
  if (second === first) return first;
  const w = wallClock(second, zone);
  return w.day === date.day && w.hour * 60 + w.minute === minutes ? second : first;
}

export const addDays = (date: LocalDate, days: number): LocalDate => {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
};

export const weekdayOf = (date: LocalDate): Weekday =>
  WEEKDAYS[new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay()]!;

const daysInMonth = (date: LocalDate) => new Date(Date.UTC(date.year, date.month, 0)).getUTCDate();

/** `HH:MM` (24-hour) as minutes after midnight; undefined when malformed. */
export function clockMinutes(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

export interface MonthDay {
  pos: number;
  day?: Weekday | null;
}

export interface DayRule {
  frequency: string;
  weekdays?: unknown;
  monthdays?: unknown;
}

/**
 * Whether the rule admits this date: `daily` every day, `weekly_mo2fr` Monday to Friday, `weekly`
 * the listed `weekdays`, `monthly` the listed `monthdays` (`pos` n: the n-th day, negative from the
 * end; with `day`: the n-th such weekday of the month, negative from the end).
 */
export function dayMatches(rule: DayRule, date: LocalDate): boolean {
  const weekday = weekdayOf(date);
  switch (rule.frequency) {
    case 'daily':
    case 'minutely':
    case 'hourly':
      return true;
    case 'weekly_mo2fr':
      return weekday !== 'sa' && weekday !== 'su';
    case 'weekly':
      return Array.isArray(rule.weekdays) && rule.weekdays.includes(weekday);
    case 'monthly': {
      if (!Array.isArray(rule.monthdays)) return false;
      const length = daysInMonth(date);
      return (rule.monthdays as MonthDay[]).some((m) => {
        if (!m || typeof m.pos !== 'number' || m.pos === 0) return false;
        if (!m.day) return m.pos > 0 ? date.day === m.pos : date.day === length + m.pos + 1;
        if (m.day !== weekday) return false;
        const nth = m.pos > 0 ? Math.ceil(date.day / 7) : -Math.ceil((length - date.day + 1) / 7);
        return nth === m.pos;
      });
    }
    default:
      return false;
  }
}

export interface ClockWindow extends DayRule {
  stime?: unknown;
  etime?: unknown;
}

/**
 * Null when `now` is inside one of the windows `[stime, etime)` (a window whose end is not after its
 * start runs past midnight into the next day), else the next instant one opens (undefined: none
 * within a year and a half, or no well-formed window).
 */
export function nextWindowOpening(windows: ClockWindow[], zone: string, now: number): number | null | undefined {
  const today = wallClock(now, zone);
  let best: number | undefined;
  for (let offset = -1; offset <= 550; offset++) {
    const date = addDays(today, offset);
    for (const window of windows) {
      const start = clockMinutes(window.stime);
      const end = clockMinutes(window.etime);
      if (start === undefined || end === undefined || !dayMatches(window, date)) continue;
      const opens = zonedInstant(date, start, zone);
      const closes = end > start ? zonedInstant(date, end, zone) : zonedInstant(addDays(date, 1), end, zone);
      if (opens <= now && now < closes) return null;
      if (opens > now && (best === undefined || opens < best)) best = opens;
    }
    // Days are visited in order: an opening found is the earliest once the next day cannot hold an earlier one.
    if (best !== undefined && offset >= 1) return best;
  }
  return best;
}

export interface Schedule extends DayRule {
  interval?: unknown;
  time?: unknown;
  dtstart?: unknown;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const dayNumber = (date: LocalDate) => Math.round(Date.UTC(date.year, date.month - 1, date.day) / DAY_MS);
// 1970-01-05 was a Monday: weeks are counted from Mondays.
const weekNumber = (date: LocalDate) => Math.floor((dayNumber(date) - 4) / 7);
const monthNumber = (date: LocalDate) => date.year * 12 + date.month - 1;

/**
 * The first time after `after` a recurring schedule fires (digest, docs/spec/engine.md §3): calendar
 * time from `dtstart` (default: the epoch) at `time` (`HH:MM`, default 00:00) in `zone`, every
 * `interval` minutes, hours, days, weeks or months; `weekly` on its `weekdays`, `monthly` on its
 * `monthdays`. Undefined when the schedule never fires (within about three years).
 */
export function nextScheduledTime(schedule: Schedule, zone: string, after: number): number | undefined {
  const interval =
    Number.isInteger(schedule.interval) && (schedule.interval as number) >= 1 ? (schedule.interval as number) : 1;
  const parsedStart = typeof schedule.dtstart === 'string' ? Date.parse(schedule.dtstart) : NaN;
  const start = Number.isNaN(parsedStart) ? 0 : parsedStart;
  if (schedule.frequency === 'minutely' || schedule.frequency === 'hourly') {
    const step = interval * (schedule.frequency === 'minutely' ? MINUTE_MS : 60 * MINUTE_MS);
    if (after < start) return start;
    return start + (Math.floor((after - start) / step) + 1) * step;
  }
  const time = clockMinutes(schedule.time) ?? 0;
  const first = wallClock(Math.max(after, start), zone);
  const origin = wallClock(start, zone);
  const period =
    schedule.frequency === 'monthly'
      ? (d: LocalDate) => monthNumber(d) - monthNumber(origin)
      : schedule.frequency === 'weekly' || schedule.frequency === 'weekly_mo2fr'
        ? (d: LocalDate) => weekNumber(d) - weekNumber(origin)
        : (d: LocalDate) => dayNumber(d) - dayNumber(origin);
  for (let offset = 0; offset <= 1100; offset++) {
    const date = addDays(first, offset);
    if (period(date) % interval !== 0 || !dayMatches(schedule, date)) continue;
    const instant = zonedInstant(date, time, zone);
    if (instant > after && instant >= start) return instant;
  }
  return undefined;
}
