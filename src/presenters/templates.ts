import { createHash } from 'node:crypto';
import type { DeliveryChannel } from '../schemas/delivery-channels.js';
import type { ActorColumn } from '../db/types.js';
import { contentErrors } from '../domain/templates.js';
import { needsApproval, type VariantApproval } from '../domain/template-approvals.js';
import type { TemplateRow, TemplateVersionRow } from '../repositories/templates.js';
import { iso, isoOrNull } from '../schemas/common.js';

/** A variant as both the draft table and a version's snapshot hold it (snapshot dates are strings). */
export interface VariantRecord {
  channel: string;
  variant_id: string;
  locale: string;
  tenant_id: string | null;
  conditions: unknown[];
  content: Record<string, unknown>;
  seq_no: number;
  needs_vendor_approval: boolean;
  created_at: Date | string;
  /** A committed variant's vendor approval, when it has a record (live versions only). */
  approval?: VariantApproval;
}

export interface TemplateView {
  template: TemplateRow;
  mode: 'draft' | 'live';
  name: string;
  description: string | null;
  tags: string[];
  enabled_channels: string[];
  variants: VariantRecord[];
  liveVariants: VariantRecord[];
  version_no: number | null;
  commit_message: string | null;
  updated_at: Date | string;
  updated_by: ActorColumn | null;
  active_at: Date | string | null;
}

const sortedJson = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedJson)
    : typeof value === 'object' && value !== null
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sortedJson((value as Record<string, unknown>)[key])]),
        )
      : value;

const sha256 = (value: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(sortedJson(value)))
    .digest('hex');

const variantContent = (variant: VariantRecord) => ({
  channel: variant.channel,
  variant_id: variant.variant_id,
  locale: variant.locale,
  tenant_id: variant.tenant_id,
  conditions: variant.conditions,
  content: variant.content,
  seq_no: variant.seq_no,
  needs_vendor_approval: variant.needs_vendor_approval,
});

export const variantHash = (variant: VariantRecord) => sha256(variantContent(variant));

/** The variants a commit would snapshot: those of enabled channels. */
export const committable = (enabledChannels: string[], variants: VariantRecord[]) =>
  variants.filter((variant) => enabledChannels.includes(variant.channel));

/** What a commit snapshots, hashed: equal hashes mean there is nothing to commit. */
export function templateHash(content: {
  name: string;
  description: string | null;
  tags: string[];
  enabled_channels: string[];
  variants: VariantRecord[];
}) {
  return sha256({
    name: content.name,
    description: content.description,
    tags: content.tags,
    enabled_channels: content.enabled_channels,
    variants: committable(content.enabled_channels, content.variants)
      .map(variantContent)
      .sort((a, b) => `${a.channel}/${a.variant_id}`.localeCompare(`${b.channel}/${b.variant_id}`)),
  });
}

export function draftView(template: TemplateRow, draft: VariantRecord[], live: TemplateVersionRow | undefined) {
  return {
    template,
    mode: 'draft',
    name: template.name,
    description: template.description,
    tags: template.tags,
    enabled_channels: template.enabled_channels,
    variants: draft,
    liveVariants: live?.variants ?? [],
    version_no: null,
    commit_message: null,
    updated_at: template.updated_at,
    updated_by: template.updated_by,
    active_at: null,
  } satisfies TemplateView as TemplateView;
}

export function liveView(template: TemplateRow, live: TemplateVersionRow): TemplateView {
  return {
    template,
    mode: 'live',
    name: live.name,
    description: live.description,
    tags: live.tags,
    enabled_channels: live.enabled_channels,
    variants: live.variants,
    liveVariants: live.variants,
    version_no: live.version_no,
    commit_message: live.commit_message,
    updated_at: live.committed_at,
    updated_by: live.committed_by,
    active_at: live.committed_at,
  };
}

export function presentTemplate(view: TemplateView) {
  const count = (variants: VariantRecord[], channel: string) =>
    variants.filter((variant) => variant.channel === channel).length;
  return {
    slug: view.template.slug,
    name: view.name,
    description: view.description,
    tags: view.tags,
    enabled_channels: view.enabled_channels,
    status: view.mode === 'draft' ? 'draft' : 'active',
    version_no: view.version_no,
    hash: templateHash(view),
    commit_message: view.commit_message,
    created_at: iso(view.template.created_at),
    updated_at: iso(view.updated_at),
    active_at: isoOrNull(view.active_at),
    last_triggered_at: isoOrNull(view.template.last_triggered_at),
    updated_by: view.updated_by,
    channels: view.enabled_channels.map((channel) => ({
      channel,
      is_active: count(view.liveVariants, channel) > 0,
      variants_count: count(view.variants, channel),
    })),
  };
}

/**
 * The approval fields of a variant (domain/template-approvals.ts): `auto_approved` when it needs none; a live
 * variant's own record; a draft variant carries the live one's while it is unchanged, and is `pending` otherwise. A
 * discarded variant reads `pending` with its `discard_comment` until the next commit.
 */
function approvalFields(variant: VariantRecord, approval: VariantApproval | undefined, withdrawn?: VariantRecord) {
  if (!needsApproval(variant))
    return { approval_status: 'auto_approved', discard_comment: null, approval_at: null, vendor_approvals: [] };
  const discarded = approval?.status === 'discarded' ? approval : withdrawn?.approval;
  return {
    approval_status: !approval || approval.status === 'discarded' ? 'pending' : approval.status,
    discard_comment: discarded?.discard_comment ?? null,
    approval_at: isoOrNull(approval?.status === 'approved' ? approval.approval_at : null),
    vendor_approvals: approval && approval.status !== 'discarded' ? approval.vendor_approvals : [],
  };
}

/** `action`: what the draft changes against live for this variant (null in live mode). */
export function presentVariant(
  variant: VariantRecord,
  options: { detail: boolean; live?: VariantRecord[]; withdrawn?: VariantRecord[]; mode: 'draft' | 'live' },
) {
  const errors = contentErrors(variant.channel as DeliveryChannel, variant.content);
  const same = (v: VariantRecord) => v.channel === variant.channel && v.variant_id === variant.variant_id;
  let action: 'Added' | 'Updated' | 'Unchanged' | null = null;
  let approval = variant.approval;
  if (options.mode === 'draft') {
    const live = options.live?.find(same);
    action = !live ? 'Added' : variantHash(live) === variantHash(variant) ? 'Unchanged' : 'Updated';
    approval = action === 'Unchanged' ? live?.approval : undefined;
  }
  const { vendor_approvals, ...approvalState } = approvalFields(variant, approval, options.withdrawn?.find(same));
  return {
    channel: variant.channel,
    id: variant.variant_id,
    tenant_id: variant.tenant_id,
    locale: variant.locale,
    conditions: variant.conditions,
    hash: variantHash(variant),
    needs_vendor_approval: variant.needs_vendor_approval,
    sysgen_template_name: null,
    ...approvalState,
    has_error: Object.keys(errors).length > 0,
    seq_no: variant.seq_no,
    action,
    created_at: iso(variant.created_at),
    ...(options.detail && { content: variant.content, errors, vendor_approvals }),
  };
}
