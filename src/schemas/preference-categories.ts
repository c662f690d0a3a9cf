import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { surfaceUrls, type Config } from '../config.js';
import { CATEGORY_SLUG_MAX_LENGTH, CATEGORY_SLUG_PATTERN } from './identifiers.js';
import { ActorSchema, Nullable, ref, Timestamp } from './common.js';
import { CommitQuerySchema, modeQuery, ValidationResultSchema } from './versioning.js';

export const ROOT_CATEGORIES = ['system', 'transactional', 'promotional'] as const;
export const DEFAULT_PREFERENCES = ['opt_in', 'opt_out', 'cant_unsubscribe'] as const;

/** Where Herald serves the JSON Schema of a definition, relative to the management URL. */
export const PREFERENCE_CATEGORY_SCHEMA_PATH = '/v1/schemas/preference_category.json';
export const preferenceCategorySchemaUrl = (config: Config) =>
  `${surfaceUrls(config).management_url.replace(/\/$/, '')}${PREFERENCE_CATEGORY_SCHEMA_PATH}`;

const Open = { additionalProperties: true } as const;
const optionalNullable = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

/**
 * The root_categories structure. The API accepts it leniently (`strict` false): an unknown root,
 * a malformed slug or default_preference is stored in the draft and reported by validation_result,
 * as the hosted platform does. The published JSON Schema is the strict variant, so editors flag
 * those mistakes as they are typed. Unknown keys are kept as sent.
 */
export function rootCategoriesSchema(strict: boolean) {
  const Category = Type.Object(
    {
      category: strict
        ? Type.String({
            pattern: CATEGORY_SLUG_PATTERN,
            maxLength: CATEGORY_SLUG_MAX_LENGTH,
            description: 'slug, unique in the whole definition',
          })
        : Type.String({ maxLength: 1000, description: 'slug, unique in the whole definition' }),
      name: Type.String({ maxLength: 1000 }),
      description: optionalNullable(Type.String()),
      default_preference: strict
        ? Type.String({ enum: [...DEFAULT_PREFERENCES] })
        : Type.String({ description: DEFAULT_PREFERENCES.join(', ') }),
      default_mandatory_channels: optionalNullable(Type.Array(Type.String())),
      default_opt_in_channels: optionalNullable(Type.Array(Type.String())),
      digest_schedule: optionalNullable(Type.Object({}, Open)),
      properties: optionalNullable(Type.Object({}, Open)),
      tags: optionalNullable(Type.Array(Type.String())),
    },
    Open,
  );
  const Section = Type.Object(
    {
      name: Type.String({ maxLength: 1000 }),
      description: optionalNullable(Type.String()),
      tags: optionalNullable(Type.Array(Type.String())),
      categories: Type.Optional(Type.Array(Category, { default: [] })),
    },
    Open,
  );
  const Root = Type.Object(
    {
      root_category: strict
        ? Type.String({ enum: [...ROOT_CATEGORIES] })
        : Type.String({ description: ROOT_CATEGORIES.join(', ') }),
      sections: Type.Optional(Type.Array(Section, { default: [] })),
    },
    Open,
  );
  return Type.Array(Root, { maxItems: 100, description: 'system, transactional and promotional, each exactly once' });
}

const RootCategoriesSchema = rootCategoriesSchema(false);
export type RootCategories = Static<typeof RootCategoriesSchema>;

export const PreferenceCategoriesBodySchema = Type.Object({ root_categories: RootCategoriesSchema });
export const PreferenceCategoriesQuerySchema = Type.Object({ mode: modeQuery('live') });
export const PreferenceCategoriesCommitQuerySchema = CommitQuerySchema;

const status = Type.String({ enum: ['draft', 'active'] });

export const PreferenceCategoriesSchema = Type.Object(
  {
    $schema: Type.String({ description: 'URL of the JSON Schema of this structure, served by Herald' }),
    root_categories: RootCategoriesSchema,
    version_no: Type.Integer({
      description: 'live: the committed version (0 before the first commit); draft: the number its commit will get',
    }),
    status,
    validation_result: ref(ValidationResultSchema),
    commit_message: Nullable(Type.String()),
    committed_at: Nullable(Timestamp),
    committed_by: ref(ActorSchema),
    updated_at: Nullable(Timestamp),
    updated_by: ref(ActorSchema),
  },
  { $id: 'PreferenceCategories', title: 'Preference category definition' },
);
export type PreferenceCategories = Static<typeof PreferenceCategoriesSchema>;

/** The published JSON Schema: a definition as GET returns it or POST accepts it, strict about values. */
export function preferenceCategoryJsonSchema(url: string) {
  const Actor = Nullable(Type.Object({ name: Type.String(), email: Type.String() }));
  const document = Type.Object(
    {
      $schema: Type.Optional(Type.String()),
      root_categories: rootCategoriesSchema(true),
      version_no: Type.Optional(Type.Integer({ minimum: 0 })),
      status: Type.Optional(status),
      validation_result: Type.Optional(Type.Object({ is_valid: Type.Boolean(), errors: Type.Array(Type.String()) })),
      commit_message: Type.Optional(Nullable(Type.String())),
      committed_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
      committed_by: Type.Optional(Actor),
      updated_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
      updated_by: Type.Optional(Actor),
    },
    { title: 'Herald preference category definition' },
  );
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: url,
    ...JSON.parse(JSON.stringify(document)),
  } as Record<string, unknown>;
}
