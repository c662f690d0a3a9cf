import { DEFAULT_PREFERENCES, ROOT_CATEGORIES, type RootCategories } from '../schemas/preference-categories.js';
import { CATEGORY_SLUG_MAX_LENGTH, CATEGORY_SLUG_PATTERN } from '../schemas/identifiers.js';

/**
 * What makes a preference category definition committable. Each rule is a pure function of the
 * definition returning human-readable error strings; validation_result lists them all.
 */

type Category = NonNullable<NonNullable<RootCategories[number]['sections']>[number]['categories']>[number];

const slugRegExp = new RegExp(CATEGORY_SLUG_PATTERN);
const quoted = (values: readonly string[]) => values.map((value) => `'${value}'`);
const orList = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;

/** Every subcategory, in definition order. */
export function categoriesOf(roots: RootCategories): Category[] {
  return roots.flatMap((root) => (root.sections ?? []).flatMap((section) => section.categories ?? []));
}

/** What a workflow's `category` may name: a root category present in the definition, or a subcategory slug. */
export function knownCategories(roots: RootCategories): Set<string> {
  return new Set([
    ...roots.map((root) => root.root_category),
    ...categoriesOf(roots).map((category) => category.category),
  ]);
}

export function rootCategoryErrors(roots: RootCategories): string[] {
  const names = roots.map((root) => root.root_category);
  const known: readonly string[] = ROOT_CATEGORIES;
  const unknown = [...new Set(names.filter((name) => !known.includes(name)))];
  const repeated = ROOT_CATEGORIES.filter((name) => names.filter((n) => n === name).length > 1);
  const missing = ROOT_CATEGORIES.filter((name) => !names.includes(name));
  return [
    ...unknown.map((name) => `unknown root category '${name}'; expected ${orList(quoted(ROOT_CATEGORIES))}`),
    ...repeated.map((name) => `root category '${name}' appears more than once`),
    ...missing.map((name) => `root category '${name}' is missing; all three root categories are required`),
  ];
}

export function duplicateSlugErrors(roots: RootCategories): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { category } of categoriesOf(roots)) (seen.has(category) ? repeated : seen).add(category);
  const reserved: readonly string[] = ROOT_CATEGORIES;
  return [
    ...[...repeated].map((slug) => `category slug '${slug}' is used more than once`),
    ...[...seen]
      .filter((slug) => reserved.includes(slug))
      .map((slug) => `category slug '${slug}' is reserved: it names a root category`),
  ];
}

export function slugFormatErrors(roots: RootCategories): string[] {
  const invalid = categoriesOf(roots)
    .map((category) => category.category)
    .filter((slug) => slug.length > CATEGORY_SLUG_MAX_LENGTH || !slugRegExp.test(slug));
  return [...new Set(invalid)].map(
    (slug) =>
      `category slug '${slug}' is invalid: use lowercase letters and digits separated by single hyphens, at most ${CATEGORY_SLUG_MAX_LENGTH} characters`,
  );
}

export function defaultPreferenceErrors(roots: RootCategories): string[] {
  const allowed: readonly string[] = DEFAULT_PREFERENCES;
  return categoriesOf(roots)
    .filter((category) => !allowed.includes(category.default_preference))
    .map(
      (category) =>
        `category '${category.category}' has default_preference '${category.default_preference}'; expected ${orList(DEFAULT_PREFERENCES)}`,
    );
}

/** `inUse`: the categories enabled, committed workflows send under; none of them may disappear. */
export function deletedInUseErrors(roots: RootCategories, inUse: Iterable<string>): string[] {
  const known = knownCategories(roots);
  const rootNames: readonly string[] = ROOT_CATEGORIES;
  // A missing root category is reported by rootCategoryErrors; this rule is about subcategories.
  const deleted = [...new Set(inUse)].filter((slug) => !known.has(slug) && !rootNames.includes(slug)).sort();
  return deleted.length > 0
    ? [`subcategories with active workflows were deleted in this version: ${deleted.join(', ')}`]
    : [];
}

export function preferenceCategoryErrors(roots: RootCategories, inUse: Iterable<string> = []): string[] {
  return [
    ...rootCategoryErrors(roots),
    ...slugFormatErrors(roots),
    ...duplicateSlugErrors(roots),
    ...defaultPreferenceErrors(roots),
    ...deletedInUseErrors(roots, inUse),
  ];
}

/** A category as the live definition holds it. */
export type DefinitionCategory = ReturnType<typeof categoriesOf>[number];

export const findCategory = (roots: RootCategories, slug: string): DefinitionCategory | undefined =>
  categoriesOf(roots).find((category) => category.category === slug);
