import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { baseCall, engineWorkspace } from '../support/engine-drivers.js';

/** Trigger bodies at and past their bounds (issue 25, point 5). */
describe('a legacy trigger_at', () => {
  const t = useTestApp({}, { engine: { worker: false } });
  const legacy = (trigger_at: string, i = 0) => ({
    name: `legacy-at-${i}`,
    template: 'legacy',
    notification_category: 'order-updates',
    users: [{ distinct_id: `at-${i}` }],
    delivery: { mandatory_channels: ['inbox'] },
    trigger_at,
  });

  it('beyond 366 days ahead (year +275760) is a 400 naming the field, as broadcasts answer', async () => {
    const ws = await engineWorkspace(t);
    const call = baseCall(t, ws);
    const far = await call('POST', `/${ws.workspaceKey}/trigger/`, legacy('+275760-09-13T00:00:00Z'));
    expect(far.statusCode).toBe(400);
    expect(far.json().message).toBe('trigger_at must be at most 366 days ahead');
    const notADate = await call('POST', `/${ws.workspaceKey}/trigger/`, legacy('tomorrow'));
    expect(notADate.statusCode).toBe(400);
    expect(notADate.json().message).toBe('trigger_at must be an ISO 8601 date-time');
    // Positive control: a date within the bound is accepted.
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    const near = await call('POST', `/${ws.workspaceKey}/trigger/`, legacy(soon));
    expect(near.statusCode, near.body).toBe(202);
    const executions = await t()
      .db.selectFrom('executions')
      .select('workflow_slug')
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(executions.map((e) => e.workflow_slug)).toEqual(['legacy-at-0']);
  });

  it('out of bounds in a bulk call fails its own record only', async () => {
    const ws = await engineWorkspace(t);
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const response = await baseCall(t, ws)('POST', `/${ws.workspaceKey}/trigger/`, [
      legacy(soon, 1),
      legacy('+275760-09-13T00:00:00Z', 2),
      legacy(soon, 3),
    ]);
    expect(response.statusCode).toBe(207);
    const records = response.json().records as { status_code: number; error?: { message: string } }[];
    expect(records.map((r) => r.status_code)).toEqual([202, 400, 202]);
    expect(records[1]!.error!.message).toMatch(/trigger_at must be at most 366 days ahead/);
  });
});
