/** Translation file names: `<locale>.json` or `<namespace>.<locale>.json` (docs/spec/compat.md). */

// A BCP 47 language tag reduced to what translation files use: language, optional script, optional region.
const LOCALE = '[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|[0-9]{3}))?';
const NAMESPACE = '[A-Za-z0-9_-]{1,64}';
const LOCALE_FILE = new RegExp(`^(?:(${NAMESPACE})\\.)?(${LOCALE})\\.json$`);

export const LOCALE_FILE_RULE =
  '<locale>.json or <namespace>.<locale>.json, with a locale such as fr, es-MX or zh-Hant-TW';

export interface LocaleFile {
  filename: string;
  locale: string;
  namespace: string | null;
}

export function parseLocaleFile(filename: string): LocaleFile | undefined {
  const match = LOCALE_FILE.exec(filename);
  if (!match) return undefined;
  return { filename, locale: match[2]!, namespace: match[1] ?? null };
}

/** The body's `locale` may repeat the file's locale or its whole name (the hosted platform's examples do both). */
export const localeMatches = (file: LocaleFile, locale: string) => locale === file.locale || locale === file.filename;
