import { clockMinutes, isTimeZone, WEEKDAYS } from './calendar.js';
import { parseDuration } from './durations.js';
import { isHttpNodeValue, isTrivialJsonnet } from './jsonnet.js';
import { isExpression } from './paths.js';
import { DELIVERY_CHANNELS } from '../schemas/delivery-channels.js';
import { isReservedEventName } from '../schemas/events.js';
import { EVENT_NAME_MAX_LENGTH, LIST_ID_PATTERN, WORKFLOW_SLUG_PATTERN } from '../schemas/identifiers.js';
import { isObject } from './values.js';

/**
 * Commit-time rules of the time and flow nodes (issue #18): what each needs so the engine can run
 * it. Each message names the node's path (`here`). Pure.
 */

const CHANNELS: readonly string[] = DELIVERY_CHANNELS;
const LIST_ID = new RegExp(LIST_ID_PATTERN);
const WORKFLOW_SLUG = new RegExp(WORKFLOW_SLUG_PATTERN);

/** A JSONNET field the engine evaluates as the trivial JSONNET (docs/engine.md, "JSONNET"). */
const jsonnetErrors = (here: string, name: string, value: unknown, required: boolean) => {
  if (value === undefined || value === null || value === '')
    return required ? [`${here}: ${name} must be a non-empty JSONNET string`] : [];
  if (typeof value !== 'string') return [`${here}: ${name} must be a JSONNET string`];
  return isTrivialJsonnet(value)
    ? []
    : [`${here}: ${name} must be JSON or a path such as data.x or $recipient.x (full JSONNET is not supported)`];
};

/** An HTTP node's `url`, `headers`, `query_params` and `body` (docs/engine.md, "JSONNET"). */
export function httpNodeErrors(here: string, get: (name: string) => unknown): string[] {
  const errors: string[] = [];
  const beyond = (at: string) =>
    `${here}: ${at} must be JSON, a path such as data.x or $recipient.x, or plain text (full JSONNET is not supported)`;
  const url = get('url');
  if (typeof url !== 'string' || !/^https?:\/\//.test(url.trim().replace(/^"|"$/g, '')))
    errors.push(`${here}: url must be an http(s) URL`);
  else if (!isHttpNodeValue(url)) errors.push(beyond('url'));
  for (const name of ['headers', 'query_params']) {
    const pairs = get(name);
    if (!Array.isArray(pairs)) continue;
    pairs.forEach((pair, i) => {
      if (!isObject(pair)) return;
      for (const part of ['key', 'value'])
        if (typeof pair[part] === 'string' && !isHttpNodeValue(pair[part]))
          errors.push(beyond(`${name}[${i}].${part}`));
    });
  }
  const body = get('body');
  if (typeof body === 'string' && body !== '' && !isHttpNodeValue(body)) errors.push(beyond('body'));
  return errors;
}

const userSelectionErrors = (here: string, selection: unknown) =>
  !Array.isArray(selection) || selection.length === 0 || selection.some((s) => s !== 'actor' && s !== 'recipient')
    ? [`${here}: user_selection must list actor and/or recipient`]
    : [];

const SELECTIONS = ['recipient', 'actor', 'expression'];
function selectionErrors(here: string, name: string, selection: unknown, expression: unknown, required: boolean) {
  if (selection === undefined || selection === null) return required ? [`${here}: ${name}_selection is required`] : [];
  if (!SELECTIONS.includes(selection as string))
    return [`${here}: ${name}_selection must be recipient, actor or expression`];
  return selection === 'expression' ? jsonnetErrors(here, `${name}_expression`, expression, true) : [];
}

function smartRoutingErrors(here: string, get: (name: string) => unknown): string[] {
  const errors: string[] = [];
  const channels = get('channels');
  const expr = get('channels_expr');
  const listed = (value: unknown) => Array.isArray(value) && value.every((c) => CHANNELS.includes(c as string));
  if (channels !== undefined && channels !== null) {
    if (!listed(channels)) errors.push(`${here}: channels must list channels among ${CHANNELS.join(', ')}`);
  } else if (!(typeof expr === 'string' && isExpression(expr)))
    errors.push(`${here}: channels (a list) or channels_expr (a path such as .channels) is required`);
  const mandatory = get('mandatory_channels');
  if (mandatory !== undefined && mandatory !== null && !listed(mandatory))
    errors.push(`${here}: mandatory_channels must list channels among ${CHANNELS.join(', ')}`);
  const isEvent = get('success_is_event');
  const success = get('success');
  if (isEvent !== undefined && isEvent !== null && typeof isEvent !== 'boolean')
    errors.push(`${here}: success_is_event must be true or false`);
  else if (isEvent === true) {
    // The event as `POST /event/` stores it: an event under a reserved name could never arrive.
    if (
      typeof success !== 'string' ||
      success.length === 0 ||
      success.length > EVENT_NAME_MAX_LENGTH ||
      success.trim() !== success ||
      isReservedEventName(success)
    )
      errors.push(
        `${here}: success must name the success event when success_is_event is true (1 to ${EVENT_NAME_MAX_LENGTH} characters, no surrounding spaces, not starting with $ or ss_)`,
      );
  } else if (success !== undefined && success !== 'delivered' && success !== 'seen' && success !== 'interacted')
    errors.push(`${here}: success must be delivered, seen or interacted (or an event name with success_is_event)`);
  const ttl = get('ttl_value');
  const routed = Array.isArray(channels)
    ? channels.filter((c) => !(Array.isArray(mandatory) && mandatory.includes(c))).length
    : 2;
  if (ttl !== undefined && ttl !== null ? !((parseDuration(ttl) ?? 0) > 0) : routed > 1)
    errors.push(`${here}: ttl_value must be a duration like 30m or 1h (the time the channels are spread over)`);
  const basis = get('routing_basis');
  if (basis !== undefined && basis !== null && basis !== 'cost_low_to_high')
    errors.push(`${here}: routing_basis must be cost_low_to_high`);
  return errors;
}

function windowErrors(
  here: string,
  type: unknown,
  fixed: unknown,
  dynamic: unknown,
  relative: unknown,
  names: { fixed: string; dynamic: string },
): string[] {
  if (type === 'fixed')
    return parseDuration(fixed) === undefined
      ? [`${here}: ${names.fixed} must be a duration like 30s, 1h30m or 1d2h30m10s`]
      : [];
  if (type === 'dynamic')
    return typeof dynamic === 'string' && isExpression(dynamic)
      ? []
      : [`${here}: ${names.dynamic} must be a path such as .window or $recipient.window`];
  if (type === 'relative_to') {
    if (!isObject(relative) || typeof relative.pivot_expr !== 'string' || !isExpression(relative.pivot_expr))
      return [`${here}: relative_to.pivot_expr must be a path such as .start_time`];
    if (relative.offset_type !== undefined && relative.offset_type !== 'before' && relative.offset_type !== 'after')
      return [`${here}: relative_to.offset_type must be before or after`];
    return [];
  }
  return [`${here}: window_type must be fixed, dynamic or relative_to`];
}

const retainErrors = (here: string, count: unknown, order: unknown) => [
  ...(count !== undefined && !(Number.isInteger(count) && (count as number) >= 1 && (count as number) <= 100)
    ? [`${here}: retain_count must be an integer from 1 to 100`]
    : []),
  ...(order !== undefined && order !== 'first' && order !== 'last'
    ? [`${here}: retain_order must be first or last`]
    : []),
];

const FREQUENCIES = ['daily', 'weekly_mo2fr', 'weekly', 'monthly'];

/** A recurrence's day rule (timewindow windows, digest schedules), each message naming `at`. */
export function dayRuleErrors(at: string, rule: Record<string, unknown>, frequencies: string[]): string[] {
  const errors: string[] = [];
  if (!frequencies.includes(rule.frequency as string))
    errors.push(`${at}.frequency must be one of ${frequencies.join(', ')}`);
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

const zoneErrors = (here: string, selection: unknown, fixed: unknown) => [
  ...(selection !== undefined && selection !== 'fixed' && selection !== 'recipient'
    ? [`${here}: tz_selection must be fixed or recipient`]
    : []),
  ...(fixed !== undefined && fixed !== null && fixed !== '' && !isTimeZone(fixed)
    ? [`${here}: tz_fixed must be an IANA time zone such as Europe/Paris`]
    : []),
];

export function flowNodeErrors(type: string, here: string, get: (name: string) => unknown): string[] {
  if (type === 'batch') {
    const errors: string[] = [];
    const mode = get('mode') ?? 'accumulate_all';
    if (mode !== 'accumulate_all' && mode !== 'flush_leading_item')
      errors.push(`${here}: mode must be accumulate_all or flush_leading_item`);
    errors.push(
      ...windowErrors(
        here,
        get('window_type') ?? 'fixed',
        get('fixed_window'),
        get('dynamic_window_expr'),
        get('relative_to'),
        {
          fixed: 'fixed_window',
          dynamic: 'dynamic_window_expr',
        },
      ),
    );
    const key = get('batch_key');
    if (key !== undefined && key !== null && key !== '' && !(typeof key === 'string' && isExpression(key)))
      errors.push(`${here}: batch_key must be a path such as .document_id`);
    errors.push(...retainErrors(here, get('retain_count'), get('retain_order')));
    return errors;
  }
  if (type === 'digest') {
    const errors: string[] = [];
    const scheduleType = get('schedule_type') ?? 'static';
    if (scheduleType === 'static') {
      const schedule = get('schedule');
      if (!isObject(schedule)) errors.push(`${here}: schedule must be an object with frequency and time`);
      else {
        errors.push(...dayRuleErrors(`${here}: schedule`, schedule, ['minutely', 'hourly', ...FREQUENCIES]));
        if (
          schedule.interval !== undefined &&
          !(Number.isInteger(schedule.interval) && (schedule.interval as number) >= 1)
        )
          errors.push(`${here}: schedule.interval must be a positive integer`);
        if (schedule.time !== undefined && clockMinutes(schedule.time) === undefined)
          errors.push(`${here}: schedule.time must be a time like 09:00`);
        if (schedule.dtstart !== undefined && Number.isNaN(Date.parse(String(schedule.dtstart))))
          errors.push(`${here}: schedule.dtstart must be an ISO date-time`);
        errors.push(...zoneErrors(here, schedule.tz_selection, schedule.tz_fixed));
      }
    } else if (scheduleType === 'dynamic') {
      const expr = get('dynamic_schedule_expr');
      if (!(typeof expr === 'string' && isExpression(expr)))
        errors.push(`${here}: dynamic_schedule_expr must be a path such as .digest_schedule`);
    } else errors.push(`${here}: schedule_type must be static or dynamic`);
    const min = get('trigger_min_count');
    if (min !== undefined && !(Number.isInteger(min) && (min as number) >= 1))
      errors.push(`${here}: trigger_min_count must be a positive integer`);
    errors.push(...retainErrors(here, get('retain_count'), get('retain_order')));
    return errors;
  }
  if (type === 'branch_waituntil') {
    const branches = get('branches');
    if (!Array.isArray(branches) || branches.length !== 2 || !branches.every(isObject))
      return [`${here}: branches must hold two branches, a future_event one and a delay (default) one`];
    const conditions = (b: Record<string, unknown>) =>
      Array.isArray(b.conditions) ? b.conditions.filter(isObject) : [];
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
      errors.push(`${here}: the other branch must hold a delay condition (the timeout)`);
    else {
      const delay = conditions(branches[delayBranch]!).find((c) => c.type === 'delay')!;
      const p = isObject(delay.delay_properties) ? delay.delay_properties : {};
      const delayType = p.delay_type ?? 'fixed';
      if (delayType === 'fixed' || delayType === 'dynamic')
        errors.push(
          ...windowErrors(
            `${here}: branches[${delayBranch}] delay_properties`,
            delayType,
            p.value,
            p.value,
            undefined,
            {
              fixed: 'value',
              dynamic: 'value',
            },
          ),
        );
      else
        errors.push(
          ...windowErrors(
            `${here}: branches[${delayBranch}] delay_properties`,
            delayType,
            undefined,
            undefined,
            p.relative_to,
            {
              fixed: 'value',
              dynamic: 'value',
            },
          ),
        );
    }
    return errors;
  }
  if (type === 'httpapi_fetch') {
    const errors: string[] = [];
    const method = get('http_method') ?? 'GET';
    if (method !== 'GET') errors.push(`${here}: http_method must be GET`);
    // A fetch never sends a body: whatever it holds is not read.
    return [...errors, ...httpNodeErrors(here, (name) => (name === 'body' ? undefined : get(name)))];
  }
  if (type === 'objectoperation_addsubscription' || type === 'objectoperation_removesubscription') {
    const errors: string[] = [];
    for (const name of ['object_type', 'object_id']) {
      const value = get(name);
      if (typeof value !== 'string' || value.trim() === '') errors.push(`${here}: ${name} must be a non-empty string`);
    }
    const properties = get('subscription_properties');
    if (type === 'objectoperation_addsubscription' && typeof properties === 'string')
      errors.push(...jsonnetErrors(here, 'subscription_properties', properties, false));
    return [...errors, ...userSelectionErrors(here, get('user_selection'))];
  }
  if (type === 'transform') {
    const variables = get('variables');
    if (!Array.isArray(variables) || variables.length === 0)
      return [`${here}: variables must hold at least one variable`];
    const keys = new Set<string>();
    return variables.flatMap((v, i) => {
      const at = `${here}: variables[${i}]`;
      if (!isObject(v)) return [`${at} must be an object`];
      const errors: string[] = [];
      if (typeof v.key !== 'string' || v.key === '') errors.push(`${at}.key must be a non-empty string`);
      else if (keys.has(v.key)) errors.push(`${at}.key '${v.key}' is set twice`);
      else keys.add(v.key);
      if (v.value_lang !== undefined && v.value_lang !== 'jsonnet' && v.value_lang !== 'handlebars')
        errors.push(`${at}.value_lang must be jsonnet or handlebars`);
      if (typeof v.value !== 'string' || v.value === '') errors.push(`${at}.value must be a non-empty string`);
      else if (v.value_lang !== 'handlebars' && !isTrivialJsonnet(v.value))
        errors.push(
          `${at}.value must be JSON or a path such as data.x or $recipient.x (full JSONNET is not supported)`,
        );
      return errors;
    });
  }
  if (type === 'send_smart_channel_routing') return smartRoutingErrors(here, get);
  if (type === 'userupdate') {
    const selection = get('user_selection');
    return [
      ...(selection !== 'actor' && selection !== 'recipient'
        ? [`${here}: user_selection must be actor or recipient`]
        : []),
      ...jsonnetErrors(here, 'properties', get('properties'), true),
    ];
  }
  if (type === 'subscriberlistoperation_adduser' || type === 'subscriberlistoperation_removeuser') {
    const errors: string[] = [];
    const listId = get('list_id');
    const dynamic = get('is_list_id_dynamic') === true;
    if (typeof listId !== 'string' || listId.trim() === '') errors.push(`${here}: list_id must be a non-empty string`);
    else if (!dynamic && !LIST_ID.test(listId))
      errors.push(`${here}: list_id must have 1 to 128 characters without spaces or slashes`);
    const name = get('list_name');
    if (name !== undefined && name !== null && !(typeof name === 'string' && name.length >= 1 && name.length <= 256))
      errors.push(`${here}: list_name must be a string of 1 to 256 characters`);
    return [...errors, ...userSelectionErrors(here, get('user_selection'))];
  }
  if (type === 'invokeworkflow') {
    const workflow = get('workflow');
    const append = get('append_current_run_data');
    return [
      ...(typeof workflow === 'string' && WORKFLOW_SLUG.test(workflow)
        ? []
        : [`${here}: workflow must be a workflow slug (a-z, 0-9, - and _)`]),
      ...selectionErrors(here, 'recipient', get('recipient_selection'), get('recipient_expression'), true),
      ...selectionErrors(here, 'actor', get('actor_selection'), get('actor_expression'), false),
      ...jsonnetErrors(here, 'data', get('data'), false),
      ...(append !== undefined && append !== null && typeof append !== 'boolean'
        ? [`${here}: append_current_run_data must be a boolean`]
        : []),
    ];
  }
  if (type === 'timewindow') {
    const windows = get('windows');
    if (!Array.isArray(windows) || windows.length === 0) return [`${here}: windows must hold at least one window`];
    const errors = windows.flatMap((w, i) => {
      const at = `${here}: windows[${i}]`;
      if (!isObject(w)) return [`${at} must be an object`];
      return [
        ...dayRuleErrors(at, w, FREQUENCIES),
        ...(clockMinutes(w.stime) === undefined ? [`${at}.stime must be a time like 08:00`] : []),
        ...(clockMinutes(w.etime) === undefined ? [`${at}.etime must be a time like 17:00`] : []),
      ];
    });
    return [...errors, ...zoneErrors(here, get('tz_selection'), get('tz_fixed'))];
  }
  return [];
}

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
