import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { TemplateVariantApprovalsTable } from '../db/types.js';

export type ApprovalRow = Selectable<TemplateVariantApprovalsTable>;
export interface ApprovalKey {
  template_id: number;
  version_no: number;
  channel: string;
  variant_id: string;
}

const COLUMNS = [
  'template_id',
  'version_no',
  'channel',
  'variant_id',
  'status',
  'vendor_approvals',
  'discard_comment',
  'approval_at',
  'updated_at',
] as const;

/** The approvals of the variants of several committed versions, in one statement. */
export function findApprovals(db: Db, versions: { template_id: number; version_no: number }[]): Promise<ApprovalRow[]> {
  if (versions.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('template_variant_approvals')
    .select(COLUMNS)
    .where((eb) =>
      eb.or(versions.map((v) => eb.and([eb('template_id', '=', v.template_id), eb('version_no', '=', v.version_no)]))),
    )
    .execute();
}

export function saveApproval(
  db: Db,
  key: ApprovalKey,
  values: Pick<ApprovalRow, 'status' | 'vendor_approvals' | 'discard_comment' | 'approval_at'>,
) {
  const row = {
    status: values.status,
    vendor_approvals: JSON.stringify(values.vendor_approvals),
    discard_comment: values.discard_comment,
    approval_at: values.approval_at,
    // The rendering cache keys on the latest change: distinct even for two changes in one transaction.
    updated_at: sql<Date>`clock_timestamp()`,
  };
  return db
    .insertInto('template_variant_approvals')
    .values({ ...key, ...row })
    .onConflict((oc) => oc.columns(['template_id', 'version_no', 'channel', 'variant_id']).doUpdateSet(row))
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Copies the approvals of variants a commit left unchanged from the previous live version to the new one: an edit
 * elsewhere in the template does not send an approved SMS or WhatsApp text back for approval.
 */
export async function carryApprovals(
  db: Db,
  templateId: number,
  versions: { from: number; to: number },
  variants: { channel: string; variant_id: string }[],
) {
  if (variants.length === 0) return;
  await db
    .insertInto('template_variant_approvals')
    .columns(['template_id', 'version_no', 'channel', 'variant_id', 'status', 'vendor_approvals', 'approval_at'])
    .expression((eb) =>
      eb
        .selectFrom('template_variant_approvals')
        .select([
          'template_id',
          sql<number>`${versions.to}::integer`.as('version_no'),
          'channel',
          'variant_id',
          'status',
          'vendor_approvals',
          'approval_at',
        ])
        .where('template_id', '=', templateId)
        .where('version_no', '=', versions.from)
        .where('status', '!=', 'discarded')
        .where((w) =>
          w.or(variants.map((v) => w.and([w('channel', '=', v.channel), w('variant_id', '=', v.variant_id)]))),
        ),
    )
    .execute();
}
