import { describe, expect, it } from 'vitest';
import {
  emptyTenantOverlay,
  tenantBlocks,
  tenantRule,
  type TenantOverlay,
} from '../../src/domain/tenant-preferences.js';
import { evaluate, ROOT_CATEGORY } from '../../src/domain/preference-evaluation.js';

const override = (fields: Partial<TenantOverlay['categories'] extends Map<string, infer V> ? V : never>) => ({
  preference: null,
  visible_to_subscriber: null,
  mandatory_channels: null,
  opt_in_channels: null,
  blocked_channels: null,
  updated_at: new Date(0),
  ...fields,
});

describe('the tenant fold of the preference rule', () => {
  const rule = { category: 'news', default_preference: 'opt_out' };

  it("replaces the category default with the tenant's preference only where the tenant set one", () => {
    const overlay = emptyTenantOverlay();
    expect(tenantRule(rule, undefined)).toBe(rule);
    expect(tenantRule(rule, overlay)).toBe(rule);
    overlay.categories.set('news', override({ preference: 'cant_unsubscribe' }));
    expect(tenantRule(rule, overlay)).toEqual({ category: 'news', default_preference: 'cant_unsubscribe' });
    overlay.categories.set('news', override({ blocked_channels: ['sms'] }));
    expect(tenantRule(rule, overlay)).toBe(rule);
  });

  it('blocks a channel for every category (tenant settings) or for one', () => {
    const overlay: TenantOverlay = {
      blockedChannels: new Set(['whatsapp']),
      categories: new Map([['news', override({ blocked_channels: ['sms'] })]]),
    };
    expect(tenantBlocks(overlay, 'news', 'sms')).toBe(true);
    expect(tenantBlocks(overlay, 'other', 'sms')).toBe(false);
    expect(tenantBlocks(overlay, 'other', 'whatsapp')).toBe(true);
    expect(tenantBlocks(undefined, 'news', 'sms')).toBe(false);
  });

  it('a tenant block wins over every other rule, root categories and cant_unsubscribe included', () => {
    expect(evaluate(ROOT_CATEGORY, undefined, 'sms', false, 'system', true).reason).toBe('tenant_channel_blocked');
    const locked = { category: 'security', default_preference: 'cant_unsubscribe' };
    expect(evaluate(locked, undefined, 'sms', false, '', true)).toMatchObject({
      allowed: false,
      reason: 'tenant_channel_blocked',
    });
    expect(evaluate(locked, undefined, 'sms', false, '', false).reason).toBe('cant_unsubscribe');
  });
});
