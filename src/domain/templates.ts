import type { DeliveryChannel } from '../schemas/delivery-channels.js';

/**
 * Template rules with no database and no request: what each channel's content holds, which
 * variant a recipient gets, and the locale fallback chain (docs/channels.md).
 */

/** Herald has no per-workspace default locale yet: English, as on the hosted platform. */
export const DEFAULT_LOCALE = 'en';

type FieldKind = 'string' | 'actions' | 'object';
interface FieldRule {
  kind: FieldKind;
  required: boolean;
  /** Rendered with HTML escaping of data (only email html). */
  html?: boolean;
}

const text = (required: boolean): FieldRule => ({ kind: 'string', required });

/** Content per channel (docs/spec/engine.md §6, ours): the fields a variant's content holds and renders. */
export const CHANNEL_FIELDS: Record<DeliveryChannel, Record<string, FieldRule>> = {
  email: { subject: text(true), html: { kind: 'string', required: true, html: true }, text: text(false) },
  sms: { text: text(true) },
  whatsapp: { text: text(true) },
  inbox: {
    header: text(false),
    text: text(true),
    url: text(false),
    avatar: text(false),
    actions: { kind: 'actions', required: false },
  },
  webpush: { title: text(true), body: text(true), url: text(false) },
  androidpush: { title: text(true), body: text(true), data: { kind: 'object', required: false } },
  iospush: { title: text(true), body: text(true), data: { kind: 'object', required: false } },
  slack: { text: text(true) },
  ms_teams: { text: text(true) },
};

export const MAX_INBOX_ACTIONS = 10;

/** Field → reasons, as the hosted platform reports a variant's errors (`{'subject': ['missing']}`). */
export function contentErrors(channel: DeliveryChannel, content: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, reason: string) => (errors[field] ??= []).push(reason);
  for (const [field, rule] of Object.entries(CHANNEL_FIELDS[channel])) {
    const value = content[field];
    if (value === undefined || value === null || value === '') {
      if (rule.required) add(field, 'missing');
      continue;
    }
    if (rule.kind === 'string' && typeof value !== 'string') add(field, 'must be a string');
    if (rule.kind === 'object' && (typeof value !== 'object' || Array.isArray(value))) add(field, 'must be an object');
    if (rule.kind === 'actions') {
      if (!Array.isArray(value)) add(field, 'must be an array of {name, url}');
      else if (value.length > MAX_INBOX_ACTIONS) add(field, `at most ${MAX_INBOX_ACTIONS} actions`);
      else
        value.forEach((action, index) => {
          const entry = action as Record<string, unknown> | null;
          if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
            add(`${field}[${index}]`, 'must be an object {name, url}');
          else
            for (const key of ['name', 'url'])
              if (typeof entry[key] !== 'string' || entry[key] === '') add(`${field}[${index}].${key}`, 'missing');
        });
    }
  }
  return errors;
}

/** `es-MX` → [`es-MX`, `es`, `en`]: the locale, its language, then the default; no repeats. */
export function localeChain(locale: string | null): string[] {
  const chain: string[] = [];
  if (locale) {
    chain.push(locale);
    const language = locale.split('-')[0]!;
    if (language !== locale) chain.push(language);
  }
  chain.push(DEFAULT_LOCALE);
  return [...new Set(chain)];
}

export interface VariantCandidate {
  variant_id: string;
  locale: string;
  tenant_id: string | null;
  conditions: unknown[];
  seq_no: number;
}

/** What conditions are evaluated against: the namespaces of the template context. */
export type ConditionScope = Record<string, unknown>;

function lookup(scope: ConditionScope, namespace: string | undefined, path: string): unknown {
  let value: unknown = namespace && namespace !== 'data' ? scope[namespace] : scope.data;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * A variant's conditions (the hosted platform's `expression_v1`: AND of `==` comparisons) hold
 * when every one does; an empty list always holds. An operator Herald does not know never holds,
 * so the variant is skipped rather than chosen by mistake.
 */
export function conditionsHold(conditions: unknown[], scope: ConditionScope): boolean {
  return conditions.every((condition) => {
    const expression = (condition as { type?: string; expression_v1?: { op?: string; args?: unknown[] } } | null)
      ?.expression_v1;
    if (!expression || (expression.op ?? 'AND') !== 'AND' || !Array.isArray(expression.args)) return false;
    return expression.args.every((arg) => {
      const { op, variable_ns, variable, value } = (arg ?? {}) as Record<string, unknown>;
      if (typeof variable !== 'string') return false;
      const actual = lookup(scope, typeof variable_ns === 'string' ? variable_ns : undefined, variable);
      if (op === '==') return actual !== undefined && String(actual) === String(value);
      if (op === '!=') return actual === undefined || String(actual) !== String(value);
      return false;
    });
  });
}

export const bySequence = (
  a: Pick<VariantCandidate, 'seq_no' | 'variant_id'>,
  b: Pick<VariantCandidate, 'seq_no' | 'variant_id'>,
) => a.seq_no - b.seq_no || (a.variant_id < b.variant_id ? -1 : a.variant_id > b.variant_id ? 1 : 0);

/**
 * Variant choice: the recipient's tenant in the recipient's locale (es-MX, then es), then a
 * tenant-less variant in that locale; then the same two in the default locale; then the default
 * variant (id `default`, else the first tenant-less one). A Spanish reader thus gets the generic
 * Spanish variant before the tenant's English one. Variants whose conditions do not hold are out
 * from the start; among equals the lowest `seq_no` wins.
 */
export function chooseVariant<V extends VariantCandidate>(
  variants: V[],
  tenantId: string,
  locale: string | null,
  scope: ConditionScope,
): V | undefined {
  const eligible = variants.filter((variant) => conditionsHold(variant.conditions, scope)).sort(bySequence);
  const chain = localeChain(locale);
  const requested = chain.filter((candidate) => candidate !== DEFAULT_LOCALE);
  for (const locales of [requested, [DEFAULT_LOCALE]])
    for (const tenant of [tenantId, null])
      for (const candidate of locales) {
        const match = eligible.find((variant) => variant.tenant_id === tenant && variant.locale === candidate);
        if (match) return match;
      }
  return (
    eligible.find((variant) => variant.variant_id === 'default') ??
    eligible.find((variant) => variant.tenant_id === null)
  );
}

/** The string fields of a content that are Handlebars sources (actions' name and url, push data values included). */
export function templateSources(channel: DeliveryChannel, content: Record<string, unknown>): [string, string][] {
  const sources: [string, string][] = [];
  for (const [field, rule] of Object.entries(CHANNEL_FIELDS[channel])) {
    const value = content[field];
    if (rule.kind === 'string' && typeof value === 'string') sources.push([field, value]);
    if (rule.kind === 'actions' && Array.isArray(value))
      value.forEach((action, index) => {
        for (const key of ['name', 'url']) {
          const source = (action as Record<string, unknown> | null)?.[key];
          if (typeof source === 'string') sources.push([`${field}[${index}].${key}`, source]);
        }
      });
    if (rule.kind === 'object' && typeof value === 'object' && value !== null)
      for (const [key, source] of Object.entries(value))
        if (typeof source === 'string') sources.push([`${field}.${key}`, source]);
  }
  return sources;
}

/** Why one variant cannot be committed, by field (empty when it can). */
export function variantErrors(
  variant: { channel: string; content: Record<string, unknown> },
  syntaxError: (source: string) => string | undefined,
): Record<string, string[]> {
  const channel = variant.channel as DeliveryChannel;
  const errors: Record<string, string[]> = { ...contentErrors(channel, variant.content) };
  for (const [field, source] of templateSources(channel, variant.content)) {
    const reason = syntaxError(source);
    if (reason) (errors[field] ??= []).push(`does not compile: ${reason}`);
  }
  return errors;
}

/** Every reason a draft's variants cannot be committed, each naming `channel:variant` and the field. */
export function commitErrors(
  enabledChannels: string[],
  variants: { channel: string; variant_id: string; content: Record<string, unknown> }[],
  syntaxError: (source: string) => string | undefined,
): string[] {
  const errors: string[] = [];
  for (const channel of enabledChannels)
    if (!variants.some((variant) => variant.channel === channel)) errors.push(`${channel}: no variant`);
  for (const variant of variants) {
    if (!enabledChannels.includes(variant.channel)) continue;
    const name = `${variant.channel}:${variant.variant_id}`;
    for (const [field, reasons] of Object.entries(variantErrors(variant, syntaxError)))
      errors.push(`${name}: ${field} ${reasons.join(', ')}`);
  }
  return errors;
}

/** The variant order the hosted platform's CLI reads and writes: per channel, per tenant (null first), ids by `seq_no`. */
export interface VariantOrder {
  channels: { channel: string; tenants: { tenant_id: string | null; variants: string[] }[] }[];
}

type OrderedVariant = { channel: string; variant_id: string; tenant_id: string | null; seq_no: number };

export function variantOrder(variants: OrderedVariant[]): VariantOrder {
  const channels: VariantOrder['channels'] = [];
  const sorted = [...variants].sort(
    (a, b) =>
      a.channel.localeCompare(b.channel) ||
      (a.tenant_id ?? '').localeCompare(b.tenant_id ?? '') ||
      Number(a.tenant_id !== null) - Number(b.tenant_id !== null) ||
      bySequence(a, b),
  );
  for (const variant of sorted) {
    let channel = channels.find((c) => c.channel === variant.channel);
    if (!channel) channels.push((channel = { channel: variant.channel, tenants: [] }));
    let tenant = channel.tenants.find((t) => t.tenant_id === variant.tenant_id);
    if (!tenant) channel.tenants.push((tenant = { tenant_id: variant.tenant_id, variants: [] }));
    tenant.variants.push(variant.variant_id);
  }
  return { channels };
}

/**
 * The `seq_no` each variant gets from a requested order: in each (channel, tenant) group the listed
 * ids first, in the order given, then the group's other variants in their current order; 1, 2, 3…
 * Reasons the request cannot apply are returned by field (an id the group does not hold, an id twice).
 */
export function sequenceFromOrder(
  variants: OrderedVariant[],
  requested: VariantOrder,
): { sequence: { channel: string; variant_id: string; seq_no: number }[]; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const sequence: { channel: string; variant_id: string; seq_no: number }[] = [];
  const seen = new Set<string>();
  requested.channels.forEach((channel, c) =>
    channel.tenants.forEach((tenant, t) => {
      const at = `channels[${c}].tenants[${t}]`;
      const key = JSON.stringify([channel.channel, tenant.tenant_id ?? null]);
      if (seen.has(key)) errors[at] = 'names a channel and tenant already given';
      seen.add(key);
      const group = variants
        .filter((v) => v.channel === channel.channel && v.tenant_id === (tenant.tenant_id ?? null))
        .sort(bySequence);
      if (new Set(tenant.variants).size !== tenant.variants.length) errors[`${at}.variants`] = 'lists a variant twice';
      const unknown = tenant.variants.filter((id) => !group.some((v) => v.variant_id === id));
      if (unknown.length > 0)
        errors[`${at}.variants`] =
          `no draft variant ${unknown.map((id) => `'${id}'`).join(', ')} in channel '${channel.channel}' ` +
          (tenant.tenant_id == null ? 'without a tenant' : `for tenant '${tenant.tenant_id}'`);
      const rest = group.filter((v) => !tenant.variants.includes(v.variant_id)).map((v) => v.variant_id);
      [...tenant.variants, ...rest].forEach((variant_id, index) =>
        sequence.push({ channel: channel.channel, variant_id, seq_no: index + 1 }),
      );
    }),
  );
  return { sequence, errors };
}
