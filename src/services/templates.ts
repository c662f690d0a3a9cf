import Handlebars from 'handlebars';
import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { commitErrors } from '../domain/templates.js';
import { badRequest, notFound } from '../errors.js';
import { draftView, liveView, templateHash, type TemplateView } from '../presenters/templates.js';
import { commitTemplateDraft, findLiveTemplateVersions } from '../repositories/template-versions.js';
import { findDraftVariants, findTemplate, type TemplateRow } from '../repositories/templates.js';

/** Handlebars' parse error, first line only (the rest is a caret drawing). */
export function handlebarsSyntaxError(source: string): string | undefined {
  try {
    Handlebars.precompile(source);
    return undefined;
  } catch (error) {
    return String((error as Error).message).split('\n')[0];
  }
}

export async function requireTemplate(db: Db, workspaceId: number, slug: string, options: { lock?: boolean } = {}) {
  const template = await findTemplate(db, workspaceId, slug, options);
  if (!template) throw notFound(`template (slug: '${slug}') not found`);
  return template;
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
  trx: Db,
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
  return liveView(committed.template, committed.version);
}

/**
 * Reads and writes the template routes call as the repositories give them (merged from the channels
 * branch; they carry no rule of their own yet): routes reach them through this service.
 */
export {
  findDraftVariants,
  listTemplates,
  setTemplateMockData,
  touchTemplate,
  upsertTemplateDraft,
  upsertVariant,
} from '../repositories/templates.js';
export { findLiveTemplateVersions } from '../repositories/template-versions.js';
