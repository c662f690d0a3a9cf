import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';
import { runOf } from '../support/flow.js';

/** objectoperation_addsubscription / _removesubscription (docs/engine.md, "object subscriptions"). */
describe('the object subscription nodes', () => {
  const t = useTestApp({}, { engine: {} });

  const subscribers = async (workspaceId: number, objectType: string, objectId: string) =>
    (
      await t()
        .db.selectFrom('subscriptions as s')
        .innerJoin('objects as o', 'o.id', 's.object_id')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(['u.distinct_id', 's.properties'])
        .where('o.workspace_id', '=', workspaceId)
        .where('o.object_type', '=', objectType)
        .where('o.object_id', '=', objectId)
        .orderBy('u.distinct_id')
        .execute()
    ).map((r) => ({ distinct_id: r.distinct_id, properties: r.properties }));
  const completed = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run?.status === 'completed' ? run : undefined;
    });

  it('subscribes the recipient and the actor to an object named from the data, creating it, then removes them', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'join', [
      node('objectoperation_addsubscription', {
        is_object_id_dynamic: true,
        object_type: 'projects',
        object_id: '{{project}}',
        create_object_if_missing: true,
        user_selection: ['recipient', 'actor'],
        subscription_properties: '{"role": "watcher"}',
      }),
    ]);
    const id = (
      await trigger(t, ws, { workflow: 'join', recipients: ['os-a'], actor: 'os-boss', data: { project: 'apollo' } })
    ).json().message_id;
    await completed(id);
    expect(await subscribers(ws.workspaceId, 'projects', 'apollo')).toEqual([
      { distinct_id: 'os-a', properties: { role: 'watcher' } },
      { distinct_id: 'os-boss', properties: { role: 'watcher' } },
    ]);

    await liveWorkflow(t, ws, 'leave', [
      node('objectoperation_removesubscription', {
        object_type: 'projects',
        object_id: 'apollo',
        user_selection: ['recipient'],
      }),
    ]);
    await completed((await trigger(t, ws, { workflow: 'leave', recipients: ['os-a'] })).json().message_id);
    expect(await subscribers(ws.workspaceId, 'projects', 'apollo')).toEqual([
      { distinct_id: 'os-boss', properties: { role: 'watcher' } },
    ]);
  });

  it('leaves a missing object alone unless told to create it', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'no-create', [
      node('objectoperation_addsubscription', {
        object_type: 'teams',
        object_id: 'ghost',
        user_selection: ['recipient'],
      }),
    ]);
    await completed((await trigger(t, ws, { workflow: 'no-create', recipients: ['os-b'] })).json().message_id);
    const object = await t()
      .db.selectFrom('objects')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .where('object_id', '=', 'ghost')
      .executeTakeFirst();
    expect(object).toBeUndefined();
  });

  it('refuses a node without an object or a user selection', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    await config.postWorkflow('bad-sub', {
      name: 'bad-sub',
      category: 'order-updates',
      trigger_type: 'api',
      tree: {
        nodes: [
          node('objectoperation_addsubscription', {
            object_type: 'teams',
            user_selection: ['boss'],
            subscription_properties: '{role: data.role}',
          }),
        ],
      },
    });
    const commit = await config.commitWorkflow('bad-sub');
    expect(commit.statusCode).toBe(400);
    expect(commit.json().message).toContain(
      'tree.nodes[0] (objectoperation_addsubscription): object_id must be a non-empty string',
    );
    expect(commit.json().message).toContain('user_selection must list actor and/or recipient');
    expect(commit.json().message).toContain(
      'tree.nodes[0] (objectoperation_addsubscription): subscription_properties must be JSON or a path such as data.x or $recipient.x (full JSONNET is not supported)',
    );
  });
});
