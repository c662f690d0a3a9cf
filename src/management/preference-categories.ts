import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { presentShownDefinition } from '../presenters/preference-categories.js';
import { errors, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  PreferenceCategoriesBodySchema,
  PreferenceCategoriesCommitQuerySchema,
  PreferenceCategoriesQuerySchema,
  PreferenceCategoriesSchema,
  preferenceCategorySchemaUrl,
} from '../schemas/preference-categories.js';
import { CommitMessageQuerySchema } from '../schemas/versioning.js';
import {
  commitPreferenceCategories,
  getPreferenceCategories,
  savePreferenceCategories,
} from '../services/preference-categories.js';

/**
 * A workspace's preference category definition: one draft, and every committed version kept;
 * the live definition is the highest one.
 */
export const preferenceCategoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['preference categories'];
  const schemaUrl = preferenceCategorySchemaUrl(app.config);

  const present = (shown: Parameters<typeof presentShownDefinition>[0]) => presentShownDefinition(shown, schemaUrl);

  app.get(
    '/v1/:workspace/preference_category/',
    {
      schema: {
        tags,
        operationId: 'getPreferenceCategories',
        summary: 'Get the preference category definition, live (default) or draft',
        params: WorkspaceParamsSchema,
        querystring: PreferenceCategoriesQuerySchema,
        response: { 200: ref(PreferenceCategoriesSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      return present(await getPreferenceCategories(app.db, request.workspace.id, request.query.mode));
    },
  );

  app.post(
    '/v1/:workspace/preference_category/',
    {
      schema: {
        tags,
        operationId: 'updatePreferenceCategories',
        summary: 'Replace the draft; commit=true also commits it when valid',
        params: WorkspaceParamsSchema,
        querystring: PreferenceCategoriesCommitQuerySchema,
        body: PreferenceCategoriesBodySchema,
        response: { 200: ref(PreferenceCategoriesSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const options = {
        commit: request.query.commit === true,
        commitMessage: request.query.commit_message ?? null,
        actor: actorOf(request),
      };
      const { root_categories } = request.body;
      return present(
        await app.db
          .transaction()
          .execute((trx) => savePreferenceCategories(trx, request.workspace.id, root_categories, options)),
      );
    },
  );

  app.patch(
    '/v1/:workspace/preference_category/commit/',
    {
      schema: {
        tags,
        operationId: 'commitPreferenceCategories',
        summary: 'Commit the draft: it becomes the active definition with version_no + 1',
        params: WorkspaceParamsSchema,
        querystring: CommitMessageQuerySchema,
        response: { 200: ref(PreferenceCategoriesSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const input = { commitMessage: request.query.commit_message ?? null, actor: actorOf(request) };
      return present(
        await app.db.transaction().execute((trx) => commitPreferenceCategories(trx, request.workspace.id, input)),
      );
    },
  );
};
