import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import {
  engineWorkspace,
  inbox,
  liveWorkflow,
  messages,
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';
import { makeRunJobsDue, runOf, testClock } from '../support/flow.js';

/**
 * The timewindow node (docs/engine.md, "timewindow"). Windows are set around the current minute;
 * a run outside them waits for the next opening as a scheduled job, which the test makes due after
 * moving the engine's clock there.
 */

const MINUTE = 60_000;
const hhmm = (minutes: number) => {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};
const minuteOfDay = (instant: number) => Math.floor((instant % 86_400_000) / MINUTE);

describe('the timewindow node', () => {
  const clock = testClock();
  const t = useTestApp({}, { engine: { engine: { now: clock.now } } });

  it('goes on at once inside a window and waits for the next opening outside every window', async () => {
    const ws = await engineWorkspace(t);
    const now = Date.now();
    const minute = minuteOfDay(now);
    await liveWorkflow(t, ws, 'open-now', [
      node('timewindow', {
        windows: [{ frequency: 'daily', stime: hhmm(minute - 5), etime: hhmm(minute + 60) }],
        tz_selection: 'fixed',
        tz_fixed: 'UTC',
      }),
      inbox('inside'),
    ]);
    const inside = (await trigger(t, ws, { workflow: 'open-now', recipients: ['tw-a'] })).json().message_id;
    await settledMessages(t, ws, inside, 1);

    const opening = Math.floor(now / MINUTE) * MINUTE + 30 * MINUTE;
    await liveWorkflow(t, ws, 'later', [
      node('timewindow', {
        windows: [
          { frequency: 'daily', stime: hhmm(minute + 30), etime: hhmm(minute + 40) },
          { frequency: 'daily', stime: hhmm(minute + 90), etime: hhmm(minute + 100) },
        ],
        tz_fixed: 'UTC',
      }),
      inbox('at-opening'),
    ]);
    const outside = (await trigger(t, ws, { workflow: 'later', recipients: ['tw-b'] })).json().message_id;
    const waiting = await waitFor(async () => {
      const run = await runOf(t, outside);
      return run?.status === 'waiting' ? run : undefined;
    });
    expect(waiting.resume_at!.getTime()).toBe(opening);
    expect((await messages(t, ws, `?execution_id=${outside}`)).results).toEqual([]);

    clock.jumpTo(opening);
    try {
      expect(await makeRunJobsDue(t, waiting.id)).toBe(1);
      const [message] = await settledMessages(t, ws, outside, 1);
      expect(message).toMatchObject({ content: { text: 'at-opening on inbox' } });
    } finally {
      clock.reset();
    }
  });

  it("reads the windows in the recipient's time zone when told to", async () => {
    const ws = await engineWorkspace(t);
    // Kolkata is UTC+5:30 all year: a window around its current time is far from the UTC one.
    const kolkata = minuteOfDay(Date.now()) + 330;
    const windows = [{ frequency: 'daily', stime: hhmm(kolkata - 5), etime: hhmm(kolkata + 60) }];
    await liveWorkflow(t, ws, 'their-time', [
      node('timewindow', { windows, tz_selection: 'recipient', tz_fixed: 'UTC' }),
      inbox('theirs'),
    ]);
    await liveWorkflow(t, ws, 'utc-time', [
      node('timewindow', { windows, tz_selection: 'fixed', tz_fixed: 'UTC' }),
      inbox('utc'),
    ]);
    await t().app.inject({
      method: 'POST',
      url: '/v1/user/tw-in/',
      headers: ws.base,
      payload: { $timezone: 'Asia/Kolkata' },
    });
    const theirs = (await trigger(t, ws, { workflow: 'their-time', recipients: ['tw-in'] })).json().message_id;
    const utc = (await trigger(t, ws, { workflow: 'utc-time', recipients: ['tw-in'] })).json().message_id;
    await settledMessages(t, ws, theirs, 1);
    await waitFor(async () => (await runOf(t, utc))?.status === 'waiting');
  });

  it('refuses windows it cannot read, naming the field', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    const refusal = async (fields: Record<string, unknown>) => {
      await config.postWorkflow('bad-tw', {
        name: 'bad-tw',
        category: 'order-updates',
        trigger_type: 'api',
        tree: { nodes: [node('timewindow', fields), inbox()] },
      });
      const commit = await config.commitWorkflow('bad-tw');
      expect(commit.statusCode).toBe(400);
      return commit.json().message as string;
    };
    expect(await refusal({ windows: [] })).toContain(
      'tree.nodes[0] (timewindow): windows must hold at least one window',
    );
    expect(await refusal({ windows: [{ frequency: 'daily', stime: '8am', etime: '17:00' }] })).toContain(
      'windows[0].stime must be a time like 08:00',
    );
    expect(
      await refusal({ windows: [{ frequency: 'weekly', weekdays: ['xx'], stime: '08:00', etime: '17:00' }] }),
    ).toContain('windows[0].weekdays must list days');
    expect(
      await refusal({ windows: [{ frequency: 'daily', stime: '08:00', etime: '17:00' }], tz_fixed: 'Mars/Olympus' }),
    ).toContain('tz_fixed must be an IANA time zone');
  });

  it('opens the window after every worker was stopped past the opening', async () => {
    const ws = await engineWorkspace(t);
    const now = Date.now();
    const opening = Math.floor(now / MINUTE) * MINUTE + 20 * MINUTE;
    await liveWorkflow(t, ws, 'outage-tw', [
      node('timewindow', {
        windows: [{ frequency: 'daily', stime: hhmm(minuteOfDay(now) + 20), etime: hhmm(minuteOfDay(now) + 30) }],
      }),
      inbox('after-outage'),
    ]);
    const id = (await trigger(t, ws, { workflow: 'outage-tw', recipients: ['tw-c'] })).json().message_id;
    const run = await waitFor(async () => {
      const r = await runOf(t, id);
      return r?.status === 'waiting' ? r : undefined;
    });
    clock.jumpTo(opening);
    expect(await makeRunJobsDue(t, run.id)).toBe(1);
    await t().engineRuntime!.restart(1500);
    const [message] = await settledMessages(t, ws, id, 1);
    expect(message).toMatchObject({ content: { text: 'after-outage on inbox' } });
  });
});
