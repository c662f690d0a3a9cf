import { Type, type Static, type TLiteral, type TSchema } from '@sinclair/typebox';
import { DELIVERY_CHANNELS, type DeliveryChannel } from './delivery-channels.js';
import { WORKFLOW_SLUG_PATTERN } from './identifiers.js';

/**
 * The node types of a workflow tree, defined once: one TypeBox schema per type (`NODE_SCHEMAS`), the
 * shape of its config as the tree holds it (docs/spec/engine.md §3). The commit-time validation checks
 * a node against its type's schema (src/domain/node-schemas.ts), plus the few rules across fields a
 * schema cannot say (src/domain/flow-node-rules.ts), and the engine's handler map holds one handler per
 * type, declared against its schema's static type (src/engine/nodes/index.ts): the compiler checks both.
 *
 * `errorMessage` is the refusal of a field, printed after the node's path and the field's
 * (`tree.nodes[0] (batch): mode must be …`); a failure inside a field takes the message of the nearest
 * field around it that has one. The formats (`namespace-path`, `clock` …) are registered where the
 * schemas are compiled. A field a rule checks because what it may hold depends on another field, or because it
 * has several refusals, is `Type.Unknown()` here and says which rule checks it.
 */

/** A field the tree may leave out or set to null (the engine then takes its default). */
const Maybe = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()], { errorMessage: schema.errorMessage as string | undefined }));
const OneOf = <const V extends readonly string[]>(values: V, errorMessage?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)) as unknown as TLiteral<V[number]>[],
    errorMessage === undefined ? {} : { errorMessage },
  );
/** Checked by a rule of src/domain/flow-node-rules.ts (named in `description`), or read as is. */
const RuleChecked = (description: string) => Type.Optional(Type.Unknown({ description }));

const CHANNEL_LIST = `must list channels among ${DELIVERY_CHANNELS.join(', ')}`;
const ChannelList = Type.Array(OneOf(DELIVERY_CHANNELS), { errorMessage: CHANNEL_LIST });
/** A path read from the run's namespaces: `.x` (data) or `$recipient.x` (src/domain/paths.ts). */
const Path = () => Type.String({ format: 'namespace-path' });
const Blank = Type.Literal('');
/** A duration above zero: seconds as a number, or a text like 30m or 1h (src/domain/durations.ts). */
const PositiveDuration = (errorMessage: string) =>
  Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String({ format: 'positive-duration' })], { errorMessage });
const NonBlank = (errorMessage: string) => Type.String({ pattern: '\\S', errorMessage });

/** A delivery node's template: the slug of a template (checked to be committed in src/domain/workflow-rules.ts). */
export const TEMPLATE_SLUG_PATTERN = '^[a-z0-9-_]{1,120}$';
const Template = Type.String({
  pattern: TEMPLATE_SLUG_PATTERN,
  errorMessage: 'must be a template slug (a-z, 0-9, - and _)',
});

const Retention = {
  retain_count: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be an integer from 1 to 100' }),
  ),
  retain_order: Type.Optional(OneOf(['first', 'last'], 'must be first or last')),
};

/** When a batch's window or a delay ends: a duration, a path to one, or a time relative to a path's. */
const WINDOW_TYPES = ['fixed', 'dynamic', 'relative_to'] as const;

const UserSelectionList = Type.Array(OneOf(['actor', 'recipient']), {
  minItems: 1,
  errorMessage: 'must list actor and/or recipient',
});

const TimeZoneChoice = {
  tz_selection: Type.Optional(OneOf(['fixed', 'recipient'], 'must be fixed or recipient')),
  tz_fixed: Maybe(
    Type.Union([Blank, Type.String({ format: 'time-zone' })], {
      errorMessage: 'must be an IANA time zone such as Europe/Paris',
    }),
  ),
};

/** The fields every delivery node has: the template it sends (docs/configuration.md). */
export const DeliveryNodeSchema = Type.Object({ template: Template }, { $id: 'DeliveryNode' });

export const SendMultiChannelNodeSchema = Type.Object(
  {
    template: Template,
    channels: Maybe(ChannelList),
    channels_expr: RuleChecked('multiChannelErrors: a path, read when channels is not set'),
  },
  { $id: 'SendMultiChannelNode' },
);

export const SendSmartChannelRoutingNodeSchema = Type.Object(
  {
    template: Template,
    channels: Maybe(ChannelList),
    channels_expr: RuleChecked('smartRoutingErrors: a path, required when channels is not set'),
    mandatory_channels: Maybe(ChannelList),
    success_is_event: Maybe(Type.Boolean({ errorMessage: 'must be true or false' })),
    success: RuleChecked('successErrors: a message status, or an event name when success_is_event'),
    ttl_value: Maybe(PositiveDuration('must be a duration like 30m or 1h (the time the channels are spread over)')),
    routing_basis: Maybe(Type.Literal('cost_low_to_high', { errorMessage: 'must be cost_low_to_high' })),
  },
  { $id: 'SendSmartChannelRoutingNode' },
);

export const DelayNodeSchema = Type.Object(
  {
    delay_type: Maybe(OneOf(WINDOW_TYPES, 'must be fixed, dynamic or relative_to')),
    duration: RuleChecked('delayErrors: a duration (fixed) or a path to one (dynamic)'),
    relative_to: RuleChecked('relativeErrors: {pivot_expr, offset_type?, …} (relative_to)'),
  },
  { $id: 'DelayNode' },
);

export const BranchNodeSchema = Type.Object(
  {
    // Each branch (conditions, nested nodes) is checked by the tree walk (src/domain/workflow-tree.ts).
    branches: Type.Array(Type.Unknown(), { minItems: 2, maxItems: 10, errorMessage: 'must hold 2 to 10 branches' }),
  },
  { $id: 'BranchNode' },
);

const HTTP_METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'] as const;
const HttpCall = {
  url: Type.String({ format: 'http-url', errorMessage: 'must be an http(s) URL' }),
  headers: RuleChecked('httpValueErrors: [{key, value}], each part JSON, a path or plain text'),
  query_params: RuleChecked('httpValueErrors: [{key, value}], each part JSON, a path or plain text'),
  output_key: RuleChecked('none: the data key the answer is stored under'),
};

export const HttpapiWebhookNodeSchema = Type.Object(
  {
    http_method: Maybe(OneOf(HTTP_METHODS, `must be one of ${HTTP_METHODS.join(', ')}`)),
    ...HttpCall,
    body: RuleChecked('httpValueErrors: JSON, a path or plain text'),
    body_content_type: RuleChecked('none: the content-type sent with a body'),
  },
  { $id: 'HttpapiWebhookNode' },
);

export const HttpapiFetchNodeSchema = Type.Object(
  {
    http_method: Maybe(Type.Literal('GET', { errorMessage: 'must be GET' })),
    ...HttpCall,
  },
  { $id: 'HttpapiFetchNode' },
);

export const BatchNodeSchema = Type.Object(
  {
    mode: Maybe(OneOf(['accumulate_all', 'flush_leading_item'], 'must be accumulate_all or flush_leading_item')),
    window_type: Maybe(OneOf(WINDOW_TYPES, 'must be fixed, dynamic or relative_to')),
    fixed_window: RuleChecked('windowErrors: a duration (fixed)'),
    dynamic_window_expr: RuleChecked('windowErrors: a path (dynamic)'),
    relative_to: RuleChecked('windowErrors: {pivot_expr, offset_type?, …} (relative_to)'),
    batch_key: Maybe(Type.Union([Blank, Path()], { errorMessage: 'must be a path such as .document_id' })),
    ...Retention,
  },
  { $id: 'BatchNode' },
);

const FREQUENCIES = ['daily', 'weekly_mo2fr', 'weekly', 'monthly'] as const;
/** A recurrence's day rule: `weekdays` (weekly) and `monthdays` (monthly) are checked by dayRuleErrors. */
const DayRule = (frequencies: readonly string[]) => ({
  frequency: OneOf(frequencies, `must be one of ${frequencies.join(', ')}`),
  weekdays: RuleChecked('dayRuleErrors: days among su..sa (weekly)'),
  monthdays: RuleChecked('dayRuleErrors: [{pos: ±1..31, day?}] (monthly)'),
});

/** A static digest's schedule, checked when `schedule_type` is static (digestErrors). */
export const DigestScheduleSchema = Type.Object(
  {
    ...DayRule(['minutely', 'hourly', ...FREQUENCIES]),
    interval: Type.Optional(Type.Integer({ minimum: 1, errorMessage: 'must be a positive integer' })),
    time: Type.Optional(Type.String({ format: 'clock', errorMessage: 'must be a time like 09:00' })),
    dtstart: RuleChecked('digestErrors: an ISO date-time'),
    ...TimeZoneChoice,
  },
  { $id: 'DigestSchedule', errorMessage: 'must be an object with frequency and time' },
);

export const DigestNodeSchema = Type.Object(
  {
    schedule_type: Maybe(OneOf(['static', 'dynamic'], 'must be static or dynamic')),
    schedule: RuleChecked('digestErrors: DigestSchedule (static)'),
    dynamic_schedule_expr: RuleChecked('digestErrors: a path (dynamic)'),
    trigger_min_count: Type.Optional(Type.Integer({ minimum: 1, errorMessage: 'must be a positive integer' })),
    ...Retention,
  },
  { $id: 'DigestNode' },
);

export const TimewindowNodeSchema = Type.Object(
  {
    windows: Type.Array(
      Type.Object(
        {
          ...DayRule(FREQUENCIES),
          stime: Type.String({ format: 'clock', errorMessage: 'must be a time like 08:00' }),
          etime: Type.String({ format: 'clock', errorMessage: 'must be a time like 17:00' }),
        },
        { errorMessage: 'must be an object' },
      ),
      { minItems: 1, errorMessage: 'must hold at least one window' },
    ),
    ...TimeZoneChoice,
  },
  { $id: 'TimewindowNode' },
);

export const BranchWaituntilNodeSchema = Type.Object(
  {
    // The future_event branch and the delay one, in either order: waitUntilErrors.
    branches: Type.Array(
      Type.Object({
        is_default: Type.Optional(Type.Unknown()),
        conditions: Type.Optional(Type.Unknown()),
        nodes: Type.Optional(Type.Unknown()),
      }),
      {
        minItems: 2,
        maxItems: 2,
        errorMessage: 'must hold two branches, a future_event one and a delay (default) one',
      },
    ),
  },
  { $id: 'BranchWaituntilNode' },
);

const ObjectSubscription = {
  object_type: NonBlank('must be a non-empty string'),
  object_id: NonBlank('must be a non-empty string'),
  is_object_id_dynamic: RuleChecked('none: true fills object_id as a template'),
  user_selection: UserSelectionList,
};

export const ObjectAddSubscriptionNodeSchema = Type.Object(
  {
    ...ObjectSubscription,
    create_object_if_missing: RuleChecked('none: true creates the object'),
    subscription_properties: RuleChecked('jsonnetErrors: a JSONNET string, or an object'),
  },
  { $id: 'ObjectAddSubscriptionNode' },
);

export const ObjectRemoveSubscriptionNodeSchema = Type.Object(ObjectSubscription, {
  $id: 'ObjectRemoveSubscriptionNode',
});

export const TransformNodeSchema = Type.Object(
  {
    variables: Type.Array(
      Type.Object(
        {
          key: Type.String({ minLength: 1, errorMessage: 'must be a non-empty string' }),
          value_lang: Type.Optional(OneOf(['jsonnet', 'handlebars'], 'must be jsonnet or handlebars')),
          value: Type.String({ minLength: 1, errorMessage: 'must be a non-empty string' }),
        },
        { errorMessage: 'must be an object' },
      ),
      { minItems: 1, errorMessage: 'must hold at least one variable' },
    ),
  },
  { $id: 'TransformNode' },
);

export const UserupdateNodeSchema = Type.Object(
  {
    user_selection: OneOf(['actor', 'recipient'], 'must be actor or recipient'),
    properties: RuleChecked('jsonnetErrors: a non-empty JSONNET string'),
  },
  { $id: 'UserupdateNode' },
);

const ListMembership = {
  list_id: NonBlank('must be a non-empty string'),
  is_list_id_dynamic: RuleChecked('listIdErrors: true fills list_id as a template'),
  list_name: Maybe(
    Type.String({ minLength: 1, maxLength: 256, errorMessage: 'must be a string of 1 to 256 characters' }),
  ),
  create_list_if_missing: RuleChecked('none: true creates the list'),
  user_selection: UserSelectionList,
};

export const ListAddUserNodeSchema = Type.Object(ListMembership, { $id: 'ListAddUserNode' });
export const ListRemoveUserNodeSchema = Type.Object(ListMembership, { $id: 'ListRemoveUserNode' });

export const InvokeworkflowNodeSchema = Type.Object(
  {
    workflow: Type.String({
      pattern: WORKFLOW_SLUG_PATTERN,
      errorMessage: 'must be a workflow slug (a-z, 0-9, - and _)',
    }),
    recipient_selection: RuleChecked('selectionErrors: recipient, actor or expression (required)'),
    recipient_expression: RuleChecked('selectionErrors: a JSONNET string (expression)'),
    actor_selection: RuleChecked('selectionErrors: recipient, actor or expression'),
    actor_expression: RuleChecked('selectionErrors: a JSONNET string (expression)'),
    data: RuleChecked('jsonnetErrors: a JSONNET string'),
    append_current_run_data: Maybe(Type.Boolean({ errorMessage: 'must be a boolean' })),
  },
  { $id: 'InvokeworkflowNode' },
);

/** The delivery nodes of one fixed channel set, in the message's channel names. */
export const DELIVERY_NODE_CHANNELS = {
  send_email: ['email'],
  send_sms: ['sms'],
  send_whatsapp: ['whatsapp'],
  /** Both push channels, each decided on its own (Android, iOS). */
  send_mobile_push: ['androidpush', 'iospush'],
  send_inbox: ['inbox'],
  send_webpush: ['webpush'],
  send_slack: ['slack'],
  send_ms_teams: ['ms_teams'],
} as const satisfies Record<string, readonly DeliveryChannel[]>;

export type FixedDeliveryNodeType = keyof typeof DELIVERY_NODE_CHANNELS;

/** Every node type and the schema of its config: adding a type starts here. */
export const NODE_SCHEMAS = {
  send_email: DeliveryNodeSchema,
  send_sms: DeliveryNodeSchema,
  send_whatsapp: DeliveryNodeSchema,
  send_mobile_push: DeliveryNodeSchema,
  send_inbox: DeliveryNodeSchema,
  send_webpush: DeliveryNodeSchema,
  send_slack: DeliveryNodeSchema,
  send_ms_teams: DeliveryNodeSchema,
  /** Its template on each of its channels (`channels`, else `channels_expr`). */
  send_multi_channel: SendMultiChannelNodeSchema,
  send_smart_channel_routing: SendSmartChannelRoutingNodeSchema,
  delay: DelayNodeSchema,
  branch: BranchNodeSchema,
  httpapi_webhook: HttpapiWebhookNodeSchema,
  batch: BatchNodeSchema,
  timewindow: TimewindowNodeSchema,
  digest: DigestNodeSchema,
  branch_waituntil: BranchWaituntilNodeSchema,
  httpapi_fetch: HttpapiFetchNodeSchema,
  objectoperation_addsubscription: ObjectAddSubscriptionNodeSchema,
  objectoperation_removesubscription: ObjectRemoveSubscriptionNodeSchema,
  transform: TransformNodeSchema,
  userupdate: UserupdateNodeSchema,
  subscriberlistoperation_adduser: ListAddUserNodeSchema,
  subscriberlistoperation_removeuser: ListRemoveUserNodeSchema,
  invokeworkflow: InvokeworkflowNodeSchema,
} as const satisfies Record<FixedDeliveryNodeType, typeof DeliveryNodeSchema> & Record<string, TSchema>;

export type NodeType = keyof typeof NODE_SCHEMAS;
export const NODE_TYPES = Object.keys(NODE_SCHEMAS) as NodeType[];

/** A node's config as its type's schema has it (the node's fields, src/domain/workflow-tree.ts `nodeConfig`). */
export type NodeConfig<T extends NodeType> = Static<(typeof NODE_SCHEMAS)[T]>;

export const isNodeType = (type: string): type is NodeType => Object.hasOwn(NODE_SCHEMAS, type);

/** The nodes that send a template: they name one (`template`), which must be committed (docs/configuration.md). */
export const isDeliveryNode = (type: string) =>
  type in DELIVERY_NODE_CHANNELS || type === 'send_multi_channel' || type === 'send_smart_channel_routing';
