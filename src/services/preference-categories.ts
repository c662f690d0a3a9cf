import { isDeepStrictEqual } from 'node:util';
import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { preferenceCategoryErrors } from '../domain/preference-category-rules.js';
import { badRequest } from '../errors.js';
import {
  deletePreferenceCategoryDraft,
  findLivePreferenceCategories,
  findPreferenceCategoryDraft,
  insertPreferenceCategoryVersion,
  savePreferenceCategoryDraft,
  type LivePreferenceCategories,
} from '../repositories/preference-categories.js';
import { findCategoriesOfEnabledLiveWorkflows } from '../repositories/workflows.js';
import type { ShownDefinition } from '../repositories/preference-categories.js';
import type { RootCategories } from '../schemas/preference-categories.js';

/**
 * A workspace's preference category definition: one draft, and every committed version kept; the
 * live definition is the highest one. Services answer with what the presenter shows: the live
 * definition, or the draft (the live one unchanged when there is none) with its errors.
 */

type Draft = NonNullable<Awaited<ReturnType<typeof findPreferenceCategoryDraft>>>;

/** The rules, with the categories enabled live workflows send under (none of them may disappear). */
const errorsOf = async (db: Db, workspaceId: number, roots: RootCategories) =>
  preferenceCategoryErrors(roots, await findCategoriesOfEnabledLiveWorkflows(db, workspaceId));

/**
 * The one commit path of a definition draft, whoever asks (the commit endpoint, or an update with
 * commit=true): a draft that changes nothing live is not committed; then an invalid draft is not
 * committed; otherwise it becomes the next version and the draft is gone. The caller holds the
 * draft row's lock.
 */
async function commitDraft(
  trx: Trx,
  workspaceId: number,
  draft: Draft,
  live: LivePreferenceCategories,
  input: { commitMessage: string | null; actor: ActorColumn | null },
): Promise<
  | { outcome: 'unchanged' }
  | { outcome: 'invalid'; errors: string[] }
  | { outcome: 'committed'; live: LivePreferenceCategories }
> {
  if (isDeepStrictEqual(draft.root_categories, live.root_categories)) return { outcome: 'unchanged' };
  const errors = await errorsOf(trx, workspaceId, draft.root_categories);
  if (errors.length > 0) return { outcome: 'invalid', errors };
  const version = await insertPreferenceCategoryVersion(trx, workspaceId, {
    roots: draft.root_categories,
    commitMessage: input.commitMessage,
    actor: input.actor,
  });
  await deletePreferenceCategoryDraft(trx, workspaceId);
  return { outcome: 'committed', live: version };
}

export async function getPreferenceCategories(
  db: Db,
  workspaceId: number,
  mode: 'draft' | 'live',
): Promise<ShownDefinition> {
  const live = await findLivePreferenceCategories(db, workspaceId);
  if (mode === 'live') return { mode, live };
  const [draft, inUse] = await Promise.all([
    findPreferenceCategoryDraft(db, workspaceId),
    findCategoriesOfEnabledLiveWorkflows(db, workspaceId),
  ]);
  return { mode, draft, live, errors: preferenceCategoryErrors(draft?.root_categories ?? live.root_categories, inUse) };
}

/** Replaces the draft; with `commit`, also commits it when it is valid (a draft equal to live is dropped). */
export async function savePreferenceCategories(
  trx: Trx,
  workspaceId: number,
  roots: RootCategories,
  options: { commit: boolean; commitMessage: string | null; actor: ActorColumn | null },
): Promise<ShownDefinition> {
  const draft = await savePreferenceCategoryDraft(trx, workspaceId, roots, options.actor);
  const live = await findLivePreferenceCategories(trx, workspaceId);
  if (options.commit) {
    const committed = await commitDraft(trx, workspaceId, draft, live, options);
    if (committed.outcome === 'committed') return { mode: 'live', live: committed.live };
    if (committed.outcome === 'unchanged') {
      await deletePreferenceCategoryDraft(trx, workspaceId);
      return { mode: 'live', live };
    }
    return { mode: 'draft', draft, live, errors: committed.errors };
  }
  return { mode: 'draft', draft, live, errors: await errorsOf(trx, workspaceId, draft.root_categories) };
}

/** PATCH …/commit/: the draft becomes the live definition, or a 400 says why it cannot. */
export async function commitPreferenceCategories(
  trx: Trx,
  workspaceId: number,
  input: { commitMessage: string | null; actor: ActorColumn | null },
): Promise<ShownDefinition> {
  // The row lock makes a concurrent commit wait, then find the draft gone: nothing to commit.
  const draft = await findPreferenceCategoryDraft(trx, workspaceId, { lock: true });
  const live = await findLivePreferenceCategories(trx, workspaceId);
  const committed = draft
    ? await commitDraft(trx, workspaceId, draft, live, input)
    : ({ outcome: 'unchanged' } as const);
  if (committed.outcome === 'unchanged')
    throw badRequest(`nothing to commit: the draft has no changes since version ${live.version_no}`);
  if (committed.outcome === 'invalid')
    throw badRequest(`the draft is invalid and cannot be committed: ${committed.errors.join('; ')}`, {
      errors: committed.errors,
    });
  return { mode: 'live', live: committed.live };
}
