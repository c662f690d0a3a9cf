import Handlebars from 'handlebars';
import type { Db } from '../db/database.js';
import { perDatabase } from '../db/per-database.js';
import type { CommittedVariant } from '../db/types.js';
import {
  CHANNEL_FIELDS,
  chooseVariant,
  localeChain,
  templateSources,
  type VariantCandidate,
} from '../domain/templates.js';
import { isSendable } from '../domain/template-approvals.js';
import { findApprovals } from '../repositories/template-approvals.js';
import { findLiveTemplatePointer, findTemplateVersionVariants } from '../repositories/template-versions.js';
import { findLiveTranslations } from '../repositories/translations.js';
import type { DeliveryChannel } from './provider.js';

/**
 * The seam between the engine and templates (docs/spec/engine.md §6): the engine asks for one channel's content for
 * one recipient; the template store picks the variant, renders it and says which version it used.
 */

/** What a template sees: the trigger's `data` keys at the root, beside these namespaces. */
export interface TemplateContext {
  data: Record<string, unknown>;
  $recipient: Record<string, unknown>;
  $actor: Record<string, unknown> | null;
  $brand: Record<string, unknown> | null;
  $batched_events?: unknown[];
  $batched_events_count?: number;
  recipient?: { subscription?: Record<string, unknown> };
  /** The recipient's signed links (channels/preference-links.ts), when the engine makes them. */
  $preferences_url?: string;
  $unsubscribe_url?: string;
}

export interface RenderRequest {
  workspaceId: string;
  templateSlug: string;
  channel: DeliveryChannel;
  tenantId: string;
  /** The run's notification category, which the unsubscribe link opts out of. */
  category?: string | null;
  /** The recipient's `$locale`, when it has one; the default locale otherwise. */
  locale: string | null;
  context: TemplateContext;
}

export interface RenderedTemplate {
  content: Record<string, unknown>;
  template: { slug: string; version_no: number; variant_id: string };
}

/**
 * A template that cannot be rendered fails that message with `reason`, never the run. A variant that
 * fails names itself, the field and, for a Handlebars error that says where, the line and column.
 */
export type RenderOutcome =
  ({ ok: true } & RenderedTemplate) | ({ ok: false; reason: string } & Partial<RenderFailurePlace>);

export interface RenderFailurePlace {
  variant_id: string;
  field: string;
  line: number;
  column: number;
}

/** Where a Handlebars error happened: its own line/column, or the parser's "on line N" and caret drawing. */
function placeOf(error: unknown): { line?: number; column?: number } {
  const e = error as { lineNumber?: unknown; column?: unknown; message?: unknown };
  if (typeof e.lineNumber === 'number' && typeof e.column === 'number')
    return { line: e.lineNumber, column: e.column + 1 };
  const message = String(e.message ?? '');
  const line = /on line (\d+):/.exec(message);
  const caret = message.split('\n')[2];
  if (!line) return {};
  return { line: Number(line[1]), ...(caret && caret.endsWith('^') ? { column: caret.length } : {}) };
}

class FieldRenderError extends Error {
  constructor(
    readonly field: string,
    override readonly cause: unknown,
  ) {
    super((cause as Error)?.message ?? String(cause));
  }
}

/** How many committed template versions keep their compiled variants in memory. */
export const RENDER_CACHE_SIZE = 500;

type Compiled = (context: unknown, options: { data: { translations: Translations } }) => string;
interface CompiledVariant extends VariantCandidate {
  channel: string;
  content: Record<string, unknown>;
  fields: [string, Compiled][];
  usesTranslations: boolean;
}
interface CompiledVersion {
  version_no: number;
  variants: CompiledVariant[];
  /** Variants that need a vendor's approval and do not have it yet: never sent (domain/template-approvals.ts). */
  awaitingApproval: { channel: string; variant_id: string }[];
}
type Translations = { lookup(key: string): string | undefined };

const handlebars = Handlebars.create();
// `{{t "key"}}`: the key's text in the first locale of the recipient's chain that has it; the key itself when none does.
handlebars.registerHelper('t', function (this: unknown, key: unknown, options: Handlebars.HelperOptions) {
  const translations = (options.data as { translations?: Translations } | undefined)?.translations;
  return typeof key === 'string' ? (translations?.lookup(key) ?? key) : '';
});

const TRANSLATION_CALL = /\{\{~?\s*t\s/;
const cacheOf = perDatabase<CompiledVersion>();

function compileVariant(variant: CommittedVariant): CompiledVariant {
  const channel = variant.channel as DeliveryChannel;
  const fields: [string, Compiled][] = [];
  let usesTranslations = false;
  for (const [field, source] of templateSources(channel, variant.content)) {
    // Only email html escapes data: text parts (subject, sms, push, chat) go out as written.
    const template = handlebars.compile(source, { noEscape: !(channel === 'email' && field === 'html') });
    fields.push([field, template as Compiled]);
    usesTranslations ||= TRANSLATION_CALL.test(source);
  }
  return { ...variant, fields, usesTranslations };
}

function remember(cache: Map<string, CompiledVersion>, key: string, version: CompiledVersion) {
  // A Map iterates in insertion order: re-inserting on use makes the first key the least recently used.
  cache.delete(key);
  cache.set(key, version);
  if (cache.size > RENDER_CACHE_SIZE) cache.delete(cache.keys().next().value!);
}

/** Renders every field of the chosen variant; actions and push data keep their shape. */
function renderContent(variant: CompiledVariant, root: Record<string, unknown>, translations: Translations) {
  const rendered = new Map(
    variant.fields.map(([field, template]) => {
      try {
        return [field, template(root, { data: { translations } })];
      } catch (error) {
        throw new FieldRenderError(field, error);
      }
    }),
  );
  const content: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(CHANNEL_FIELDS[variant.channel as DeliveryChannel])) {
    if (rule.kind === 'string') content[field] = rendered.get(field) ?? '';
    if (rule.kind === 'actions') {
      const actions = Array.isArray(variant.content[field]) ? (variant.content[field] as unknown[]) : [];
      content[field] = actions.map((_, index) => ({
        name: rendered.get(`${field}[${index}].name`) ?? '',
        url: rendered.get(`${field}[${index}].url`) ?? '',
      }));
    }
    if (rule.kind === 'object') {
      const source = (variant.content[field] ?? {}) as Record<string, unknown>;
      content[field] = Object.fromEntries(
        Object.entries(source).map(([key, value]) => [key, rendered.get(`${field}.${key}`) ?? value]),
      );
    }
  }
  return content;
}

/**
 * The reads a batch of renders shares (a batch of run steps or of deliveries, in one transaction):
 * each live template pointer and translation set is read once for the batch instead of once per
 * message. Without one, every render reads its own.
 */
export type RenderMemo = Map<string, Promise<unknown>>;

/** `read`'s answer, once per memo and key (no memo: read each time). */
export const memoized = <T>(memo: RenderMemo | undefined, key: string, read: () => Promise<T>): Promise<T> => {
  if (!memo) return read();
  let value = memo.get(key) as Promise<T> | undefined;
  if (!value) memo.set(key, (value = read()));
  return value;
};

/**
 * Renders one channel of a template's live version for one recipient (docs/channels.md): picks the
 * variant, renders it over the context, and never throws for a template problem: a template that
 * is missing, has no variant for the channel, or fails to compile or render is `{ok: false, reason}`.
 */
export async function renderTemplate(db: Db, request: RenderRequest, memo?: RenderMemo): Promise<RenderOutcome> {
  // The contract carries the workspace id as a string; the database's is an integer.
  const workspaceId = Number(request.workspaceId);
  if (!Number.isSafeInteger(workspaceId))
    return { ok: false, reason: `workspace '${request.workspaceId}' is not an id` };
  const pointer = await memoized(memo, `pointer\u0000${workspaceId}\u0000${request.templateSlug}`, () =>
    findLiveTemplatePointer(db, workspaceId, request.templateSlug),
  );
  if (!pointer) return { ok: false, reason: `template '${request.templateSlug}' not found or never committed` };
  const key = `${pointer.id}:${pointer.live_version_no}:${pointer.approvals_stamp}`;
  const cache = cacheOf(db);
  let version = cache.get(key);
  if (!version) {
    const versionKey = { template_id: pointer.id, version_no: pointer.live_version_no };
    const variants = await findTemplateVersionVariants(db, pointer.id, pointer.live_version_no);
    const approvals = await findApprovals(db, [versionKey]);
    const sendable = (variant: CommittedVariant) =>
      isSendable(
        variant,
        approvals.find((a) => a.channel === variant.channel && a.variant_id === variant.variant_id),
      );
    try {
      version = {
        version_no: pointer.live_version_no,
        variants: variants.filter(sendable).map(compileVariant),
        awaitingApproval: variants.filter((variant) => !sendable(variant)),
      };
    } catch (error) {
      return { ok: false, reason: `template '${request.templateSlug}' does not compile: ${(error as Error).message}` };
    }
  }
  remember(cache, key, version);
  return renderVersion(db, request, version, memo);
}

/**
 * Renders one channel of a template's draft variants (the preview, docs/runs.md), exactly as a
 * delivery renders the live ones; `variantId` picks the variant instead of the recipient's tenant,
 * locale and conditions.
 */
export async function renderDraftVariants(
  db: Db,
  request: RenderRequest,
  variants: CommittedVariant[],
  variantId?: string,
): Promise<RenderOutcome> {
  let compiled: CompiledVariant[];
  try {
    compiled = variants.map(compileVariant);
  } catch (error) {
    return { ok: false, reason: `template '${request.templateSlug}' does not compile: ${(error as Error).message}` };
  }
  return renderVersion(db, request, { version_no: 0, variants: compiled, awaitingApproval: [] }, undefined, variantId);
}

async function renderVersion(
  db: Db,
  request: RenderRequest,
  version: CompiledVersion,
  memo?: RenderMemo,
  variantId?: string,
): Promise<RenderOutcome> {
  const workspaceId = Number(request.workspaceId);
  const { context } = request;
  const root: Record<string, unknown> = {
    ...context.data,
    $recipient: context.$recipient,
    $user: context.$recipient,
    $actor: context.$actor ?? {},
    $brand: context.$brand ?? {},
    recipient: { ...(context.data.recipient as object | undefined), subscription: context.recipient?.subscription },
  };
  if (context.$preferences_url) root.$preferences_url = context.$preferences_url;
  if (context.$unsubscribe_url) root.$unsubscribe_url = context.$unsubscribe_url;
  if (context.$batched_events) {
    root.$batched_events = context.$batched_events;
    root.$batched_events_count = context.$batched_events_count ?? context.$batched_events.length;
  }
  const candidates = version.variants.filter((variant) => variant.channel === request.channel);
  const variant =
    variantId === undefined
      ? chooseVariant(candidates, request.tenantId, request.locale, root)
      : candidates.find((candidate) => candidate.variant_id === variantId);
  if (!variant && variantId !== undefined)
    return { ok: false, reason: `template '${request.templateSlug}' has no ${request.channel} variant '${variantId}'` };
  if (!variant) {
    const awaiting = version.awaitingApproval.filter((v) => v.channel === request.channel).map((v) => v.variant_id);
    return {
      ok: false,
      reason:
        `template '${request.templateSlug}' has no ${request.channel} variant for this recipient` +
        (awaiting.length ? ` (awaiting vendor approval: ${awaiting.join(', ')})` : ''),
    };
  }

  const chain = localeChain(request.locale);
  const files = variant.usesTranslations
    ? await memoized(memo, `translations\u0000${workspaceId}\u0000${chain.join(',')}`, () =>
        findLiveTranslations(db, workspaceId, chain),
      )
    : [];
  const translations: Translations = { lookup: (key) => translate(files, chain, key) };
  try {
    return {
      ok: true,
      content: renderContent(variant, root, translations),
      template: { slug: request.templateSlug, version_no: version.version_no, variant_id: variant.variant_id },
    };
  } catch (error) {
    const field = error instanceof FieldRenderError ? error.field : '';
    const cause = error instanceof FieldRenderError ? error.cause : error;
    const place = placeOf(cause);
    return {
      ok: false,
      reason: `template '${request.templateSlug}' variant ${request.channel}:${variant.variant_id} failed to render: ${(error as Error).message}`,
      variant_id: variant.variant_id,
      field,
      ...place,
    };
  }
}

/**
 * `key` or `namespace:key`, dotted paths into nested objects; the first locale of the chain whose
 * file has a string there wins.
 */
function translate(
  files: { locale: string; namespace: string | null; content: Record<string, unknown> }[],
  chain: string[],
  key: string,
): string | undefined {
  const colon = key.indexOf(':');
  const namespace = colon > 0 ? key.slice(0, colon) : null;
  const path = (colon > 0 ? key.slice(colon + 1) : key).split('.');
  for (const locale of chain) {
    const file = files.find((f) => f.locale === locale && f.namespace === namespace);
    let value: unknown = file?.content;
    for (const part of path)
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
    if (typeof value === 'string') return value;
  }
  return undefined;
}
