import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/request-auth.js';
import {
  commitTranslations,
  deleteTranslation,
  getTranslation,
  listTranslations,
  uploadTranslation,
} from '../services/translations.js';
import { errors, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  TranslationBodySchema,
  TranslationCommitSchema,
  TranslationContentSchema,
  TranslationListEntrySchema,
  TranslationListQuerySchema,
  TranslationModeQuerySchema,
  TranslationParamsSchema,
} from '../schemas/translations.js';
import {
  presentTranslationContent,
  presentTranslationFile,
  presentTranslationListEntry,
} from '../presenters/translations.js';
import { CommitMessageQuerySchema } from '../schemas/versioning.js';

/** Translation files: drafts collected, committed all at once (services/translations.ts). */
export const translationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['translations'];

  app.get(
    '/v1/:workspace/translation/',
    {
      schema: {
        tags,
        operationId: 'listTranslations',
        summary: 'List translation files, draft (default) or live',
        params: WorkspaceParamsSchema,
        querystring: TranslationListQuerySchema,
        response: { 200: offsetList(ref(TranslationListEntrySchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset, mode, include_content, include_version_info } = request.query;
      const { rows, count } = await listTranslations(app.db, request.workspace.id, request.query);
      const include = { content: include_content, versionInfo: include_version_info };
      return {
        meta: { count, limit, offset },
        results: rows.map((row) => presentTranslationListEntry(row, mode, include)),
      };
    },
  );

  app.get(
    '/v1/:workspace/translation/content/:locale_file/',
    {
      schema: {
        tags,
        operationId: 'getTranslation',
        summary: 'Fetch a translation file with its content, draft (default) or live',
        params: TranslationParamsSchema,
        querystring: TranslationModeQuerySchema,
        response: { 200: ref(TranslationContentSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { locale_file } = request.params;
      return presentTranslationContent(
        await getTranslation(app.db, request.workspace.id, locale_file, request.query.mode),
      );
    },
  );

  app.post(
    '/v1/:workspace/translation/content/:locale_file/',
    {
      schema: {
        tags,
        operationId: 'uploadTranslation',
        summary: 'Upload a translation file into the draft',
        params: TranslationParamsSchema,
        body: TranslationBodySchema,
        response: { 201: ref(TranslationContentSchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { locale_file } = request.params;
      const saved = await uploadTranslation(app.db, request.workspace.id, locale_file, request.body, actorOf(request));
      return reply.code(201).send(presentTranslationContent(saved));
    },
  );

  app.delete(
    '/v1/:workspace/translation/content/:locale_file/',
    {
      schema: {
        tags,
        operationId: 'deleteTranslation',
        summary: 'Mark a translation file for deletion: it stays live until the next commit',
        params: TranslationParamsSchema,
        response: { 204: Type.Null({ description: 'No Content' }), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const { locale_file } = request.params;
      await app.db
        .transaction()
        .execute((trx) => deleteTranslation(trx, request.workspace.id, locale_file, actorOf(request)));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/v1/:workspace/translation/commit/',
    {
      schema: {
        tags,
        operationId: 'commitTranslations',
        summary: 'Commit the draft: uploads become live, files marked for deletion are removed',
        params: WorkspaceParamsSchema,
        querystring: CommitMessageQuerySchema,
        response: { 202: TranslationCommitSchema, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const input = { commitMessage: request.query.commit_message ?? null, actor: actorOf(request) };
      const { version, changes } = await app.db
        .transaction()
        .execute((trx) => commitTranslations(trx, request.workspace.id, input));
      return reply.code(202).send({
        version_no: version.version_no,
        commit_message: version.commit_message,
        meta: { count: changes.length, limit: null, offset: null },
        results: changes.map((change) => presentTranslationFile({ ...change, updated_at: version.committed_at })),
      });
    },
  );
};
