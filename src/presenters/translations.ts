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

/** A file in the list, with its content and version information when asked for. */
export function presentTranslationListEntry(
  view: TranslationFileView & { live_version_no?: number | null },
  mode: 'draft' | 'live',
  include: { content: boolean; versionInfo: boolean },
) {
  const isLive = mode === 'live' || view.action === 'unchanged';
  return {
    ...presentTranslationFile(view),
    ...(include.content && { content: view.content ?? {} }),
    ...(include.versionInfo && {
      version_no: isLive ? (view.live_version_no ?? null) : null,
      version_status: isLive ? ('live' as const) : ('draft' as const),
    }),
  };
}
