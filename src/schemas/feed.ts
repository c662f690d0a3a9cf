import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

/** The in-app feed's wire contract (docs/spec/engine.md §8), after the official web SDK. */

const Ms = Type.Integer({ description: 'epoch milliseconds' });

export const NotificationSchema = Type.Object(
  {
    n_id: Type.String({ description: 'the message_id' }),
    n_category: Type.String(),
    created_on: Ms,
    seen_on: Nullable(Ms),
    read_on: Nullable(Ms),
    interacted_on: Nullable(Ms),
    archived: Type.Boolean(),
    tags: Type.Array(Type.String()),
    expiry: Nullable(Ms),
    is_expiry_visible: Type.Boolean(),
    is_pinned: Type.Boolean(),
    can_user_unpin: Type.Boolean(),
    message: Type.Object({
      schema: Type.String(),
      header: Nullable(Type.String()),
      text: Type.String(),
      url: Nullable(Type.String()),
      avatar: Nullable(Type.Object({ avatar_url: Type.String(), action_url: Type.Optional(Type.String()) })),
      subtext: Nullable(Type.Object({ text: Type.String(), action_url: Type.Optional(Type.String()) })),
      actions: Type.Array(
        Type.Object({ name: Type.String(), url: Type.String(), open_in_new_tab: Type.Optional(Type.Boolean()) }),
      ),
      extra_data: Nullable(Type.String({ description: 'JSON text' })),
    }),
  },
  { $id: 'Notification', title: 'Notification' },
);

const Scope = {
  distinct_id: Type.Optional(Type.String({ description: "the token's subscriber (refused when it differs)" })),
  tenant_id: Type.Optional(
    Type.String({ description: "default 'default'; a token scoped to a tenant refuses others" }),
  ),
};

export const FeedScopeQuerySchema = Type.Object(Scope);

export const FeedListQuerySchema = Type.Object({
  ...Scope,
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  store: Type.Optional(
    Type.String({ description: 'JSON: {store_id, query: {read, archived, tags: {or}, categories: {or}}}' }),
  ),
  search_after: Type.Optional(
    Type.String({ description: 'JSON: [is_pinned, created_on] of the last one shown, or []' }),
  ),
});

export const FeedCountQuerySchema = Type.Object({
  ...Scope,
  stores: Type.Optional(Type.String({ description: 'JSON: a list of stores (as in `store`)' })),
});

export const FeedListSchema = Type.Object({
  results: Type.Array(Type.Ref('Notification')),
  meta: Type.Object({ total_count: Type.Integer(), has_more: Type.Boolean() }),
});

export const FeedCountSchema = Type.Record(Type.String(), Type.Integer(), {
  description: '`badge` (unseen) and one unread count per store_id asked for',
});

export const NotificationParamsSchema = Type.Object({ n_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const NotificationActionParamsSchema = Type.Object({
  n_id: Type.String({ minLength: 1, maxLength: 64 }),
  action: Type.Union([
    Type.Literal('seen'),
    Type.Literal('read'),
    Type.Literal('unread'),
    Type.Literal('interacted'),
    Type.Literal('archive'),
  ]),
});

export const BulkSeenBodySchema = Type.Object(
  { notification_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 1000 }) },
  { additionalProperties: false },
);

export const FeedUpdatedSchema = Type.Object({
  success: Type.Boolean(),
  updated: Type.Integer({ description: 'how many notifications changed' }),
});

export const FeedEventAcceptedSchema = Type.Object({ success: Type.Boolean() });

/** The web SDK sends `{}` with every PATCH; an empty object or no body at all is accepted. */
export const EmptyBodySchema = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()]);

/** Who may call the feed (OpenAPI): the workspace public key and a user token, together. */
export const INBOX_SECURITY = [{ InboxPublicKey: [], InboxUserToken: [] }];
