import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/request-auth.js';
import { badRequest, notFound } from '../errors.js';
import { NoContent, Nullable, shortErrors, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  deleteCategoryTranslation,
  findCategoryTranslation,
  listCategoryTranslationLocales,
  saveCategoryTranslation,
} from '../repositories/preference-category-translations.js';
import { parseLocaleFile } from '../domain/translation-files.js';

const Names = Type.Record(
  Type.String({ minLength: 1, maxLength: 1000 }),
  Type.Object(
    {
      name: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
      description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
    },
    { additionalProperties: false },
  ),
);
const CategoryTranslationSchema = Type.Object(
  {
    sections: Type.Optional(Names),
    categories: Type.Optional(Names),
  },
  {
    additionalProperties: false,
    description: 'Translated names (and descriptions) keyed by section name and by category slug',
  },
);
const AnswerSchema = Type.Object({ sections: Names, categories: Names });
const LocaleParamsSchema = Type.Object({
  ...WorkspaceParamsSchema.properties,
  locale: Type.String({ minLength: 1, maxLength: 35, description: 'such as fr, es-MX or zh-Hant-TW' }),
});

/** The translation files' locale rule: language, optional script, optional region. */
function checkedLocale(locale: string) {
  const parsed = parseLocaleFile(`${locale}.json`);
  if (!parsed || parsed.namespace !== null) throw badRequest(`invalid/unsupported locale: '${locale}'`);
  return locale;
}

const present = (content: Record<string, unknown>) => ({
  sections: (content.sections ?? {}) as Record<string, { name?: string | null }>,
  categories: (content.categories ?? {}) as Record<string, { name?: string | null }>,
});

/** Per-locale names of preference sections and categories, for the preference pages users see (short errors). */
export const preferenceCategoryTranslationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['preference categories'];
  const config = { errorShape: 'short' as const };
  const notFoundFor = (locale: string) => notFound(`translation not found for locale: ${locale}`);

  app.get(
    '/v1/:workspace/preference_category/translation/locale/',
    {
      config,
      schema: {
        tags,
        operationId: 'listPreferenceCategoryTranslationLocales',
        summary: 'The locales the preference categories are translated into',
        params: WorkspaceParamsSchema,
        response: {
          200: Type.Object({ results: Type.Array(Type.Object({ locale: Type.String() })) }),
          ...shortErrors(400, 401, 404),
        },
      },
    },
    async (request) => ({ results: await listCategoryTranslationLocales(app.db, request.workspace.id) }),
  );

  app.get(
    '/v1/:workspace/preference_category/translation/content/:locale/',
    {
      config,
      schema: {
        tags,
        operationId: 'getPreferenceCategoryTranslation',
        summary: "A locale's names for the preference sections and categories",
        params: LocaleParamsSchema,
        response: { 200: AnswerSchema, ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const locale = checkedLocale(request.params.locale);
      const row = await findCategoryTranslation(app.db, request.workspace.id, locale);
      if (!row) throw notFoundFor(locale);
      return present(row.content);
    },
  );

  app.post(
    '/v1/:workspace/preference_category/translation/content/:locale/',
    {
      config,
      schema: {
        tags,
        operationId: 'savePreferenceCategoryTranslation',
        summary:
          "Store a locale's names for the preference sections and categories (replaces the locale's previous ones)",
        params: LocaleParamsSchema,
        body: CategoryTranslationSchema,
        response: { 200: AnswerSchema, ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const locale = checkedLocale(request.params.locale);
      const content = { sections: request.body.sections ?? {}, categories: request.body.categories ?? {} };
      const row = await saveCategoryTranslation(app.db, request.workspace.id, locale, content, actorOf(request));
      return present(row.content);
    },
  );

  app.delete(
    '/v1/:workspace/preference_category/translation/content/:locale/',
    {
      config,
      schema: {
        tags,
        operationId: 'deletePreferenceCategoryTranslation',
        summary: "Delete a locale's names for the preference categories",
        params: LocaleParamsSchema,
        response: { 204: NoContent, ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const locale = checkedLocale(request.params.locale);
      if (!(await deleteCategoryTranslation(app.db, request.workspace.id, locale))) throw notFoundFor(locale);
      return reply.code(204).send(null);
    },
  );
};
