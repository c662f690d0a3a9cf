import { Type, type Static } from '@sinclair/typebox';

/** Draft → commit versioning, shared by preference categories, workflows and translations. */

export const ValidationResultSchema = Type.Object(
  {
    is_valid: Type.Boolean({ description: 'true when the draft can be committed' }),
    errors: Type.Array(Type.String(), { description: 'human-readable reasons the draft cannot be committed' }),
  },
  { $id: 'ValidationResult', title: 'Validation result' },
);
export type ValidationResult = Static<typeof ValidationResultSchema>;

export const validationResult = (errors: string[]): ValidationResult => ({ is_valid: errors.length === 0, errors });

export type Mode = 'live' | 'draft';

/** `?mode=live|draft`; anything else is a 400. The default differs per resource (docs/spec/compat.md). */
export const modeQuery = (defaultMode: Mode) =>
  Type.Unsafe<Mode>(
    Type.String({
      enum: ['live', 'draft'],
      default: defaultMode,
      description: `live (committed) or draft; ${defaultMode} when absent`,
    }),
  );

export const CommitMessage = Type.String({ maxLength: 1000, description: 'recorded with the committed version' });

export const CommitQuerySchema = Type.Object({
  commit: Type.Boolean({ default: false, description: 'commit right away when the draft is valid' }),
  commit_message: Type.Optional(CommitMessage),
});

export const CommitMessageQuerySchema = Type.Object({ commit_message: Type.Optional(CommitMessage) });
