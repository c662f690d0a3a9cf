import { createHash } from 'node:crypto';
import type { VariantApproval } from './template-approvals.js';

/** A template's draft or live content as services compose it and presenters show it, and the hashes a commit compares. */

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

/** A template in one mode, draft or live: what its presenter shows and a commit compares. */
export interface TemplateView {
  /** The template's own row (repositories/templates.ts `TemplateRow`), what no version changes. */
  template: { slug: string; created_at: Date | string; last_triggered_at: Date | string | null };
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
  updated_by: { name: string; email: string } | null;
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
