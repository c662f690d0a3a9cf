import { Type } from '@sinclair/typebox';
import { Nullable, OffsetQuerySchema, Timestamp, WorkspaceParamsSchema } from './common.js';
import { modeQuery } from './versioning.js';

export const TRANSLATION_ACTIONS = ['added', 'updated', 'deleted', 'unchanged'] as const;

export const TranslationParamsSchema = Type.Composite([
  WorkspaceParamsSchema,
  Type.Object({
    locale_file: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'file name such as fr.json, es-MX.json or auth.en.json',
    }),
  }),
]);

export const TranslationBodySchema = Type.Object({
  locale: Type.Optional(
    Type.String({ maxLength: 255, description: "the file's locale (or its file name); must match the path" }),
  ),
  content: Type.Record(Type.String(), Type.Unknown(), {
    description: 'translation keys and values; nested objects allowed',
  }),
});

export const TranslationListQuerySchema = Type.Composite([
  OffsetQuerySchema,
  Type.Object({
    mode: modeQuery('draft'),
    include_content: Type.Boolean({ default: false, description: "each file's content too (the CLI's pull)" }),
    include_version_info: Type.Boolean({ default: false, description: 'version_no and version_status too' }),
  }),
]);
export const TranslationModeQuerySchema = Type.Object({ mode: modeQuery('draft') });

export const TranslationFileSchema = Type.Object(
  {
    filename: Type.String(),
    locale: Type.String(),
    namespace: Nullable(Type.String()),
    action: Type.String({
      enum: [...TRANSLATION_ACTIONS],
      description: 'draft: change against live; live: what the last commit did to the file',
    }),
    updated_at: Timestamp,
  },
  { $id: 'TranslationFile', title: 'Translation file' },
);

export const TranslationContentSchema = Type.Object(
  {
    ...TranslationFileSchema.properties,
    content: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'TranslationContent', title: 'Translation file with content' },
);

export const TranslationCommitSchema = Type.Object({
  version_no: Type.Integer({ description: 'the translation version this commit created' }),
  commit_message: Nullable(Type.String()),
  meta: Type.Object({ count: Type.Integer(), limit: Type.Null(), offset: Type.Null() }),
  results: Type.Array(Type.Ref('TranslationFile'), { description: 'the files this commit changed' }),
});

export const TranslationListEntrySchema = Type.Object(
  {
    ...TranslationFileSchema.properties,
    content: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'with include_content=true' })),
    version_no: Type.Optional(
      Nullable(
        Type.Integer({
          description:
            'with include_version_info=true: the translation version the file is live in; null while the draft differs',
        }),
      ),
    ),
    version_status: Type.Optional(
      Type.String({
        enum: ['live', 'draft'],
        description: 'with include_version_info=true: live when what is shown is the live file',
      }),
    ),
  },
  { $id: 'TranslationListEntry', title: 'Translation file in a list' },
);
