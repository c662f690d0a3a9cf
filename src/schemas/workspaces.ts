import { Type } from '@sinclair/typebox';
import { WORKSPACE_SLUG_PATTERN } from './identifiers.js';
import { Nullable, ref, Timestamp } from './common.js';
import { WorkspaceKeySchema } from './workspace-keys.js';

export const WorkspaceSchema = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    mode: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'Workspace', title: 'Workspace' },
);

export const CreateWorkspaceBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(
      Type.String({
        pattern: WORKSPACE_SLUG_PATTERN,
        description: 'lowercase letters, digits, - and _; derived from name when absent',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const CreatedWorkspaceSchema = Type.Object({
  ...WorkspaceSchema.properties,
  default_workspace_key: ref(WorkspaceKeySchema),
});
