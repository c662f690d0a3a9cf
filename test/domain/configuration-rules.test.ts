import { describe, expect, it } from 'vitest';
import {
  deletedInUseErrors,
  duplicateSlugErrors,
  knownCategories,
  preferenceCategoryErrors,
  rootCategoryErrors,
} from '../../src/domain/preference-category-rules.js';
import { localeMatches, parseLocaleFile } from '../../src/domain/translation-files.js';
import { treeErrors, triggerErrors } from '../../src/domain/workflow-rules.js';
import type { RootCategories } from '../../src/schemas/preference-categories.js';

const roots = (...slugs: string[]): RootCategories => [
  { root_category: 'system', sections: [] },
  {
    root_category: 'transactional',
    sections: [
      { name: 'T', categories: slugs.map((category) => ({ category, name: category, default_preference: 'opt_in' })) },
    ],
  },
  { root_category: 'promotional' },
];

describe('preference category rules', () => {
  it('accepts a well-formed definition, sections and categories optional', () => {
    expect(preferenceCategoryErrors(roots('a', 'b-2'))).toEqual([]);
    expect(knownCategories(roots('a'))).toEqual(new Set(['system', 'transactional', 'promotional', 'a']));
  });

  it('reports a repeated root once and a slug that names a root category', () => {
    expect(rootCategoryErrors([...roots(), { root_category: 'system' }, { root_category: 'system' }])).toEqual([
      "root category 'system' appears more than once",
    ]);
    expect(duplicateSlugErrors(roots('x', 'x', 'x', 'promotional'))).toEqual([
      "category slug 'x' is used more than once",
      "category slug 'promotional' is reserved: it names a root category",
    ]);
  });

  it('reports only in-use subcategories that the definition lost, sorted', () => {
    expect(deletedInUseErrors(roots('kept'), ['zeta', 'kept', 'alpha', 'system', 'alpha'])).toEqual([
      'subcategories with active workflows were deleted in this version: alpha, zeta',
    ]);
    expect(deletedInUseErrors(roots('kept'), ['kept'])).toEqual([]);
  });
});

describe('workflow rules', () => {
  it('needs a tree with a nodes array of typed nodes, and events for an event trigger', () => {
    expect(treeErrors({ nodes: [] })).toEqual([]);
    expect(treeErrors({ nodes: [{ node_type: '' }] })).toEqual([
      'tree.nodes[0] must be an object with a node_type string',
    ]);
    expect(triggerErrors({ trigger_type: 'event', trigger_events: ['x'] })).toEqual([]);
    expect(triggerErrors({ trigger_type: 'api', trigger_events: [] })).toEqual([]);
  });
});

describe('translation file names', () => {
  it('splits namespace and locale', () => {
    expect(parseLocaleFile('fr.json')).toEqual({ filename: 'fr.json', locale: 'fr', namespace: null });
    expect(parseLocaleFile('task-list.pt-BR.json')).toEqual({
      filename: 'task-list.pt-BR.json',
      locale: 'pt-BR',
      namespace: 'task-list',
    });
    expect(parseLocaleFile('es-419.json')?.locale).toBe('es-419');
    for (const name of ['fr', 'fr.JSON', 'fr-fr.json', 'x.fr.json.json', 'en-US-x.json'])
      expect(parseLocaleFile(name), name).toBeUndefined();
  });

  it("matches the body's locale against the file's locale or name", () => {
    const file = parseLocaleFile('auth.en.json')!;
    expect([localeMatches(file, 'en'), localeMatches(file, 'auth.en.json'), localeMatches(file, 'fr')]).toEqual([
      true,
      true,
      false,
    ]);
  });
});
