import type { DeliveryChannel } from '../schemas/delivery-channels.js';
import { contentErrors } from '../domain/templates.js';
import { templateHash, variantHash, type TemplateView, type VariantRecord } from '../domain/template-views.js';
import { needsApproval, type VariantApproval } from '../domain/template-approvals.js';
import { iso, isoOrNull } from '../schemas/common.js';

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
