import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, workspaceOf } from '../auth/request-auth.js';
import { LOCALE_FILE_RULE, localeMatches, parseLocaleFile } from '../configuration/translation-files.js';
import { badRequest, notFound } from '../errors.js';
import { commitTranslations } from '../repositories/translation-versions.js';
import { findTranslationFile, listTranslationFiles, markTranslationDeleted, upsertTranslationDraft } from '../repositories/translations.js';
import { fullErrors, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  presentTranslationContent,
  presentTranslationFile,
  TranslationBodySchema,
  TranslationCommitSchema,
  TranslationContentSchema,
  TranslationFileSchema,
  TranslationListQuerySchema,
  TranslationModeQuerySchema,
  TranslationParamsSchema,
} from '../schemas/translations.js';
import { CommitMessageQuerySchema } from '../schemas/versioning.js';

/**
 * Translation files: uploads and deletions collect in the workspace's draft; one commit makes
 * all of them live at once, as a numbered version.
 */
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
        response: { 200: offsetList(ref(TranslationFileSchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { mode, limit, offset } = request.query;
      const { rows, count } = await listTranslationFiles(app.db, workspaceOf(request).id, mode, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(presentTranslationFile) };
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
        response: { 200: ref(TranslationContentSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { locale_file } = request.params;
      const file = await findTranslationFile(app.db, workspaceOf(request).id, locale_file, request.query.mode);
      if (!file) throw notFound(`translation file '${locale_file}' not found${request.query.mode === 'live' ? ' in live mode' : ''}`);
      return presentTranslationContent(file);
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
        response: { 201: ref(TranslationContentSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { locale_file } = request.params;
      const file = parseLocaleFile(locale_file);
      if (!file) throw badRequest(`locale_file '${locale_file}' is invalid: name it ${LOCALE_FILE_RULE}`, { locale_file: `must be ${LOCALE_FILE_RULE}` });
      const { locale, content } = request.body;
      if (locale !== undefined && !localeMatches(file, locale)) {
        throw badRequest(`locale '${locale}' does not match the file '${locale_file}', whose locale is '${file.locale}'`, { locale: `must be '${file.locale}'` });
      }
      const saved = await upsertTranslationDraft(app.db, workspaceOf(request).id, file, content, actorOf(request));
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
        response: { 204: Type.Null({ description: 'No Content' }), ...fullErrors(401, 404) },
      },
    },
    async (request, reply) => {
      const { locale_file } = request.params;
      const found = await app.db.transaction().execute((trx) => markTranslationDeleted(trx, workspaceOf(request).id, locale_file, actorOf(request)));
      if (!found) throw notFound(`translation file '${locale_file}' not found`);
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
        response: { 202: TranslationCommitSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const committed = await app.db
        .transaction()
        .execute((trx) => commitTranslations(trx, workspaceOf(request).id, { commitMessage: request.query.commit_message ?? null, actor: actorOf(request) }));
      if (!committed) throw badRequest('nothing to commit: no translation file changed since the last commit');
      const { version, changes } = committed;
      return reply.code(202).send({
        version_no: version.version_no,
        commit_message: version.commit_message,
        meta: { count: changes.length, limit: null, offset: null },
        results: changes.map((change) => presentTranslationFile({ ...change, updated_at: version.committed_at })),
      });
    },
  );
};
