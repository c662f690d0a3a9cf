import type { RootCategories } from '../schemas/preference-categories.js';
import type { PreferenceState } from '../domain/preference-evaluation.js';
import { presentUserPreferences } from './preferences.js';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A whole page: plain HTML and a little CSS, no script; every control a native, labelled one. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
fieldset{border:1px solid #ccc;border-radius:.5rem;margin:1rem 0}label{display:block;margin:.5rem 0}
small{display:block;color:#555;margin-left:1.6rem}button{font:inherit;padding:.4rem 1rem}
:focus-visible{outline:3px solid #1a73e8;outline-offset:2px}</style></head>
<body><main>${body}</main></body></html>`;
}

/**
 * The hosted preference page: one checkbox per category (checked: the user receives it), the ones
 * the user may not turn off shown disabled, and a `shown` list so a save touches only what was shown.
 */
export function presentPreferencePage(
  roots: RootCategories,
  state: PreferenceState,
  action: string,
  notice?: string,
): string {
  const { sections } = presentUserPreferences(roots, state);
  const shown: string[] = [];
  const fieldsets = sections
    .filter((section) => section.subcategories.length > 0)
    .map((section) => {
      const boxes = section.subcategories.map((category) => {
        if (category.is_editable) shown.push(category.category);
        const id = `category-${escapeHtml(category.category)}`;
        const description = category.description ? `<small>${escapeHtml(category.description)}</small>` : '';
        return `<label for="${id}"><input type="checkbox" id="${id}" name="category:${escapeHtml(category.category)}" value="opt_in"${
          category.preference === 'opt_in' ? ' checked' : ''
        }${category.is_editable ? '' : ' disabled'}> ${escapeHtml(category.name)}</label>${description}`;
      });
      return `<fieldset><legend>${escapeHtml(section.name ?? 'Notifications')}</legend>${boxes.join('')}</fieldset>`;
    });
  return htmlPage(
    'Notification preferences',
    `<h1>Notification preferences</h1>${notice ? `<p role="status">${escapeHtml(notice)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">${fieldsets.join('')}
<input type="hidden" name="shown" value="${escapeHtml(shown.join(','))}">
<button type="submit">Save preferences</button></form>`,
  );
}

/** The unsubscribe confirmation: one button, so a mail scanner fetching the link changes nothing. */
export function presentUnsubscribePage(categoryName: string, action: string, preferencesUrl: string, done: boolean) {
  const name = escapeHtml(categoryName);
  return htmlPage(
    'Unsubscribe',
    done
      ? `<h1>You are unsubscribed</h1><p role="status">You will no longer receive ${name}.</p><p><a href="${escapeHtml(preferencesUrl)}">Manage all your preferences</a></p>`
      : `<h1>Unsubscribe</h1><form method="post" action="${escapeHtml(action)}"><p>Stop receiving ${name}?</p><button type="submit">Unsubscribe</button></form><p><a href="${escapeHtml(preferencesUrl)}">Manage all your preferences</a></p>`,
  );
}

export const presentLinkExpiredPage = () =>
  htmlPage(
    'Link expired',
    '<h1>This link is invalid or has expired</h1><p>Open the link in a more recent message from us.</p>',
  );
