import { DEFAULT_LOCALE } from '../domain/templates.js';
import { APPROVAL_CHANNELS, needsApproval } from '../domain/template-approvals.js';
import type { TemplateRow, TemplateVersionRow } from '../repositories/templates.js';
import { iso, isoOrNull } from '../schemas/common.js';
import type { VariantRecord } from '../domain/template-views.js';

/**
 * The base surface's template shapes (the hosted platform's v1 `/v1/template/…`): built from the
 * live version; a template never committed shows its draft metadata, `is_active: false` and no versions.
 */

const CHANNEL_NAMES: Record<string, string> = {
  email: 'Email',
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  inbox: 'In-App Inbox',
  androidpush: 'Android Push',
  iospush: 'iOS Push',
  webpush: 'Web Push',
  slack: 'Slack',
  ms_teams: 'MS Teams',
};
const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
const language = (slug: string) => ({ name: languageNames.of(slug) ?? slug, slug });

function templateEntry(variant: VariantRecord, live: TemplateVersionRow) {
  return {
    id: `${variant.channel}:${variant.variant_id}`,
    variant_id: variant.variant_id,
    tenant_id: variant.tenant_id,
    conditions: variant.conditions,
    language: language(variant.locale),
    is_enabled: true,
    approval_status: needsApproval(variant) ? (variant.approval?.status ?? 'pending') : 'auto_approved',
    content: variant.content,
    created_at: iso(variant.created_at),
    updated_at: iso(live.committed_at),
    updated_by: live.committed_by,
    approval_cycle: null,
    is_approval_needed: variant.needs_vendor_approval,
    is_cloned_from_last_version: false,
  };
}

export function presentBaseChannel(
  template: TemplateRow,
  channel: string,
  live: TemplateVersionRow | undefined,
  withVersions: boolean,
) {
  const variants = (live?.variants ?? []).filter((variant) => variant.channel === channel);
  const locales = [...new Set(variants.map((variant) => variant.locale))];
  return {
    id: `${template.slug}:${channel}`,
    channel: {
      name: CHANNEL_NAMES[channel] ?? channel,
      slug: channel,
      is_template_approval_needed: APPROVAL_CHANNELS.includes(channel),
    },
    is_active: variants.length > 0,
    is_enabled: (live?.enabled_channels ?? template.enabled_channels).includes(channel),
    created_at: iso(template.created_at),
    updated_at: iso(live?.committed_at ?? template.updated_at),
    disabled_languages: [],
    versions:
      withVersions && live && variants.length > 0
        ? [
            {
              id: `${template.slug}:${live.version_no}`,
              templates: variants.map((variant) => templateEntry(variant, live)),
              status: 'active',
              version_tag: String(live.version_no),
              created_at: iso(live.committed_at),
              updated_at: iso(live.committed_at),
              updated_by: live.committed_by,
              version_tag_user: `v${live.version_no}`,
              published_languages: locales,
              apparent_published_languages: locales,
              system_approval_info: {},
            },
          ]
        : [],
  };
}

export function presentBaseTemplate(template: TemplateRow, live: TemplateVersionRow | undefined) {
  const channels = live?.enabled_channels ?? template.enabled_channels;
  return {
    id: String(template.id),
    name: live?.name ?? template.name,
    slug: template.slug,
    description: live ? live.description : template.description,
    is_active: live !== undefined,
    default_language: language(DEFAULT_LOCALE),
    created_at: iso(template.created_at),
    updated_at: iso(live?.committed_at ?? template.updated_at),
    updated_by: live ? live.committed_by : template.updated_by,
    last_triggered_at: isoOrNull(template.last_triggered_at),
    is_auto_translate_enabled: false,
    enabled_languages: [...new Set((live?.variants ?? []).map((variant) => variant.locale))].sort(),
    channels: channels.map((channel) => presentBaseChannel(template, channel, live, false)),
    tags: (live?.tags ?? template.tags).map((tag) => ({ id: tag, name: tag })),
  };
}
