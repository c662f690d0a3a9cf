import { Type } from '@sinclair/typebox';
import { Nullable, ref } from './common.js';

/** What users and objects share: the flat upsert body and the edit operations (docs/spec/compat.md, Users). */

const PropertyMap = Type.Record(Type.String(), Type.Unknown());
const strings = (description: string) =>
  Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 100 })], { description }));
const objects = (description: string) =>
  Type.Optional(Type.Union([PropertyMap, Type.Array(PropertyMap, { maxItems: 100 })], { description }));

export const EditOperationSchema = Type.Object(
  {
    $set: Type.Optional(PropertyMap),
    $set_once: Type.Optional(PropertyMap),
    $add: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'same as $increment' })),
    $increment: Type.Optional(Type.Record(Type.String(), Type.Number())),
    $append: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'a list property gains the value; a channel key ($email, …, with $id_provider for push) gains a channel entry',
      }),
    ),
    $remove: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'the reverse of $append' })),
    $unset: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.String()], {
        description: 'property names; a channel key clears the channel',
      }),
    ),
  },
  {
    $id: 'EditOperation',
    title: 'Edit operation',
    additionalProperties: false,
    minProperties: 1,
    description: 'Applied in order, keys of one operation in their order.',
  },
);

export const EditBodySchema = Type.Object({ operations: Type.Array(ref(EditOperationSchema), { maxItems: 100 }) });

const phone = 'E.164 phone number(s)';
export const EntityUpsertBodySchema = Type.Object(
  {
    $email: strings('email address(es)'),
    $sms: strings(phone),
    $whatsapp: strings(phone),
    $inbox: strings('inbox identifier(s)'),
    $androidpush: strings('push token(s)'),
    $iospush: strings('push token(s)'),
    $webpush: objects('push subscription(s) {endpoint, keys: {p256dh, auth}}'),
    $slack: objects('{email|user_id|channel_id, access_token} or {incoming_webhook: {url}}'),
    $ms_teams: objects('{tenant_id, service_url, conversation_id|user_id} or {incoming_webhook: {url}}'),
    $id_provider: Type.Optional(
      Nullable(Type.String({ description: 'provider of the push tokens in this body (fcm, apns, vapid, …)' })),
    ),
    $timezone: Type.Optional(Type.String({ description: 'IANA time zone name' })),
    $locale: Type.Optional(Type.String({ description: 'language or language_REGION' })),
    $preferred_language: Type.Optional(Type.String({ description: 'stored as $locale' })),
  },
  {
    additionalProperties: true,
    description: 'Channel keys add channel entries (existing ones are kept); every other key is set as a property.',
  },
);
