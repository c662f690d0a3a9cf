import { describe, expect, it } from 'vitest';
import {
  categoryPreference,
  evaluate,
  ROOT_CATEGORY,
  type CategoryChoice,
} from '../../src/domain/preference-evaluation.js';
import { presentCategory, presentUserPreferences } from '../../src/presenters/preferences.js';

const rule = (default_preference: string) => ({ category: 'news', default_preference });
const choice = (preference: CategoryChoice['preference'], lists: Partial<CategoryChoice> = {}): CategoryChoice => ({
  preference,
  opt_in_channels: [],
  opt_out_channels: [],
  ...lists,
});
const decide = (...args: Parameters<typeof evaluate>) => {
  const { allowed, reason } = evaluate(...args);
  return { allowed, reason };
};

describe('evaluate: the one preference decision', () => {
  it('follows the category default when the user made no choice', () => {
    expect(decide(rule('opt_in'), undefined, 'email', false)).toEqual({ allowed: true, reason: 'default_opt_in' });
    expect(decide(rule('opt_out'), undefined, 'email', false)).toEqual({ allowed: false, reason: 'default_opt_out' });
    // A choice that names no preference (only channels or a digest) still follows the default.
    expect(decide(rule('opt_out'), choice(null), 'email', false)).toEqual({
      allowed: false,
      reason: 'default_opt_out',
    });
  });

  it("takes the user's category choice over the default", () => {
    expect(decide(rule('opt_in'), choice('opt_out'), 'email', false)).toEqual({
      allowed: false,
      reason: 'user_opt_out',
    });
    expect(decide(rule('opt_out'), choice('opt_in'), 'email', false)).toEqual({ allowed: true, reason: 'user_opt_in' });
  });

  it('applies opt_out_channels while the category is opted in, opt_in_channels while it is opted out', () => {
    const lists = { opt_in_channels: ['sms'], opt_out_channels: ['email'] };
    expect(decide(rule('opt_out'), choice('opt_in', lists), 'email', false)).toEqual({
      allowed: false,
      reason: 'category_channel_opt_out',
    });
    expect(decide(rule('opt_out'), choice('opt_in', lists), 'sms', false)).toEqual({
      allowed: true,
      reason: 'user_opt_in',
    });
    expect(decide(rule('opt_in'), choice('opt_out', lists), 'sms', false)).toEqual({
      allowed: true,
      reason: 'category_channel_opt_in',
    });
    expect(decide(rule('opt_in'), choice('opt_out', lists), 'email', false)).toEqual({
      allowed: false,
      reason: 'user_opt_out',
    });
    // With the default in effect, the lists apply the same way.
    expect(decide(rule('opt_in'), choice(null, lists), 'email', false)).toEqual({
      allowed: false,
      reason: 'category_channel_opt_out',
    });
    expect(decide(rule('opt_out'), choice(null, lists), 'sms', false)).toEqual({
      allowed: true,
      reason: 'category_channel_opt_in',
    });
  });

  it('denies a restricted channel before any category choice', () => {
    expect(decide(rule('opt_in'), choice('opt_in', { opt_in_channels: ['email'] }), 'email', true)).toEqual({
      allowed: false,
      reason: 'channel_restricted',
    });
    expect(decide(rule('opt_out'), choice(null, { opt_in_channels: ['email'] }), 'email', true)).toEqual({
      allowed: false,
      reason: 'channel_restricted',
    });
  });

  it('keeps cant_unsubscribe categories on, whatever the user chose or restricted', () => {
    expect(decide(rule('cant_unsubscribe'), choice('opt_out', { opt_out_channels: ['email'] }), 'email', true)).toEqual(
      { allowed: true, reason: 'cant_unsubscribe' },
    );
    expect(categoryPreference(rule('cant_unsubscribe'), choice('opt_out'))).toEqual({
      preference: 'opt_in',
      source: 'locked',
    });
  });

  it('allows root categories, which carry no user preference', () => {
    expect(evaluate(ROOT_CATEGORY, undefined, 'sms', true, 'system')).toEqual({
      allowed: true,
      reason: 'root_category',
      message: "'system' is a root category: users have no preference for it",
    });
  });

  it('explains the decision in words', () => {
    expect(evaluate(rule('opt_in'), choice('opt_in', { opt_out_channels: ['email'] }), 'email', false).message).toBe(
      "the user opted out of email for 'news' (the category is opted in by the user)",
    );
    expect(evaluate(rule('opt_out'), undefined, 'email', false).message).toBe(
      "'news' is opted out by default and the user made no choice",
    );
  });

  it('fails closed on a default it does not know', () => {
    expect(decide(rule('maybe'), undefined, 'email', false)).toEqual({ allowed: false, reason: 'default_opt_out' });
  });
});

describe('presenting preferences from evaluate()', () => {
  const category = { category: 'news', name: 'News', default_preference: 'opt_in' };
  const state = (restricted: string[], choices: Record<string, CategoryChoice> = {}) => ({
    restricted: new Set(restricted),
    choices: new Map(
      Object.entries(choices).map(([slug, c]) => [slug, { ...c, digest_schedule: null, properties: [] }]),
    ),
  });

  it('shows every channel as evaluate() decides it, and the recorded choice as original_preference', () => {
    const shown = presentCategory(
      category,
      state(['sms'], { news: choice('opt_in', { opt_out_channels: ['email'] }) }),
    );
    expect(shown).toMatchObject({
      name: 'News',
      description: null,
      original_preference: 'opt_in',
      preference: 'opt_in',
      is_editable: true,
      opt_out_channels: ['email'],
    });
    const off = shown.channels.filter((c) => c.preference === 'opt_out').map((c) => c.channel);
    expect(off).toEqual(['email', 'sms']);
    expect(shown.channels).toHaveLength(9);
  });

  it('lists sections of every root in definition order, with every channel restriction', () => {
    const roots = [
      { root_category: 'system', sections: [{ name: 'S', categories: [] }] },
      { root_category: 'transactional', sections: [{ name: 'T', categories: [category] }] },
    ];
    const shown = presentUserPreferences(roots, state(['inbox']));
    expect(shown.sections.map((s) => [s.name, s.subcategories.map((c) => c.category)])).toEqual([
      ['S', []],
      ['T', ['news']],
    ]);
    expect(shown.channel_preferences.filter((c) => c.is_restricted)).toEqual([
      { channel: 'inbox', is_restricted: true },
    ]);
  });
});
