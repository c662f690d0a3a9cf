import { isDeepStrictEqual } from 'node:util';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf, workspaceOf } from '../auth/request-auth.js';
import { preferenceCategoryErrors } from '../configuration/preference-category-rules.js';
import type { Db } from '../db/database.js';
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
import { ref, shortErrors, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  PreferenceCategoriesBodySchema,
  PreferenceCategoriesCommitQuerySchema,
  PreferenceCategoriesQuerySchema,
  PreferenceCategoriesSchema,
  preferenceCategorySchemaUrl,
  presentPreferenceCategories,
} from '../schemas/preference-categories.js';
import { CommitMessageQuerySchema, validationResult } from '../schemas/versioning.js';

type Draft = NonNullable<Awaited<ReturnType<typeof findPreferenceCategoryDraft>>>;

/**
 * A workspace's preference category definition: one draft, and every committed version kept;
 * the live definition is the highest one. Errors use the short shape (interface.md §6).
 */
export const preferenceCategoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['preference categories'];
  const config = { errorShape: 'short' as const };
  const schemaUrl = preferenceCategorySchemaUrl(app.config);

  const presentLive = (live: LivePreferenceCategories) =>
    presentPreferenceCategories(
      { ...live, status: 'active', validation: validationResult(preferenceCategoryErrors(live.root_categories)), updated_at: live.committed_at, updated_by: live.committed_by },
      schemaUrl,
    );
  // Without a draft, the draft is the live definition unchanged; either way it is the next version.
  const presentDraft = (draft: Draft | undefined, live: LivePreferenceCategories, errors: string[]) =>
    presentPreferenceCategories(
      { root_categories: draft?.root_categories ?? live.root_categories, version_no: live.version_no + 1, status: 'draft', validation: validationResult(errors), updated_at: draft?.updated_at ?? null, updated_by: draft?.updated_by ?? null },
      schemaUrl,
    );

  /** Commits a draft already locked by the caller's transaction; the caller has checked it is valid. */
  async function commit(trx: Db, workspaceId: number, draft: Draft, live: LivePreferenceCategories, commitMessage: string | null, request: Parameters<typeof actorOf>[0]) {
    if (isDeepStrictEqual(draft.root_categories, live.root_categories)) {
      await deletePreferenceCategoryDraft(trx, workspaceId);
      return live;
    }
    const version = await insertPreferenceCategoryVersion(trx, workspaceId, { roots: draft.root_categories, commitMessage, actor: actorOf(request) });
    await deletePreferenceCategoryDraft(trx, workspaceId);
    return version;
  }

  app.get(
    '/v1/:workspace/preference_category/',
    {
      config,
      schema: {
        tags,
        operationId: 'getPreferenceCategories',
        summary: 'Get the preference category definition, live (default) or draft',
        params: WorkspaceParamsSchema,
        querystring: PreferenceCategoriesQuerySchema,
        response: { 200: ref(PreferenceCategoriesSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = workspaceOf(request).id;
      const live = await findLivePreferenceCategories(app.db, workspaceId);
      if (request.query.mode === 'live') return presentLive(live);
      const [draft, inUse] = await Promise.all([findPreferenceCategoryDraft(app.db, workspaceId), findCategoriesOfEnabledLiveWorkflows(app.db, workspaceId)]);
      return presentDraft(draft, live, preferenceCategoryErrors(draft?.root_categories ?? live.root_categories, inUse));
    },
  );

  app.post(
    '/v1/:workspace/preference_category/',
    {
      config,
      schema: {
        tags,
        operationId: 'updatePreferenceCategories',
        summary: 'Replace the draft; commit=true also commits it when valid',
        params: WorkspaceParamsSchema,
        querystring: PreferenceCategoriesCommitQuerySchema,
        body: PreferenceCategoriesBodySchema,
        response: { 200: ref(PreferenceCategoriesSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = workspaceOf(request).id;
      return app.db.transaction().execute(async (trx) => {
        const draft = await savePreferenceCategoryDraft(trx, workspaceId, request.body.root_categories, actorOf(request));
        const live = await findLivePreferenceCategories(trx, workspaceId);
        const errors = preferenceCategoryErrors(draft.root_categories, await findCategoriesOfEnabledLiveWorkflows(trx, workspaceId));
        if (!request.query.commit || errors.length > 0) return presentDraft(draft, live, errors);
        return presentLive(await commit(trx, workspaceId, draft, live, request.query.commit_message ?? null, request));
      });
    },
  );

  app.patch(
    '/v1/:workspace/preference_category/commit/',
    {
      config,
      schema: {
        tags,
        operationId: 'commitPreferenceCategories',
        summary: 'Commit the draft: it becomes the active definition with version_no + 1',
        params: WorkspaceParamsSchema,
        querystring: CommitMessageQuerySchema,
        response: { 200: ref(PreferenceCategoriesSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = workspaceOf(request).id;
      return app.db.transaction().execute(async (trx) => {
        // The row lock makes a concurrent commit wait, then find the draft gone: nothing to commit.
        const draft = await findPreferenceCategoryDraft(trx, workspaceId, { lock: true });
        const live = await findLivePreferenceCategories(trx, workspaceId);
        if (!draft || isDeepStrictEqual(draft.root_categories, live.root_categories)) {
          throw badRequest(`nothing to commit: the draft has no changes since version ${live.version_no}`);
        }
        const errors = preferenceCategoryErrors(draft.root_categories, await findCategoriesOfEnabledLiveWorkflows(trx, workspaceId));
        if (errors.length > 0) throw badRequest(`the draft is invalid and cannot be committed: ${errors.join('; ')}`, { errors });
        return presentLive(await commit(trx, workspaceId, draft, live, request.query.commit_message ?? null, request));
      });
    },
  );
};
