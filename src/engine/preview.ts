import type { Db } from '../db/database.js';
import type { CommittedVariant } from '../db/types.js';
import { badRequest, notFound, notFoundErrors } from '../errors.js';
import { renderDraftVariants, renderTemplate, type RenderOutcome } from '../channels/rendering.js';
import type { DeliveryChannel } from '../channels/provider.js';
import { findUserByDistinctId } from '../repositories/users.js';
import { findDraftVariants } from '../repositories/templates.js';
import { findLiveTemplatePointer, findTemplateVersionVariants } from '../repositories/template-versions.js';
import type { LockedRun } from '../repositories/runs.js';
import { requireTemplate } from '../services/templates.js';
import { loadNamespaces, loadRecipient, renderRequestOf } from './run-context.js';

/**
 * The template preview (docs/runs.md, docs/spec/product.md §3): one channel of a template rendered
 * for a recipient by the very functions a delivery uses (the recipient and namespaces a run loads,
 * `renderRequestOf`, `renderTemplate`), so what it shows is what a delivery would carry.
 */

export interface PreviewInput {
  channel: DeliveryChannel;
  mode: 'draft' | 'live';
  locale?: string;
  tenantId?: string;
  variantId?: string;
  data?: Record<string, unknown>;
  distinctId?: string;
}

/**
 * A run as the render path reads it, for a recipient who is not running anything: the preview's
 * workspace, tenant, data and user. Only the fields the recipient and namespace loaders read are set.
 */
function previewRun(workspaceId: number, slug: string, input: PreviewInput, data: Record<string, unknown>) {
  return {
    id: 'preview',
    workspace_id: workspaceId,
    recipient_type: 'user',
    distinct_id: input.distinctId ?? null,
    object_type: null,
    object_id: null,
    inline: null,
    subscription: null,
    run_data: {},
    data,
    actor: null,
    tenant_id: input.tenantId ?? 'default',
    workflow_slug: `template:${slug}`,
    version_no: 0,
    category: '',
  } as unknown as LockedRun;
}

const asCommitted = (rows: Awaited<ReturnType<typeof findDraftVariants>>): CommittedVariant[] =>
  rows.map((row) => ({
    ...row,
    conditions: row.conditions ?? [],
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }));

export async function previewTemplate(db: Db, workspaceId: number, slug: string, input: PreviewInput) {
  const template = await requireTemplate(db, workspaceId, slug);
  let variants: CommittedVariant[];
  if (input.mode === 'live') {
    const pointer = await findLiveTemplatePointer(db, workspaceId, slug);
    if (!pointer) throw notFound(`template (slug: '${slug}') has no live version: it was never committed`);
    variants = await findTemplateVersionVariants(db, pointer.id, pointer.live_version_no);
  } else variants = asCommitted(await findDraftVariants(db, [template.id]));

  if (input.distinctId !== undefined && !(await findUserByDistinctId(db, workspaceId, input.distinctId)))
    throw notFoundErrors.user(input.distinctId);
  const mock = (template.mock_data as { payload?: Record<string, unknown> } | null)?.payload ?? {};
  const run = previewRun(workspaceId, slug, input, input.data ?? mock);
  const recipient =
    input.distinctId !== undefined
      ? await loadRecipient(db, run)
      : {
          type: 'user' as const,
          distinct_id: null,
          object_type: null,
          object_id: null,
          userId: null,
          properties: {},
          channels: {},
        };
  const namespaces = await loadNamespaces(db, run, recipient);
  const request = renderRequestOf(run, recipient, namespaces, slug, input.channel);
  if (input.locale !== undefined) request.locale = input.locale;

  // Live, the variant chosen as for a delivery: the delivery's own function.
  const outcome: RenderOutcome =
    input.mode === 'live' && input.variantId === undefined
      ? await renderTemplate(db, request)
      : await renderDraftVariants(db, request, variants, input.variantId);
  if (!outcome.ok) {
    const place = {
      ...(outcome.variant_id !== undefined ? { variant_id: outcome.variant_id } : {}),
      ...(outcome.field !== undefined ? { field: outcome.field } : {}),
      ...(outcome.line !== undefined ? { line: outcome.line } : {}),
      ...(outcome.column !== undefined ? { column: outcome.column } : {}),
    };
    const where =
      outcome.line !== undefined
        ? ` (variant '${outcome.variant_id}', ${outcome.field}, line ${outcome.line}${outcome.column !== undefined ? `, column ${outcome.column}` : ''})`
        : '';
    throw badRequest(`${outcome.reason}${where}`, place);
  }
  const variant = variants.find((v) => v.channel === input.channel && v.variant_id === outcome.template.variant_id);
  return {
    channel: input.channel,
    variant_id: outcome.template.variant_id,
    locale: variant?.locale ?? request.locale ?? 'en',
    content: outcome.content,
  };
}
