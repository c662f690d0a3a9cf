/**
 * Vendor approval of SMS and WhatsApp variants (docs/channels.md, "Vendor approval"; after the OpenAPI's
 * `vendor_approval` and `discard` operations). A committed variant with `needs_vendor_approval` on one of these
 * channels is sent only once a vendor approved it; until then rendering passes over it (to the next variant that
 * fits, or to a failed message saying it awaits approval).
 */

export const APPROVAL_CHANNELS: readonly string[] = ['sms', 'whatsapp'];

/** What a variant's approval reads as; `auto_approved` when it needs none. */
export type ApprovalStatus = 'auto_approved' | 'pending' | 'sent_for_approval' | 'approved' | 'rejected';
export type EntryStatus = Exclude<ApprovalStatus, 'auto_approved'>;

/** One vendor's record of the variant's approval (keyed by vendor_slug and vendor_uid). */
export type VendorApprovalEntry = {
  approval_status: EntryStatus;
  vendor_slug: string;
  vendor_uid: string;
  vendor_template_name?: string;
  vendor_template_id?: string;
  vendor_locale_code?: string;
  vendor_template_category?: string;
  provider_template_id?: string;
  comment?: string;
  updated_at: string;
};

/** A committed variant's approval as stored; `discarded` withdraws it from its version. */
export interface VariantApproval {
  status: EntryStatus | 'discarded';
  vendor_approvals: VendorApprovalEntry[];
  discard_comment: string | null;
  approval_at: Date | string | null;
}

export const needsApproval = (variant: { channel: string; needs_vendor_approval: boolean }) =>
  variant.needs_vendor_approval && APPROVAL_CHANNELS.includes(variant.channel);

/** A committed variant may be sent: it needs no approval, or a vendor approved it. */
export const isSendable = (
  variant: { channel: string; needs_vendor_approval: boolean },
  approval: { status: VariantApproval['status'] } | undefined,
) => !needsApproval(variant) || approval?.status === 'approved';

/** What the anchor requires beside the status: an approval names the vendor's template, a rejection says why. */
export function entryErrors(entry: Omit<VendorApprovalEntry, 'updated_at'>): Record<string, string> {
  const errors: Record<string, string> = {};
  if (entry.approval_status === 'approved') {
    if (!entry.vendor_template_name) errors.vendor_template_name = 'is required when approved';
    if (!entry.vendor_template_id) errors.vendor_template_id = 'is required when approved';
  }
  if (entry.approval_status === 'rejected' && !entry.comment) errors.comment = 'is required when rejected';
  return errors;
}

/** The entries with this vendor's replaced (or added at the end). */
export function withEntry(entries: VendorApprovalEntry[], entry: VendorApprovalEntry): VendorApprovalEntry[] {
  const same = (e: VendorApprovalEntry) => e.vendor_slug === entry.vendor_slug && e.vendor_uid === entry.vendor_uid;
  return entries.some(same) ? entries.map((e) => (same(e) ? entry : e)) : [...entries, entry];
}

/**
 * The variant's status from its vendors' entries (ours): approved when one vendor approved it (the message can go
 * out through that vendor), otherwise the most recent entry's status; pending without any.
 */
export function statusOfEntries(entries: VendorApprovalEntry[]): EntryStatus {
  if (entries.some((e) => e.approval_status === 'approved')) return 'approved';
  const latest = [...entries].sort((a, b) => a.updated_at.localeCompare(b.updated_at)).at(-1);
  return latest?.approval_status ?? 'pending';
}

/** Only a variant still awaiting its vendors can be discarded: an approved one is live, a discarded one gone. */
export function discardRefusal(approval: VariantApproval | undefined): string | undefined {
  if (approval?.status === 'approved') return 'it is approved: only a variant awaiting approval can be discarded';
  if (approval?.status === 'discarded') return 'it is already discarded';
  return undefined;
}
