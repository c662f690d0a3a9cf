import Handlebars from 'handlebars';
import type { Db, LockOption, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import {
  commitErrors,
  sequenceFromOrder,
  variantErrors,
  variantOrder,
  type VariantOrder,
} from '../domain/templates.js';
import { badRequest, notFound } from '../errors.js';
import {
  committable,
  templateHash,
  variantHash,
  type TemplateView,
  type VariantRecord,
} from '../domain/template-views.js';
import { needsApproval, type VariantApproval } from '../domain/template-approvals.js';
import { carryApprovals, findApprovals } from '../repositories/template-approvals.js';
import { commitTemplateDraft, findLiveTemplateVersionRows } from '../repositories/template-versions.js';
import type { CommittedVariant } from '../db/types.js';
import {
  findDraftVariants,
  findTemplate,
  setVariantSequence,
  touchTemplate as touchTemplateRow,
  type TemplateRow,
  type TemplateVersionRow,
} from '../repositories/templates.js';

/** Handlebars' parse error, first line only (the rest is a caret drawing). */
export function handlebarsSyntaxError(source: string): string | undefined {
  try {
    Handlebars.precompile(source);
    return undefined;
  } catch (error) {
    return String((error as Error).message).split('\n')[0];
  }
}

export async function requireTemplate<H extends Db>(
  db: H,
  workspaceId: number,
  slug: string,
  options: LockOption<H> = {},
) {
  const template = await findTemplate(db, workspaceId, slug, options);
  if (!template) throw notFound(`template (slug: '${slug}') not found`);
  return template;
}

/** A template's draft: its row's fields and draft variants (`liveVariants` those of its live version). */
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

/** A template's live version. */
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

/** The template as a mode sees it; live mode on a template never committed is a 404. */
export async function templateView(db: Db, template: TemplateRow, mode: 'draft' | 'live'): Promise<TemplateView> {
  const [live] = await findLiveTemplateVersions(db, [template]);
  if (mode === 'live') {
    if (!live) throw notFound(`template (slug: '${template.slug}') has no live version: it was never committed`);
    return liveView(template, live);
  }
  return draftView(template, await findDraftVariants(db, [template.id]), live);
}

/** Validates the draft and makes it the next live version; called inside a transaction. */
export async function commitTemplate(
  trx: Trx,
  workspaceId: number,
  slug: string,
  input: { commitMessage: string | null; actor: ActorColumn | null },
): Promise<TemplateView> {
  // The row lock makes a concurrent commit wait, then find nothing left to commit.
  const template = await requireTemplate(trx, workspaceId, slug, { lock: true });
  const draft = draftView(template, await findDraftVariants(trx, [template.id]), undefined);
  const [live] = await findLiveTemplateVersions(trx, [template]);
  if (live && templateHash(liveView(template, live)) === templateHash(draft))
    throw badRequest(`template '${slug}' has no changes to commit since version ${live.version_no}`);
  const errors = commitErrors(draft.enabled_channels, draft.variants, handlebarsSyntaxError);
  if (draft.enabled_channels.length === 0) errors.unshift('no channel is enabled');
  if (errors.length > 0)
    throw badRequest(`one or more variants about to be committed have issues: ${errors.join('; ')}`, { errors });
  const committed = await commitTemplateDraft(trx, template.id, input);
  if (live) {
    const unchanged = committed.version.variants.filter((variant) => {
      const before = live.variants.find((v) => v.channel === variant.channel && v.variant_id === variant.variant_id);
      return needsApproval(variant) && before !== undefined && variantHash(before) === variantHash(variant);
    });
    await carryApprovals(trx, template.id, { from: live.version_no, to: committed.version.version_no }, unchanged);
  }
  const [version] = await findLiveTemplateVersions(trx, [committed.template]);
  return liveView(committed.template, version ?? committed.version);
}

/**
 * What committing the draft would do, committing nothing (the hosted platform's
 * `pre_commit_validate/`, which its CLI calls before `commit --force`): whether the template was
 * ever committed, whether the draft differs from live, and each variant a commit would take with
 * whether it changed and why it cannot be committed, by field. `errors` lists every reason the
 * commit itself would give (ours).
 */
export async function preCommitCheck(db: Db, workspaceId: number, slug: string) {
  const template = await requireTemplate(db, workspaceId, slug);
  const draft = draftView(template, await findDraftVariants(db, [template.id]), undefined);
  const [live] = await findLiveTemplateVersions(db, [template]);
  const before = (variant: VariantRecord) =>
    live?.variants.find((v) => v.channel === variant.channel && v.variant_id === variant.variant_id);
  const errors = commitErrors(draft.enabled_channels, draft.variants, handlebarsSyntaxError);
  if (draft.enabled_channels.length === 0) errors.unshift('no channel is enabled');
  return {
    is_new: live === undefined,
    has_changes: live === undefined || templateHash(liveView(template, live)) !== templateHash(draft),
    variants: committable(draft.enabled_channels, draft.variants).map((variant) => {
      const old = before(variant);
      return {
        channel: variant.channel,
        id: variant.variant_id,
        has_diff: old === undefined || variantHash(old) !== variantHash(variant),
        errors: variantErrors(variant, handlebarsSyntaxError),
      };
    }),
    errors,
  };
}

/** The variant order of the draft or the live version (a never-committed template has no live one: 404). */
export async function readVariantOrder(db: Db, workspaceId: number, slug: string, mode: 'draft' | 'live') {
  const template = await requireTemplate(db, workspaceId, slug);
  const view = await templateView(db, template, mode);
  return variantOrder(view.variants);
}

/** Reorders the draft's variants (services a transaction: the template row stays locked until it ends). */
export async function reorderDraftVariants(
  trx: Trx,
  workspaceId: number,
  slug: string,
  requested: VariantOrder,
  actor: ActorColumn | null,
) {
  const template = await requireTemplate(trx, workspaceId, slug, { lock: true });
  const variants = await findDraftVariants(trx, [template.id]);
  const { sequence, errors } = sequenceFromOrder(variants, requested);
  const reasons = Object.entries(errors);
  if (reasons.length > 0) throw badRequest(reasons.map(([at, reason]) => `${at}: ${reason}`).join('; '), errors);
  await setVariantSequence(trx, template.id, sequence);
  await touchTemplateRow(trx, template.id, actor);
  return variantOrder(await findDraftVariants(trx, [template.id]));
}

/**
 * Reads and writes the template routes call as the repositories give them (merged from the channels
 * branch; they carry no rule of their own yet): routes reach them through this service.
 */

/** A committed variant with its vendor approval, when it has one (domain/template-approvals.ts). */
export type LiveVariant = CommittedVariant & { approval?: VariantApproval };

/** A live version as every reader sees it: discarded variants `withdrawn` from it, the others with their approval. */
export interface LiveVersion extends TemplateVersionRow {
  variants: LiveVariant[];
  withdrawn: LiveVariant[];
}

/** The live versions of several templates, with their variants' approvals: two statements whatever the count. */
export async function findLiveTemplateVersions(
  db: Db,
  templates: { id: number; live_version_no: number | null }[],
): Promise<LiveVersion[]> {
  const versions = await findLiveTemplateVersionRows(db, templates);
  const approvals = await findApprovals(db, versions);
  return versions.map((version) => {
    const annotated: LiveVariant[] = version.variants.map((variant) => {
      const row = approvals.find(
        (a) =>
          a.template_id === version.template_id &&
          a.version_no === version.version_no &&
          a.channel === variant.channel &&
          a.variant_id === variant.variant_id,
      );
      return row
        ? {
            ...variant,
            approval: {
              status: row.status,
              vendor_approvals: row.vendor_approvals,
              discard_comment: row.discard_comment,
              approval_at: row.approval_at,
            },
          }
        : variant;
    });
    return {
      ...version,
      variants: annotated.filter((variant) => variant.approval?.status !== 'discarded'),
      withdrawn: annotated.filter((variant) => variant.approval?.status === 'discarded'),
    };
  });
}
