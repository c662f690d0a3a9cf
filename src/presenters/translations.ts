import { iso } from '../schemas/common.js';

export interface TranslationFileView {
  filename: string;
  locale: string;
  namespace: string | null;
  action: string;
  updated_at: Date | string;
  content?: Record<string, unknown> | null;
}

export const presentTranslationFile = (view: TranslationFileView) => ({
  filename: view.filename,
  locale: view.locale,
  namespace: view.namespace,
  action: view.action,
  updated_at: iso(view.updated_at),
});

export const presentTranslationContent = (view: TranslationFileView) => ({
  ...presentTranslationFile(view),
  content: view.content ?? {},
});
