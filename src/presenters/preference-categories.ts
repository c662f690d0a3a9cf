import { isoOrNull } from '../schemas/common.js';
import type { PreferenceCategories, RootCategories } from '../schemas/preference-categories.js';
import { preferenceCategoryErrors } from '../domain/preference-category-rules.js';
import type { ShownDefinition } from '../repositories/preference-categories.js';
import { validationResult, type ValidationResult } from '../schemas/versioning.js';

interface DefinitionState {
  root_categories: RootCategories;
  version_no: number;
  status: 'draft' | 'active';
  validation: ValidationResult;
  commit_message?: string | null;
  committed_at?: Date | null;
  committed_by?: PreferenceCategories['committed_by'];
  updated_at?: Date | null;
  updated_by?: PreferenceCategories['updated_by'];
}

/** Every field present, optional ones as null, so clients see one shape whatever was sent. */
export function normalizeRootCategories(roots: RootCategories): RootCategories {
  return roots.map((root) => ({
    ...root,
    sections: (root.sections ?? []).map((section) => ({
      ...section,
      description: section.description ?? null,
      tags: section.tags ?? null,
      categories: (section.categories ?? []).map((category) => ({
        ...category,
        description: category.description ?? null,
        default_mandatory_channels: category.default_mandatory_channels ?? null,
        default_opt_in_channels: category.default_opt_in_channels ?? null,
        digest_schedule: category.digest_schedule ?? null,
        properties: category.properties ?? null,
        tags: category.tags ?? null,
      })),
    })),
  }));
}

export function presentPreferenceCategories(state: DefinitionState, schemaUrl: string): PreferenceCategories {
  return {
    $schema: schemaUrl,
    root_categories: normalizeRootCategories(state.root_categories),
    version_no: state.version_no,
    status: state.status,
    validation_result: state.validation,
    commit_message: state.commit_message ?? null,
    committed_at: isoOrNull(state.committed_at ?? null),
    committed_by: state.committed_by ?? null,
    updated_at: isoOrNull(state.updated_at ?? null),
    updated_by: state.updated_by ?? null,
  };
}

/** What a preference-category service answers with. */
/**
 * PreferenceCategories for what a service shows: the live definition, validated as it stands; or
 * the draft (the live definition unchanged when there is none), which is always the next version.
 */
export function presentShownDefinition(shown: ShownDefinition, schemaUrl: string): PreferenceCategories {
  const { live } = shown;
  if (shown.mode === 'live') {
    return presentPreferenceCategories(
      {
        ...live,
        status: 'active',
        validation: validationResult(preferenceCategoryErrors(live.root_categories)),
        updated_at: live.committed_at,
        updated_by: live.committed_by,
      },
      schemaUrl,
    );
  }
  const { draft, errors } = shown;
  return presentPreferenceCategories(
    {
      root_categories: draft?.root_categories ?? live.root_categories,
      version_no: live.version_no + 1,
      status: 'draft',
      validation: validationResult(errors),
      updated_at: draft?.updated_at ?? null,
      updated_by: draft?.updated_by ?? null,
    },
    schemaUrl,
  );
}
