import type { Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import {
  discardRefusal,
  entryErrors,
  needsApproval,
  statusOfEntries,
  withEntry,
  type VendorApprovalEntry,
} from '../domain/template-approvals.js';
import { badRequest, notFound } from '../errors.js';
import { saveApproval } from '../repositories/template-approvals.js';
import { touchTemplate } from '../repositories/templates.js';
import { findLiveTemplateVersions, requireTemplate, type LiveVariant } from './templates.js';

/** Vendor approval of live SMS and WhatsApp variants (docs/channels.md, "Vendor approval"). */

interface VariantRef {
  workspaceId: number;
  slug: string;
  channel: string;
  variantId: string;
}

/** The live variant an approval operation is about, the template row locked so approvals of it serialize. */
async function approvalTarget(trx: Trx, ref: VariantRef) {
  const template = await requireTemplate(trx, ref.workspaceId, ref.slug, { lock: true });
  const [live] = await findLiveTemplateVersions(trx, [template]);
  if (!live) throw notFound(`template (slug: '${ref.slug}') has no live version: it was never committed`);
  const same = (v: LiveVariant) => v.channel === ref.channel && v.variant_id === ref.variantId;
  const variant = live.variants.find(same) ?? live.withdrawn.find(same);
  if (!variant)
    throw notFound(`variant '${ref.channel}:${ref.variantId}' of template '${ref.slug}' not found in its live version`);
  if (!needsApproval(variant))
    throw badRequest(`variant '${ref.channel}:${ref.variantId}' does not need vendor approval`, {
      needs_vendor_approval: 'is false on the live variant',
    });
  const key = {
    template_id: template.id,
    version_no: live.version_no,
    channel: variant.channel,
    variant_id: variant.variant_id,
  };
  return { template, key, variant };
}

const withApproval = (variant: LiveVariant, row: Awaited<ReturnType<typeof saveApproval>>): LiveVariant => ({
  ...variant,
  approval: {
    status: row.status,
    vendor_approvals: row.vendor_approvals,
    discard_comment: row.discard_comment,
    approval_at: row.approval_at,
  },
});

/**
 * Withdraws a variant awaiting approval from the live version: it is never sent, reads `pending` with the comment,
 * and stays in the draft, so the next commit submits it again.
 */
export async function discardVariant(trx: Trx, ref: VariantRef, input: { comment: string; actor: ActorColumn | null }) {
  const { template, key, variant } = await approvalTarget(trx, ref);
  const refusal = discardRefusal(variant.approval);
  if (refusal)
    throw badRequest(`variant '${ref.channel}:${ref.variantId}' cannot be discarded: ${refusal}`, {
      approval_status: refusal,
    });
  const row = await saveApproval(trx, key, {
    status: 'discarded',
    vendor_approvals: [],
    discard_comment: input.comment,
    approval_at: null,
  });
  await touchTemplate(trx, template.id, input.actor);
  return withApproval(variant, row);
}

/** Records one vendor's approval entry; the variant is sent once one vendor approved it. */
export async function recordVendorApproval(
  trx: Trx,
  ref: VariantRef,
  input: { entry: Omit<VendorApprovalEntry, 'updated_at'>; actor: ActorColumn | null },
) {
  const errors = entryErrors(input.entry);
  if (Object.keys(errors).length > 0)
    throw badRequest(
      `vendor approval is incomplete: ${Object.entries(errors)
        .map(([field, reason]) => `${field} ${reason}`)
        .join('; ')}`,
      errors,
    );
  const { template, key, variant } = await approvalTarget(trx, ref);
  if (variant.approval?.status === 'discarded')
    throw badRequest(`variant '${ref.channel}:${ref.variantId}' was discarded: commit the draft to submit it again`, {
      approval_status: 'discarded',
    });
  const now = new Date();
  const entries = withEntry(variant.approval?.vendor_approvals ?? [], {
    ...input.entry,
    updated_at: now.toISOString(),
  });
  const status = statusOfEntries(entries);
  const row = await saveApproval(trx, key, {
    status,
    vendor_approvals: entries,
    discard_comment: null,
    approval_at:
      status === 'approved' ? (variant.approval?.approval_at ? new Date(variant.approval.approval_at) : now) : null,
  });
  await touchTemplate(trx, template.id, input.actor);
  return withApproval(variant, row);
}
