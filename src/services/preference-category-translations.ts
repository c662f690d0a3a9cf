export { parseLocaleFile } from '../domain/translation-files.js';
export {
  deleteCategoryTranslation,
  findCategoryTranslation,
  listCategoryTranslationLocales,
  saveCategoryTranslation,
} from '../repositories/preference-category-translations.js';
