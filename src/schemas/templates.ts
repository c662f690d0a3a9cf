import { Type, type TSchema } from '@sinclair/typebox';
import { DELIVERY_CHANNELS, type DeliveryChannel } from './delivery-channels.js';
import { ActorSchema, Nullable, OffsetQuerySchema, ref, Timestamp, WorkspaceParamsSchema } from './common.js';
import { modeQuery } from './versioning.js';

export const TEMPLATE_SLUG_PATTERN = '^[a-z0-9_-]{1,255}$';
export const VARIANT_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

const Channel = Type.Unsafe<DeliveryChannel>(Type.String({ enum: [...DELIVERY_CHANNELS] }));

export const TemplateParamsSchema = Type.Composite([
  WorkspaceParamsSchema,
  Type.Object({ template_slug: Type.String({ minLength: 1, maxLength: 255, description: "the template's slug" }) }),
]);
export const TemplateChannelParamsSchema = Type.Composite([TemplateParamsSchema, Type.Object({ channel: Channel })]);
export const VariantParamsSchema = Type.Composite([
  TemplateChannelParamsSchema,
  Type.Object({ variant_id: Type.String({ pattern: VARIANT_ID_PATTERN, description: 'the variant identifier' }) }),
]);
const ApprovalChannel = Type.Unsafe<'sms' | 'whatsapp'>(
  Type.String({ enum: ['sms', 'whatsapp'], description: 'the channels whose variants need vendor approval' }),
);
export const ApprovalVariantParamsSchema = Type.Composite([
  TemplateParamsSchema,
  Type.Object({
    channel: ApprovalChannel,
    variant_id: Type.String({ pattern: VARIANT_ID_PATTERN, description: 'the variant identifier' }),
  }),
]);
export const LiveModeQuerySchema = Type.Object({
  mode: Type.Optional(
    Type.String({ enum: ['live'], default: 'live', description: 'approval is of the live version only' }),
  ),
});
export const DiscardVariantBodySchema = Type.Object({
  comment: Type.String({ minLength: 1, maxLength: 5000, description: 'why the variant is discarded' }),
});
export const VendorApprovalBodySchema = Type.Object({
  approval_status: Type.Unsafe<'pending' | 'sent_for_approval' | 'approved' | 'rejected'>(
    Type.String({ enum: ['pending', 'sent_for_approval', 'approved', 'rejected'] }),
  ),
  vendor_slug: Type.String({ minLength: 1, maxLength: 255, description: 'e.g. twilio-whatsapp' }),
  vendor_uid: Type.String({ minLength: 1, maxLength: 255, description: 'e.g. the WABA id' }),
  vendor_template_name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: 'required if approved' }),
  ),
  vendor_template_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'required if approved' })),
  vendor_locale_code: Type.Optional(Type.String({ maxLength: 35 })),
  vendor_template_category: Type.Optional(
    Type.Unsafe<string>(Type.String({ enum: ['UTILITY', 'MARKETING', 'AUTHENTICATION'] })),
  ),
  provider_template_id: Type.Optional(Type.String({ maxLength: 512 })),
  comment: Type.Optional(Type.String({ maxLength: 5000, description: 'required if rejected' })),
});

export const TemplateListQuerySchema = Type.Composite([
  OffsetQuerySchema,
  Type.Object({
    mode: modeQuery('draft'),
    q: Type.Optional(Type.String({ maxLength: 255, description: 'search by template name or slug' })),
  }),
]);
export const TemplateModeQuerySchema = Type.Object({ mode: modeQuery('draft') });
/** The variant list: every variant at once unless `limit` is given (the CLI pages by 50, with content). */
export const VariantListQuerySchema = Type.Object({
  mode: modeQuery('draft'),
  include_content: Type.Boolean({ default: false, description: "each variant's content and errors too" }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'absent: every variant' })),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
});
export const TemplateBodySchema = Type.Object({
  name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'a new template without one is named after its slug' }),
  ),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  tags: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }))),
  enabled_channels: Type.Optional(
    Nullable(Type.Array(Channel, { maxItems: DELIVERY_CHANNELS.length, uniqueItems: true })),
  ),
});

const ConditionSchema = Type.Object(
  {
    type: Type.String({ enum: ['expression_v1'] }),
    expression_v1: Type.Object({
      op: Type.String({ enum: ['AND'] }),
      args: Type.Array(
        Type.Object({
          op: Type.String({ enum: ['==', '!='] }),
          variable_ns: Type.Optional(Type.String({ maxLength: 64 })),
          variable: Type.String({ minLength: 1, maxLength: 255 }),
          value: Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]),
        }),
        { maxItems: 20 },
      ),
    }),
  },
  { description: 'holds when every comparison of the AND holds' },
);

export const VariantBodySchema = Type.Object({
  locale: Type.String({
    pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
    maxLength: 35,
    description: 'e.g. en, es, es-MX',
  }),
  tenant_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  conditions: Type.Optional(Nullable(Type.Array(ConditionSchema, { maxItems: 20 }))),
  content: Type.Record(Type.String(), Type.Unknown(), {
    description: 'per channel (docs/channels.md): email {subject, html, text}, sms/whatsapp/slack/ms_teams {text}, …',
  }),
  needs_vendor_approval: Type.Optional(Type.Boolean()),
  seq_no: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

export const CommitBodySchema = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

const ObjectRef = Nullable(
  Type.Object({ object_type: Type.String({ maxLength: 255 }), id: Type.String({ maxLength: 255 }) }),
);
export const MockDataBodySchema = Type.Object({
  payload: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  tenant_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  is_batch: Type.Optional(Type.Boolean()),
  batch_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  recipient_sub_type: Type.Optional(Type.String({ enum: ['user', 'object'] })),
  recipient_distinct_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  recipient_object: Type.Optional(ObjectRef),
  actor_sub_type: Type.Optional(Type.String({ enum: ['user', 'object'] })),
  actor_distinct_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  actor_object: Type.Optional(ObjectRef),
});

export const MockDataSchema = Type.Object(
  {
    data: Type.Object({
      payload: Type.Record(Type.String(), Type.Unknown()),
      tenant_id: Nullable(Type.String()),
      is_batch: Type.Boolean(),
      batch_count: Type.Integer(),
      recipient_sub_type: Type.String(),
      recipient_object: Nullable(Type.Object({ object_type: Type.String(), id: Type.String() })),
      recipient_distinct_id: Nullable(Type.String()),
      actor_sub_type: Type.String(),
      actor_object: Nullable(Type.Object({ object_type: Type.String(), id: Type.String() })),
      actor_distinct_id: Nullable(Type.String()),
    }),
    transformed_data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'what a template sees when rendered with this mock data',
    }),
  },
  { $id: 'TemplateMockData', title: 'Template mock data' },
);

export const TemplateChannelSummarySchema = Type.Object({
  channel: Type.String(),
  is_active: Type.Boolean({ description: 'the live version has variants on this channel' }),
  variants_count: Type.Integer(),
});

export const TemplateSchema = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    enabled_channels: Type.Array(Type.String()),
    status: Type.String({ enum: ['draft', 'active'], description: 'draft mode: draft; live mode: active' }),
    version_no: Nullable(Type.Integer({ description: 'the live version; null in draft mode' })),
    hash: Type.String({ description: 'sha-256 of the content: equal hashes, nothing to commit' }),
    commit_message: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    active_at: Nullable(Timestamp),
    last_triggered_at: Nullable(Timestamp),
    updated_by: ref(ActorSchema),
    channels: Type.Array(TemplateChannelSummarySchema),
  },
  { $id: 'Template', title: 'Template' },
);

export const TemplateVariantSchema = Type.Object(
  {
    channel: Type.String(),
    id: Type.String(),
    tenant_id: Nullable(Type.String()),
    locale: Type.String(),
    conditions: Type.Array(Type.Unknown()),
    hash: Type.String(),
    needs_vendor_approval: Type.Boolean(),
    sysgen_template_name: Nullable(Type.String()),
    approval_status: Type.String({ enum: ['auto_approved', 'pending', 'sent_for_approval', 'approved', 'rejected'] }),
    discard_comment: Nullable(Type.String()),
    approval_at: Nullable(Timestamp),
    has_error: Type.Boolean(),
    seq_no: Type.Integer(),
    action: Nullable(Type.String({ enum: ['Added', 'Updated', 'Unchanged'] })),
    created_at: Timestamp,
    content: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    vendor_approvals: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
  },
  { $id: 'TemplateVariant', title: 'Template variant' },
);

const Language = Type.Object({ name: Type.String(), slug: Type.String() });

export const BaseTemplateChannelSchema = Type.Object(
  {
    id: Type.String(),
    channel: Type.Object({ name: Type.String(), slug: Type.String(), is_template_approval_needed: Type.Boolean() }),
    is_active: Type.Boolean({ description: 'the live version has content for this channel' }),
    is_enabled: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
    disabled_languages: Type.Array(Type.String()),
    versions: Type.Array(
      Type.Object({
        id: Type.String(),
        templates: Type.Array(
          Type.Object({
            id: Type.String(),
            variant_id: Type.String(),
            tenant_id: Nullable(Type.String()),
            conditions: Type.Array(Type.Unknown()),
            language: Language,
            is_enabled: Type.Boolean(),
            approval_status: Type.String(),
            content: Type.Record(Type.String(), Type.Unknown()),
            created_at: Timestamp,
            updated_at: Timestamp,
            updated_by: ref(ActorSchema),
            approval_cycle: Type.Null(),
            is_approval_needed: Type.Boolean(),
            is_cloned_from_last_version: Type.Boolean(),
          }),
        ),
        status: Type.String(),
        version_tag: Type.String(),
        created_at: Timestamp,
        updated_at: Timestamp,
        updated_by: ref(ActorSchema),
        version_tag_user: Type.String(),
        published_languages: Type.Array(Type.String()),
        apparent_published_languages: Type.Array(Type.String()),
        system_approval_info: Type.Record(Type.String(), Type.Unknown()),
      }),
      { description: 'the live version only; empty in lists' },
    ),
  },
  { $id: 'BaseTemplateChannel', title: 'Template channel (base surface)' },
);

export const BaseTemplateSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    is_active: Type.Boolean({ description: 'true once a version is live' }),
    default_language: Language,
    created_at: Timestamp,
    updated_at: Timestamp,
    updated_by: ref(ActorSchema),
    last_triggered_at: Nullable(Timestamp),
    is_auto_translate_enabled: Type.Boolean(),
    enabled_languages: Type.Array(Type.String()),
    channels: Type.Array(ref(BaseTemplateChannelSchema)),
    tags: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  },
  { $id: 'BaseTemplate', title: 'Template (base surface)' },
);

export const BaseTemplateListQuerySchema = Type.Composite([
  OffsetQuerySchema,
  Type.Object({
    has_channels_any: Type.Optional(Type.String({ maxLength: 1000, description: 'comma-separated channels' })),
    has_tag_ids_any: Type.Optional(Type.String({ maxLength: 10_000, description: 'comma-separated tags' })),
    is_active: Type.Optional(Type.Boolean({ description: 'true: committed templates; false: never committed' })),
    is_archived: Type.Optional(Type.Boolean({ description: 'Herald archives nothing: true lists none' })),
  }),
]);
export const BaseTemplateParamsSchema = Type.Object({ template_slug: Type.String({ minLength: 1, maxLength: 255 }) });
export const BaseTemplateChannelParamsSchema = Type.Object({
  template_slug: Type.String({ minLength: 1, maxLength: 255 }),
  channel_slug: Channel,
});

/** `POST …/template/{slug}/preview/` (docs/runs.md, docs/spec/product.md §3). */
export const TemplatePreviewBodySchema = Type.Object({
  channel: Channel,
  mode: Type.Optional(Type.String({ enum: ['draft', 'live'], description: 'draft (the default) or live' })),
  locale: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
  tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  variant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  data: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: "the trigger's data; default the template's mock data payload",
    }),
  ),
  distinct_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'render for this stored user' })),
});

export const TemplatePreviewSchema = Type.Object(
  {
    channel: Type.String(),
    variant_id: Type.String(),
    locale: Type.String(),
    content: Type.Record(Type.String(), Type.Unknown(), { description: 'exactly what a delivery would carry' }),
  },
  { $id: 'TemplatePreview', title: 'Template preview' },
);

export const PreCommitCheckSchema = Type.Object(
  {
    is_new: Type.Boolean({ description: 'never committed' }),
    has_changes: Type.Boolean({ description: 'the draft differs from the live version (always true when new)' }),
    variants: Type.Array(
      Type.Object({
        channel: Type.String(),
        id: Type.String({ description: 'the variant id' }),
        has_diff: Type.Boolean({ description: 'new, or changed since the live version' }),
        errors: Type.Record(Type.String(), Type.Array(Type.String()), {
          description: 'why this variant cannot be committed, by field; empty when it can',
        }),
      }),
      { description: 'every variant a commit would take (those of enabled channels)' },
    ),
    errors: Type.Array(Type.String(), {
      description: '(ours) every reason a commit would refuse, as its 400 would list them; empty when it would pass',
    }),
  },
  { $id: 'TemplatePreCommitCheck', title: 'Template pre-commit check' },
);

const variantOrderChannels = <C extends TSchema>(channel: C) =>
  Type.Array(
    Type.Object({
      channel,
      tenants: Type.Array(
        Type.Object({
          tenant_id: Nullable(
            Type.String({ minLength: 1, maxLength: 255, description: 'null: variants without a tenant' }),
          ),
          variants: Type.Array(Type.String({ pattern: VARIANT_ID_PATTERN }), { maxItems: 1000 }),
        }),
        { maxItems: 1000 },
      ),
    }),
    { maxItems: DELIVERY_CHANNELS.length * 2 },
  );

export const VariantOrderSchema = Type.Object(
  { channels: variantOrderChannels(Type.String()) },
  {
    $id: 'TemplateVariantOrder',
    title: 'Template variant order',
    description: 'per channel and tenant, variant ids in the order ties are broken by (their seq_no)',
  },
);
export const VariantOrderBodySchema = Type.Object({ channels: variantOrderChannels(Channel) });
export const VariantOrderWriteQuerySchema = Type.Object({
  mode: Type.Optional(
    Type.String({
      enum: ['draft'],
      default: 'draft',
      description: 'the order is a draft change: commit makes it live',
    }),
  ),
});
