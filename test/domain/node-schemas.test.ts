import { describe, expect, it } from 'vitest';
import { nodeConfig, treeRunErrors } from '../../src/domain/workflow-tree.js';
import { NODE_HANDLERS } from '../../src/engine/nodes/index.js';
import { NODE_SCHEMAS, NODE_TYPES, type NodeConfig, type NodeType } from '../../src/schemas/workflow-nodes.js';

/** A config each node type's schema and rules admit: a new node type needs its line here. */
const VALID = {
  send_email: { template: 'welcome' },
  send_sms: { template: 'welcome' },
  send_whatsapp: { template: 'welcome' },
  send_mobile_push: { template: 'welcome' },
  send_inbox: { template: 'welcome' },
  send_webpush: { template: 'welcome' },
  send_slack: { template: 'welcome' },
  send_ms_teams: { template: 'welcome' },
  send_multi_channel: { template: 'welcome', channels: ['email', 'inbox'] },
  send_smart_channel_routing: { template: 'welcome', channels: ['email', 'sms'], ttl_value: '1h' },
  delay: { delay_type: 'relative_to', relative_to: { pivot_expr: '.start', offset_type: 'before' } },
  branch: {
    branches: [
      { conditions: [], nodes: [] },
      { is_default: true, nodes: [] },
    ],
  },
  httpapi_webhook: { http_method: 'PUT', url: 'https://example.com/hook', headers: [{ key: 'a', value: '.x' }] },
  batch: { window_type: 'dynamic', dynamic_window_expr: '.window', batch_key: '.doc', retain_count: 100 },
  timewindow: {
    windows: [{ frequency: 'weekly', weekdays: ['mo'], stime: '08:00', etime: '17:00' }],
    tz_fixed: 'Europe/Paris',
  },
  digest: { schedule: { frequency: 'monthly', monthdays: [{ pos: -1, day: 'fr' }], time: '09:00', interval: 2 } },
  branch_waituntil: {
    branches: [
      { conditions: [{ type: 'future_event', event_name: 'paid' }], nodes: [] },
      { is_default: true, conditions: [{ type: 'delay', delay_properties: { value: '1d' } }] },
    ],
  },
  httpapi_fetch: { url: 'http://example.com' },
  objectoperation_addsubscription: { object_type: 'teams', object_id: 't1', user_selection: ['actor', 'recipient'] },
  objectoperation_removesubscription: { object_type: 'teams', object_id: 't1', user_selection: ['recipient'] },
  transform: { variables: [{ key: 'a', value: '{{x}}', value_lang: 'handlebars' }] },
  userupdate: { user_selection: 'recipient', properties: '{"$set": {"a": 1}}' },
  subscriberlistoperation_adduser: { list_id: 'news', list_name: 'News', user_selection: ['recipient'] },
  subscriberlistoperation_removeuser: { list_id: '{{list}} x', is_list_id_dynamic: true, user_selection: ['actor'] },
  invokeworkflow: { workflow: 'next-step', recipient_selection: 'recipient', append_current_run_data: false },
} satisfies { [T in NodeType]: NodeConfig<T> };

const refusals = (node: Record<string, unknown>) => treeRunErrors({ nodes: [node] });

describe('node schemas', () => {
  it('are one per node type, each type with one handler', () => {
    expect(NODE_TYPES).toEqual(Object.keys(NODE_SCHEMAS));
    expect(Object.keys(NODE_HANDLERS).sort()).toEqual([...NODE_TYPES].sort());
  });

  it('admit a valid config of each type, at the node’s top level or under its properties', () => {
    for (const [type, config] of Object.entries(VALID)) {
      expect(refusals({ node_type: type, ...config }), type).toEqual([]);
      if (type !== 'userupdate') expect(refusals({ node_type: type, properties: config }), type).toEqual([]);
    }
  });

  it('refuse with the node’s path and the field, inside a list the item', () => {
    expect(refusals({ node_type: 'batch', mode: 'sometimes', retain_count: 0 })).toEqual([
      'tree.nodes[0] (batch): mode must be accumulate_all or flush_leading_item',
      'tree.nodes[0] (batch): retain_count must be an integer from 1 to 100',
      'tree.nodes[0] (batch): fixed_window must be a duration like 30s, 1h30m or 1d2h30m10s',
    ]);
    expect(
      refusals({
        node_type: 'timewindow',
        windows: [{ frequency: 'daily', stime: '08:00', etime: '17:00' }, { frequency: 'daily', stime: '8h' }, 3],
      }),
    ).toEqual([
      'tree.nodes[0] (timewindow): windows[1].etime must be a time like 17:00',
      'tree.nodes[0] (timewindow): windows[1].stime must be a time like 08:00',
      'tree.nodes[0] (timewindow): windows[2] must be an object',
    ]);
    // A bad item of a list is the list's refusal when only the list names one.
    expect(refusals({ node_type: 'send_multi_channel', template: 'w', channels: ['email', 'fax'] })).toEqual([
      expect.stringMatching(/^tree\.nodes\[0\] \(send_multi_channel\): channels must list channels among email, /),
    ]);
    expect(refusals({ node_type: 'digest', schedule: { frequency: 'yearly', time: '9' } })).toEqual([
      'tree.nodes[0] (digest): schedule.frequency must be one of minutely, hourly, daily, weekly_mo2fr, weekly, monthly',
      'tree.nodes[0] (digest): schedule.time must be a time like 09:00',
    ]);
    // A userupdate's `properties` is its own field (JSONNET), though its other fields may nest there.
    expect(refusals({ node_type: 'userupdate', properties: { user_selection: 'actor', properties: '{}' } })).toEqual([
      'tree.nodes[0] (userupdate): properties must be a JSONNET string',
    ]);
  });

  it('leave to the rules what depends on another field', () => {
    // channels_expr is read only without channels.
    expect(refusals({ node_type: 'send_multi_channel', template: 'w', channels: ['sms'], channels_expr: 5 })).toEqual(
      [],
    );
    expect(refusals({ node_type: 'send_multi_channel', template: 'w', channels_expr: 5 })).toEqual([
      'tree.nodes[0] (send_multi_channel): channels_expr must be a path such as .channels or $recipient.channels',
    ]);
    expect(refusals({ node_type: 'delay', delay_type: 'dynamic', duration: '1h' })).toEqual([
      'tree.nodes[0] (delay): a dynamic duration must be a path such as .wait or $recipient.wait',
    ]);
    expect(
      refusals({ node_type: 'subscriberlistoperation_adduser', list_id: 'a b', user_selection: ['recipient'] }),
    ).toEqual([
      'tree.nodes[0] (subscriberlistoperation_adduser): list_id must have 1 to 128 characters without spaces or slashes',
    ]);
    // One routed channel needs no time to spread over; two do.
    expect(refusals({ node_type: 'send_smart_channel_routing', template: 'w', channels: ['sms'] })).toEqual([]);
    expect(refusals({ node_type: 'send_smart_channel_routing', template: 'w', channels: ['sms', 'email'] })).toEqual([
      'tree.nodes[0] (send_smart_channel_routing): ttl_value must be a duration like 30m or 1h (the time the channels are spread over)',
    ]);
  });

  it('give the handler the node’s own fields, else those under its properties', () => {
    const node = {
      node_type: 'batch',
      mode: 'flush_leading_item',
      properties: { mode: 'accumulate_all', batch_key: '.k' },
    };
    const config: NodeConfig<'batch'> = nodeConfig<'batch'>(node);
    expect([config.mode, config.batch_key]).toEqual(['flush_leading_item', '.k']);
  });
});
