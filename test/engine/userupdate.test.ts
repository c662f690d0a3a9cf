import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { baseCall, engineWorkspace, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';
import { commitOutcome, runOf } from '../support/flow.js';

/** The userupdate node (docs/engine.md, "userupdate"). */
describe('the userupdate node', () => {
  const t = useTestApp({}, { engine: {} });
  const finished = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run && run.status !== 'running' && run.status !== 'waiting' ? run : undefined;
    });
  const profile = async (ws: Awaited<ReturnType<typeof engineWorkspace>>, id: string) =>
    (await baseCall(t, ws)('GET', `/v1/user/${id}/`)).json();

  it("updates the recipient's profile, and the steps after it read the new $recipient", async () => {
    const ws = await engineWorkspace(t);
    await baseCall(t, ws)('POST', '/v1/user/uu-a/', { plan: 'free', visits: 1, tags: ['a'] });
    await liveWorkflow(t, ws, 'upgrade', [
      node('userupdate', {
        user_selection: 'recipient',
        properties: JSON.stringify({
          plan: 'pro',
          $email: 'uu-a@example.com',
          $add: { visits: 2 },
          $append: { tags: 'b' },
        }),
      }),
      node('transform', {
        variables: [
          { key: 'plan_then', value_lang: 'jsonnet', value: '$recipient.plan' },
          { key: 'email_then', value_lang: 'jsonnet', value: '$recipient.$email' },
        ],
      }),
    ]);
    const id = (await trigger(t, ws, { workflow: 'upgrade', recipients: ['uu-a'] })).json().message_id;
    const run = await finished(id);
    expect(run.status).toBe('completed');
    expect(run.data).toMatchObject({ plan_then: 'pro', email_then: ['uu-a@example.com'] });
    const user = await profile(ws, 'uu-a');
    expect(user.properties).toMatchObject({ plan: 'pro', visits: 3, tags: ['a', 'b'] });
    expect(user.$email.map((e: { value: string }) => e.value)).toEqual(['uu-a@example.com']);
  });

  it('updates the actor from a path into the data, and fails the run on an update the users API refuses', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'tier', [node('userupdate', { user_selection: 'actor', properties: 'data["profile"]' })]);
    const id = (
      await trigger(t, ws, {
        workflow: 'tier',
        recipients: ['uu-b'],
        actor: 'uu-boss',
        data: { profile: { $set: { tier: 'gold' }, $unset: ['old'] } },
      })
    ).json().message_id;
    expect((await finished(id)).status).toBe('completed');
    expect((await profile(ws, 'uu-boss')).properties).toMatchObject({ tier: 'gold' });
    expect((await profile(ws, 'uu-b')).properties?.tier).toBeUndefined();

    await baseCall(t, ws)('POST', '/v1/user/uu-c/', { $timezone: 'Europe/Paris' });
    await liveWorkflow(t, ws, 'bad-zone', [
      node('userupdate', { user_selection: 'recipient', properties: '{"$timezone": "Mars/Olympus"}' }),
      node('send_inbox', { template: 'never' }),
    ]);
    const bad = (await trigger(t, ws, { workflow: 'bad-zone', recipients: ['uu-c'] })).json().message_id;
    expect((await finished(bad)).status).toBe('failed');
    expect((await profile(ws, 'uu-c')).properties.$timezone).toBe('Europe/Paris');
  });

  it('refuses a node without a user selection or with properties it cannot evaluate', async () => {
    const ws = await engineWorkspace(t);
    const refusal = async (fields: Record<string, unknown>) => {
      const outcome = await commitOutcome(t, ws, 'bad-update', [node('userupdate', fields)]);
      expect(outcome.status).toBe(400);
      return outcome.message;
    };
    const at = 'tree.nodes[0] (userupdate)';
    expect(await refusal({ user_selection: 'both', properties: '{}' })).toContain(
      `${at}: user_selection must be actor or recipient`,
    );
    expect(await refusal({ user_selection: 'recipient' })).toContain(`${at}: properties must be a non-empty JSONNET`);
    expect(await refusal({ user_selection: 'recipient', properties: '{plan: data.plan}' })).toContain(
      `${at}: properties must be JSON or a path`,
    );
  });
});
