import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { baseCall, engineWorkspace, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';
import { commitOutcome, runOf } from '../support/flow.js';

/** subscriberlistoperation_adduser / _removeuser (docs/engine.md, "subscriber lists"). */
describe('the subscriber list nodes', () => {
  const t = useTestApp({}, { engine: {} });
  const completed = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run?.status === 'completed' ? run : undefined;
    });
  const members = async (ws: Awaited<ReturnType<typeof engineWorkspace>>, listId: string) => {
    const response = await baseCall(t, ws)('GET', `/v1/subscriber_list/${listId}/subscriber/?limit=100`);
    if (response.statusCode === 404) return undefined;
    return (response.json().results as { distinct_id: string }[]).map((m) => m.distinct_id).sort();
  };

  it('adds the recipient and the actor to a list named from the data, creating it, then removes one', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'join-list', [
      node('subscriberlistoperation_adduser', {
        is_list_id_dynamic: true,
        list_id: '{{team}}-watchers',
        create_list_if_missing: true,
        list_name: 'Team watchers',
        user_selection: ['recipient', 'actor'],
      }),
    ]);
    const data = { team: 'apollo' };
    await completed(
      (await trigger(t, ws, { workflow: 'join-list', recipients: ['sl-a'], actor: 'sl-boss', data })).json().message_id,
    );
    expect(await members(ws, 'apollo-watchers')).toEqual(['sl-a', 'sl-boss']);
    const list = (await baseCall(t, ws)('GET', '/v1/subscriber_list/apollo-watchers/')).json();
    expect(list.list_name).toBe('Team watchers');

    await liveWorkflow(t, ws, 'leave-list', [
      node('subscriberlistoperation_removeuser', { list_id: 'apollo-watchers', user_selection: ['recipient'] }),
    ]);
    await completed((await trigger(t, ws, { workflow: 'leave-list', recipients: ['sl-a'] })).json().message_id);
    expect(await members(ws, 'apollo-watchers')).toEqual(['sl-boss']);
  });

  it('leaves a missing list alone unless told to create it', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'no-list', [
      node('subscriberlistoperation_adduser', { list_id: 'ghost-list', user_selection: ['recipient'] }),
      node('subscriberlistoperation_removeuser', { list_id: 'ghost-list', user_selection: ['recipient'] }),
    ]);
    await completed((await trigger(t, ws, { workflow: 'no-list', recipients: ['sl-b'] })).json().message_id);
    expect(await members(ws, 'ghost-list')).toBeUndefined();
  });

  it('refuses a node without a valid list id or user selection', async () => {
    const ws = await engineWorkspace(t);
    const refusal = async (type: string, fields: Record<string, unknown>) => {
      const outcome = await commitOutcome(t, ws, 'bad-list', [node(type, fields)]);
      expect(outcome.status).toBe(400);
      return outcome.message;
    };
    expect(await refusal('subscriberlistoperation_adduser', { user_selection: ['recipient'] })).toContain(
      'tree.nodes[0] (subscriberlistoperation_adduser): list_id must be a non-empty string',
    );
    expect(
      await refusal('subscriberlistoperation_removeuser', { list_id: 'has space', user_selection: ['recipient'] }),
    ).toContain('tree.nodes[0] (subscriberlistoperation_removeuser): list_id must have 1 to 128 characters');
    expect(await refusal('subscriberlistoperation_adduser', { list_id: 'ok', user_selection: ['boss'] })).toContain(
      'tree.nodes[0] (subscriberlistoperation_adduser): user_selection must list actor and/or recipient',
    );
    expect(
      await refusal('subscriberlistoperation_adduser', { list_id: 'ok', user_selection: ['actor'], list_name: '' }),
    ).toContain('list_name must be a string of 1 to 256 characters');
  });
});
