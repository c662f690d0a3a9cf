import { WEEKDAYS } from './calendar.js';
import { parseDuration } from './durations.js';
import { isHttpNodeValue, isTrivialJsonnet } from './jsonnet.js';
import { isExpression } from './paths.js';
import { isReservedEventName } from '../schemas/events.js';
import { EVENT_NAME_MAX_LENGTH, LIST_ID_PATTERN } from '../schemas/identifiers.js';
import { DigestScheduleSchema, NODE_SCHEMAS, type NodeType } from '../schemas/workflow-nodes.js';
import { isHttpUrl, schemaErrors } from './node-schemas.js';
import { isObject } from './values.js';

/**
 * The commit-time rules of the node types that a schema cannot say (issue #18, #28): rules across
 * fields, and checks with more than one refusal. Each message names the node's path (`here`). Pure.
 */

/** A node's fields, as its schema has not vouched for them yet. */
type NodeFields = Record<string, unknown>;

const LIST_ID = new RegExp(LIST_ID_PATTERN);
const WINDOW_TYPES: readonly unknown[] = ['fixed', 'dynamic', 'relative_to'];
const isPath = (value: unknown) => typeof value === 'string' && isExpression(value);

/** A JSONNET field the engine evaluates as the trivial JSONNET (docs/engine.md, "JSONNET"). */
const jsonnetErrors = (here: string, name: string, value: unknown, required: boolean) => {
  if (value === undefined || value === null || value === '')
    return required ? [`${here}: ${name} must be a non-empty JSONNET string`] : [];
  if (typeof value !== 'string') return [`${here}: ${name} must be a JSONNET string`];
  return isTrivialJsonnet(value)
    ? []
    : [`${here}: ${name} must be JSON or a path such as data.x or $recipient.x (full JSONNET is not supported)`];
};

/**
 * What an HTTP node sends beyond its URL's scheme (the schema's): `url`, `headers`, `query_params`
 * and `body` must be JSON, a path or plain text (docs/engine.md, "JSONNET").
 */
function httpValueErrors(here: string, node: NodeFields): string[] {
  const beyond = (at: string) =>
    `${here}: ${at} must be JSON, a path such as data.x or $recipient.x, or plain text (full JSONNET is not supported)`;
  const errors: string[] = [];
  if (isHttpUrl(node.url) && !isHttpNodeValue(node.url)) errors.push(beyond('url'));
  for (const name of ['headers', 'query_params']) {
    const pairs = node[name];
    if (!Array.isArray(pairs)) continue;
    pairs.forEach((pair, i) => {
      if (!isObject(pair)) return;
      for (const part of ['key', 'value'])
        if (typeof pair[part] === 'string' && !isHttpNodeValue(pair[part]))
          errors.push(beyond(`${name}[${i}].${part}`));
    });
  }
  const body = node.body;
  if (typeof body === 'string' && body !== '' && !isHttpNodeValue(body)) errors.push(beyond('body'));
  return errors;
}

const SELECTIONS: readonly unknown[] = ['recipient', 'actor', 'expression'];
function selectionErrors(here: string, name: string, selection: unknown, expression: unknown, required: boolean) {
  if (selection === undefined || selection === null) return required ? [`${here}: ${name}_selection is required`] : [];
  if (!SELECTIONS.includes(selection)) return [`${here}: ${name}_selection must be recipient, actor or expression`];
  return selection === 'expression' ? jsonnetErrors(here, `${name}_expression`, expression, true) : [];
}

/** `send_multi_channel`: its `channels_expr` is read only when it lists no `channels`. */
function multiChannelErrors(here: string, node: NodeFields): string[] {
  const { channels, channels_expr: expr } = node;
  return (channels === undefined || channels === null) && expr !== undefined && !isPath(expr)
    ? [`${here}: channels_expr must be a path such as .channels or $recipient.channels`]
    : [];
}

/** What counts as the smart routing's success: a message status, or an event `POST /event/` could store. */
function successErrors(here: string, isEvent: unknown, success: unknown): string[] {
  // A success_is_event that is no boolean is the schema's to report.
  if (isEvent !== undefined && isEvent !== null && typeof isEvent !== 'boolean') return [];
  if (isEvent === true)
    // The event as `POST /event/` stores it: an event under a reserved name could never arrive.
    return typeof success !== 'string' ||
      success.length === 0 ||
      success.length > EVENT_NAME_MAX_LENGTH ||
      success.trim() !== success ||
      isReservedEventName(success)
      ? [
          `${here}: success must name the success event when success_is_event is true (1 to ${EVENT_NAME_MAX_LENGTH} characters, no surrounding spaces, not starting with $ or ss_)`,
        ]
      : [];
  return success !== undefined && success !== 'delivered' && success !== 'seen' && success !== 'interacted'
    ? [`${here}: success must be delivered, seen or interacted (or an event name with success_is_event)`]
    : [];
}

/**
 * `send_smart_channel_routing`: `channels` or `channels_expr`, its success, and a `ttl_value` to
 * spread the channels over whenever more than one channel is routed (not mandatory).
 */
function smartRoutingErrors(here: string, node: NodeFields): string[] {
  const { channels, mandatory_channels: mandatory, ttl_value: ttl } = node;
  const errors: string[] = [];
  if ((channels === undefined || channels === null) && !isPath(node.channels_expr))
    errors.push(`${here}: channels (a list) or channels_expr (a path such as .channels) is required`);
  errors.push(...successErrors(here, node.success_is_event, node.success));
  const routed = Array.isArray(channels)
    ? channels.filter((c) => !(Array.isArray(mandatory) && mandatory.includes(c))).length
    : 2;
  // A ttl_value that is set is the schema's to check.
  if ((ttl === undefined || ttl === null) && routed > 1)
    errors.push(`${here}: ttl_value must be a duration like 30m or 1h (the time the channels are spread over)`);
  return errors;
}

/** A time relative to a path's value (`relative_to`), as delays, batch windows and wait timeouts take it. */
function relativeErrors(here: string, relative: unknown): string[] {
  if (!isObject(relative) || !isPath(relative.pivot_expr))
    return [`${here}: relative_to.pivot_expr must be a path such as .start_time`];
  if (relative.offset_type !== undefined && relative.offset_type !== 'before' && relative.offset_type !== 'after')
    return [`${here}: relative_to.offset_type must be before or after`];
  return [];
}

/** The end of a window of the given type (`window_type` itself is the schema's to check). */
function windowErrors(
  here: string,
  type: unknown,
  fields: { fixed: unknown; dynamic: unknown; relative: unknown },
  names: { fixed: string; dynamic: string },
): string[] {
  if (type === 'fixed')
    return parseDuration(fields.fixed) === undefined
      ? [`${here}: ${names.fixed} must be a duration like 30s, 1h30m or 1d2h30m10s`]
      : [];
  if (type === 'dynamic')
    return isPath(fields.dynamic)
      ? []
      : [`${here}: ${names.dynamic} must be a path such as .window or $recipient.window`];
  if (type === 'relative_to') return relativeErrors(here, fields.relative);
  return [];
}

/** `delay`: its `duration` by its `delay_type`. */
function delayErrors(here: string, node: NodeFields): string[] {
  const delayType = node.delay_type ?? 'fixed';
  if (delayType === 'fixed')
    return parseDuration(node.duration) === undefined
      ? [`${here}: duration must be a duration like 30s, 1h30m or 1d2h30m10s`]
      : [];
  if (delayType === 'dynamic')
    return isPath(node.duration) ? [] : [`${here}: a dynamic duration must be a path such as .wait or $recipient.wait`];
  return delayType === 'relative_to' ? relativeErrors(here, node.relative_to) : [];
}

const batchErrors = (here: string, node: NodeFields) =>
  windowErrors(
    here,
    node.window_type ?? 'fixed',
    { fixed: node.fixed_window, dynamic: node.dynamic_window_expr, relative: node.relative_to },
    { fixed: 'fixed_window', dynamic: 'dynamic_window_expr' },
  );

/** A recurrence's days (timewindow windows, digest schedules): `frequency` itself is the schema's to check. */
function dayRuleErrors(at: string, rule: Record<string, unknown>): string[] {
  const errors: string[] = [];
  if (rule.frequency === 'weekly') {
    const days = rule.weekdays;
    if (!Array.isArray(days) || days.length === 0 || days.some((d) => !(WEEKDAYS as readonly unknown[]).includes(d)))
      errors.push(`${at}.weekdays must list days among ${WEEKDAYS.join(', ')}`);
  }
  if (rule.frequency === 'monthly') {
    const days = rule.monthdays;
    const valid = (m: unknown) =>
      isObject(m) &&
      Number.isInteger(m.pos) &&
      m.pos !== 0 &&
      Math.abs(m.pos as number) <= 31 &&
      (m.day === undefined || m.day === null || (WEEKDAYS as readonly unknown[]).includes(m.day));
    if (!Array.isArray(days) || days.length === 0 || !days.every(valid))
      errors.push(`${at}.monthdays must list {pos: ±1..31, day?: su..sa}`);
  }
  return errors;
}

/** `digest`: a static schedule (its own schema) or a path to one. */
function digestErrors(here: string, node: NodeFields): string[] {
  const scheduleType = node.schedule_type ?? 'static';
  if (scheduleType === 'dynamic')
    return isPath(node.dynamic_schedule_expr)
      ? []
      : [`${here}: dynamic_schedule_expr must be a path such as .digest_schedule`];
  if (scheduleType !== 'static') return [];
  const schedule = node.schedule;
  const errors = schemaErrors(DigestScheduleSchema, schedule, here, 'schedule');
  if (!isObject(schedule)) return errors;
  errors.push(...dayRuleErrors(`${here}: schedule`, schedule));
  if (schedule.dtstart !== undefined && Number.isNaN(Date.parse(String(schedule.dtstart))))
    errors.push(`${here}: schedule.dtstart must be an ISO date-time`);
  return errors;
}

const timewindowErrors = (here: string, node: NodeFields) =>
  Array.isArray(node.windows)
    ? node.windows.flatMap((w, i) => (isObject(w) ? dayRuleErrors(`${here}: windows[${i}]`, w) : []))
    : [];

/** `branch_waituntil`: one branch waits for a named event, the other holds the timeout (a delay). */
function waitUntilErrors(here: string, node: NodeFields): string[] {
  const branches = node.branches;
  // The schema's to report: no list of two branch objects.
  if (!Array.isArray(branches) || branches.length !== 2 || !branches.every(isObject)) return [];
  const conditions = (b: Record<string, unknown>) => (Array.isArray(b.conditions) ? b.conditions.filter(isObject) : []);
  const eventBranch = branches.findIndex((b) => conditions(b).some((c) => c.type === 'future_event'));
  const delayBranch = branches.findIndex((b) => conditions(b).some((c) => c.type === 'delay'));
  const errors: string[] = [];
  if (eventBranch < 0) errors.push(`${here}: one branch must wait for a future_event with an event_name`);
  else {
    const event = conditions(branches[eventBranch]!).find((c) => c.type === 'future_event')!;
    if (typeof event.event_name !== 'string' || event.event_name === '' || event.event_name.length > 255)
      errors.push(`${here}: branches[${eventBranch}] future_event needs an event_name (1 to 255 characters)`);
    if (event.event_conditions !== undefined && !Array.isArray(event.event_conditions))
      errors.push(`${here}: branches[${eventBranch}] event_conditions must be an array`);
  }
  if (delayBranch < 0 || delayBranch === eventBranch)
    return [...errors, `${here}: the other branch must hold a delay condition (the timeout)`];
  const delay = conditions(branches[delayBranch]!).find((c) => c.type === 'delay')!;
  const p = isObject(delay.delay_properties) ? delay.delay_properties : {};
  const delayType = p.delay_type ?? 'fixed';
  const at = `${here}: branches[${delayBranch}] delay_properties`;
  const window = windowErrors(
    at,
    delayType,
    { fixed: p.value, dynamic: p.value, relative: p.relative_to },
    { fixed: 'value', dynamic: 'value' },
  );
  // Here no schema names the delay's type: one that is none of the three is this rule's to report.
  return [
    ...errors,
    ...(WINDOW_TYPES.includes(delayType) ? window : [`${at}: window_type must be fixed, dynamic or relative_to`]),
  ];
}

/** `httpapi_fetch`: a fetch never sends a body, so whatever it holds is not read. */
const fetchErrors = (here: string, node: NodeFields) => httpValueErrors(here, { ...node, body: undefined });

/** `objectoperation_addsubscription`: its properties, when a JSONNET string. */
const addSubscriptionErrors = (here: string, node: NodeFields) =>
  typeof node.subscription_properties === 'string'
    ? jsonnetErrors(here, 'subscription_properties', node.subscription_properties, false)
    : [];

/** `transform`: a key set once, and a JSONNET value the engine can evaluate. */
function transformErrors(here: string, node: NodeFields): string[] {
  if (!Array.isArray(node.variables)) return [];
  const keys = new Set<string>();
  return node.variables.flatMap((v, i) => {
    if (!isObject(v)) return [];
    const at = `${here}: variables[${i}]`;
    const errors: string[] = [];
    if (typeof v.key === 'string' && v.key !== '') {
      if (keys.has(v.key)) errors.push(`${at}.key '${v.key}' is set twice`);
      keys.add(v.key);
    }
    if (typeof v.value === 'string' && v.value !== '' && v.value_lang !== 'handlebars' && !isTrivialJsonnet(v.value))
      errors.push(`${at}.value must be JSON or a path such as data.x or $recipient.x (full JSONNET is not supported)`);
    return errors;
  });
}

const userupdateErrors = (here: string, node: NodeFields) => jsonnetErrors(here, 'properties', node.properties, true);

/** A list's id must be a list id unless it is a template filled at run time (`is_list_id_dynamic`). */
const listIdErrors = (here: string, node: NodeFields) =>
  typeof node.list_id === 'string' &&
  node.list_id.trim() !== '' &&
  node.is_list_id_dynamic !== true &&
  !LIST_ID.test(node.list_id)
    ? [`${here}: list_id must have 1 to 128 characters without spaces or slashes`]
    : [];

const invokeworkflowErrors = (here: string, node: NodeFields) => [
  ...selectionErrors(here, 'recipient', node.recipient_selection, node.recipient_expression, true),
  ...selectionErrors(here, 'actor', node.actor_selection, node.actor_expression, false),
  ...jsonnetErrors(here, 'data', node.data, false),
];

/**
 * What each node type needs beyond its schema (src/schemas/workflow-nodes.ts): the rules across
 * fields, and the checks with more than one refusal. Each message names the node's path (`here`).
 */
export const NODE_RULES: { readonly [T in NodeType]?: (here: string, node: NodeFields) => string[] } = {
  send_multi_channel: multiChannelErrors,
  send_smart_channel_routing: smartRoutingErrors,
  delay: delayErrors,
  httpapi_webhook: httpValueErrors,
  batch: batchErrors,
  timewindow: timewindowErrors,
  digest: digestErrors,
  branch_waituntil: waitUntilErrors,
  httpapi_fetch: fetchErrors,
  objectoperation_addsubscription: addSubscriptionErrors,
  transform: transformErrors,
  userupdate: userupdateErrors,
  subscriberlistoperation_adduser: listIdErrors,
  subscriberlistoperation_removeuser: listIdErrors,
  invokeworkflow: invokeworkflowErrors,
};

/** The workflow's `ratelimit {count, sliding_window}`, read from the tree beside its conditions (ours). */
export function rateLimitErrors(tree: Record<string, unknown>): string[] {
  const limit = tree.ratelimit;
  if (limit === undefined || limit === null) return [];
  if (!isObject(limit)) return ['tree.ratelimit must be an object with count and sliding_window'];
  return [
    ...(Number.isInteger(limit.count) && (limit.count as number) >= 1
      ? []
      : ['tree.ratelimit.count must be a positive integer']),
    ...((parseDuration(limit.sliding_window) ?? 0) > 0
      ? []
      : ['tree.ratelimit.sliding_window must be a duration like 1h or 1d']),
  ];
}

/** Why the engine could not run this node of a known type: its schema's refusals, then its rules'. */
export const nodeConfigErrors = (type: NodeType, here: string, node: NodeFields): string[] => [
  ...schemaErrors(NODE_SCHEMAS[type], node, here),
  ...(NODE_RULES[type]?.(here, node) ?? []),
];
