import type { MessageRow } from '../repositories/messages.js';

const ms = (date: Date | null) => (date === null ? null : date.getTime());
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * A delivered inbox message as the web SDK reads a notification (docs/spec/engine.md §8): times in
 * epoch ms, `interacted_on` is the message's `clicked_at`, the content is the rendered inbox variant.
 */
export function presentNotification(row: MessageRow) {
  const content = (row.content ?? {}) as Record<string, unknown>;
  const avatar = content.avatar;
  const subtext = content.subtext;
  const tags = Array.isArray(content.tags) ? content.tags.filter((tag): tag is string => typeof tag === 'string') : [];
  const expiry = typeof content.expiry === 'number' ? content.expiry : null;
  return {
    n_id: row.id,
    n_category: row.category,
    created_on: row.created_at.getTime(),
    seen_on: ms(row.seen_at),
    read_on: row.is_read ? ms(row.read_at) : null,
    interacted_on: ms(row.clicked_at),
    archived: row.is_archived,
    tags,
    expiry,
    is_expiry_visible: false,
    is_pinned: content.is_pinned === true,
    can_user_unpin: false,
    message: {
      schema: '1',
      header: str(content.header) ?? null,
      text: str(content.text) ?? '',
      url: str(content.url) ?? null,
      avatar: typeof avatar === 'string' && avatar !== '' ? { avatar_url: avatar } : null,
      subtext: typeof subtext === 'string' && subtext !== '' ? { text: subtext } : null,
      actions: Array.isArray(content.actions) ? content.actions : [],
      extra_data: content.extra_data === undefined ? null : JSON.stringify(content.extra_data),
    },
  };
}

/** A notification as the older clients read it: their `seen_on` is the time it was read (their mark read sets it). */
export function presentLegacyNotification(row: MessageRow) {
  const notification = presentNotification(row);
  return { ...notification, seen_on: notification.read_on };
}
