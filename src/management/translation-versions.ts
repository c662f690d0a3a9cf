import { EmptyBodySchema } from '../schemas/empty-body.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/request-auth.js';
import { offsetPage } from '../services/offset-page.js';
import { badRequest } from '../errors.js';
import { existingVersion } from '../services/translation-history.js';
import { fullErrors, iso, Nullable, OffsetQuerySchema, Timestamp, WorkspaceParamsSchema } from '../schemas/common.js';
import { TRANSLATION_ACTIONS } from '../schemas/translations.js';
import { parseLocaleFile } from '../domain/translation-files.js';
import {
  replaceTranslationDraft,
  translationFilesAtVersion,
  type FileAtVersion,
} from '../repositories/translation-history.js';
import { commitTranslations } from '../repositories/translation-versions.js';

const VersionFileSchema = Type.Object({
  filename: Type.String(),
  locale: Type.String(),
  locale_name: Type.String({ description: "the locale's name in English" }),
  namespace: Nullable(Type.String()),
  action: Type.String({ enum: [...TRANSLATION_ACTIONS], description: 'what this version did to the file' }),
  updated_at: Timestamp,
});
const VersionFilesSchema = Type.Object({
  version_no: Type.Integer(),
  meta: Type.Object({ count: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
  results: Type.Array(VersionFileSchema),
});
const VersionParamsSchema = Type.Object({
  ...WorkspaceParamsSchema.properties,
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});
const RollbackParamsSchema = Type.Object({
  ...WorkspaceParamsSchema.properties,
  version_no: VersionParamsSchema.properties.version,
});

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

function presentFile(file: FileAtVersion) {
  const parsed = parseLocaleFile(file.filename);
  const locale = parsed?.locale ?? file.filename;
  return {
    filename: file.filename,
    locale,
    locale_name: languageNames.of(locale) ?? locale,
    namespace: parsed?.namespace ?? null,
    action: file.action,
    updated_at: iso(file.updated_at),
  };
}

/** The committed history of translations: what each version left, and rolling back to one. */
export const translationVersionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['translations'];

  app.get(
    '/v1/:workspace/translation/version/:version/',
    {
      schema: {
        tags,
        operationId: 'getTranslationVersion',
        summary: 'The translation files as a committed version left them, with what that version did to each',
        params: VersionParamsSchema,
        querystring: OffsetQuerySchema,
        response: { 200: VersionFilesSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const { version } = request.params;
      const { limit, offset } = request.query;
      await existingVersion(app.db, workspaceId, version);
      const files = await translationFilesAtVersion(app.db, workspaceId, version);
      return { version_no: version, ...offsetPage(files, { limit, offset }, presentFile) };
    },
  );

  app.post(
    '/v1/:workspace/translation/version/:version_no/rollback/',
    {
      schema: {
        tags,
        operationId: 'rollbackTranslations',
        body: EmptyBodySchema,
        summary:
          'Make the files exactly what a version left, as a new committed version (uncommitted draft changes are discarded)',
        params: RollbackParamsSchema,
        response: { 200: VersionFilesSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const target = request.params.version_no;
      const { versionNo, files } = await app.db.transaction().execute(async (trx) => {
        await existingVersion(trx, workspaceId, target);
        const kept = (await translationFilesAtVersion(trx, workspaceId, target)).filter(
          (file) => file.action !== 'deleted',
        );
        const drafts = kept.map((file) => {
          const parsed = parseLocaleFile(file.filename)!;
          return { ...parsed, content: file.content ?? {} };
        });
        await replaceTranslationDraft(trx, workspaceId, drafts, actorOf(request));
        const committed = await commitTranslations(trx, workspaceId, {
          commitMessage: `rollback to version ${target}`,
          actor: actorOf(request),
        });
        if (!committed) throw badRequest(`nothing to roll back: the live translations are those of version ${target}`);
        return {
          versionNo: committed.version.version_no,
          files: await translationFilesAtVersion(trx, workspaceId, committed.version.version_no),
        };
      });
      return {
        version_no: versionNo,
        meta: { count: files.length, limit: files.length, offset: 0 },
        results: files.map(presentFile),
      };
    },
  );
};
