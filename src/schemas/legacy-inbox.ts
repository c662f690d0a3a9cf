import { Type } from '@sinclair/typebox';

/** Who may call the older inbox API (OpenAPI): the workspace key, with the subscriber id the inbox secret signs. */
export const LEGACY_INBOX_SECURITY = [{ InboxWorkspaceKey: [] }];

const Subscriber = {
  distinct_id: Type.String({ minLength: 1, maxLength: 512 }),
  subscriber_id: Type.String({ minLength: 1, maxLength: 512 }),
  tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
};

export const LegacyScopeQuerySchema = Type.Object(Subscriber);

export const LegacyListQuerySchema = Type.Object({
  ...Subscriber,
  page_no: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  before: Type.Optional(Type.Integer({ minimum: 0, description: 'epoch ms: only notifications created by then' })),
  store: Type.Optional(Type.String({ maxLength: 10000, description: 'JSON: {store_id, query}' })),
});

export const LegacyCountQuerySchema = Type.Object({
  ...Subscriber,
  stores: Type.Optional(Type.String({ maxLength: 100000, description: 'JSON: a list of {store_id, query}' })),
});

export const LegacyBodySchema = Type.Object({ ...Subscriber, time: Type.Optional(Type.Number()) });

export const LegacyActionBodySchema = Type.Object({
  ...Subscriber,
  action: Type.Union([Type.Literal('read'), Type.Literal('unread'), Type.Literal('archive')]),
});

/**
 * Where the older clients' click goes: their `collectorHost` set to `{herald}/collector/{distinct_id}/{subscriber_id}`
 * (the click's own body names no user, so the configured URL carries the same proof as their other calls).
 */
export const LegacyClickParamsSchema = Type.Object({
  distinct_id: Subscriber.distinct_id,
  subscriber_id: Subscriber.subscriber_id,
});

/** What js-inbox 2 posts to `{collectorHost}/event/` when a notification is clicked; other keys are ignored. */
export const LegacyClickBodySchema = Type.Object({
  event: Type.Literal('$notification_clicked'),
  env: Type.Optional(
    Type.String({ maxLength: 512, description: 'the workspace key (the Authorization header decides)' }),
  ),
  $insert_id: Type.Optional(Type.String({ maxLength: 128 })),
  $time: Type.Optional(Type.Number()),
  properties: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128, description: 'the n_id clicked' }) }),
});

export const LegacyNotificationParamsSchema = Type.Object({ n_id: Type.String({ minLength: 1, maxLength: 128 }) });

const Notification = Type.Object({}, { additionalProperties: true, description: 'a notification: n_id, seen_on, …' });

export const LegacyListSchema = Type.Object({
  results: Type.Array(Notification),
  meta: Type.Object({ current_page: Type.Integer(), total_pages: Type.Integer(), total_count: Type.Integer() }),
});

export const LegacyNotificationSchema = Type.Object({ data: Notification });

export const LegacyCountSchema = Type.Object(
  { ss_bell_count: Type.Integer() },
  { additionalProperties: Type.Integer(), description: "the badge, and each store's unread count by its id" },
);

export const LegacyDoneSchema = Type.Object({ success: Type.Boolean() });
